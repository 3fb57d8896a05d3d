// The language model a command uses: none, a configured OpenAI-compatible server, or the local
// llama-cpp-python server (`--llm local`), with the store's response cache.
#include <cstdio>
#include <filesystem>
#include <mutex>

#include "app/llm_open.h"
#include "core/error.h"
#include "core/hash.h"
#include "ingest/figures.h"
#include "llm/vision.h"
#include "llm/llm_cache.h"
#include "llm/llm_config.h"
#include "llm/local_server.h"
#include "llm/openai_chat.h"

namespace mmkg {

namespace {

// Starts the local server (when cfg.local) and builds the client; fills cfg's URL and model.
std::unique_ptr<ChatModel> connect(bool verbose, const std::string& store_dir, LlmConfig& cfg,
                                   std::unique_ptr<LocalModelServer>& local) {
  if (cfg.local) {
    LocalServerOptions lo;
    lo.log_path = store_dir + "/local-llm.log";
    if (verbose) std::fprintf(stderr, "mmkg: llm: starting the local model server\n");
    local = LocalModelServer::start(lo);
    cfg.base_url = local->base_url();
    cfg.ctx = lo.ctx;
    if (cfg.model.empty()) cfg.model = local->model_name();
    if (verbose) std::fprintf(stderr, "mmkg: llm: %s ready at %s\n", cfg.model.c_str(), cfg.base_url.c_str());
  }
  if (!cfg.configured()) return nullptr;
  return make_openai_chat(cfg, {}, LlmCache::open(store_dir + "/mmkg.db"));
}

// A chat model connected on its first request: a run with nothing to send starts no server.
// If connecting fails, every request fails with the same error (no second attempt per thread).
class LazyChat final : public ChatModel {
 public:
  LazyChat(bool verbose, std::string store_dir, LlmConfig cfg)
      : verbose_(verbose), store_dir_(std::move(store_dir)), cfg_(std::move(cfg)) {}

  ChatResponse chat(const ChatRequest& req, const TokenCallback& on_token) override {
    return inner().chat(req, on_token);
  }
  std::string id() const override {
    std::lock_guard<std::mutex> g(mu_);
    return inner_ ? inner_->id() : "openai:" + cfg_.model + "@" + (cfg_.local ? "local" : cfg_.describe());
  }
  Usage total_usage() const override {
    std::lock_guard<std::mutex> g(mu_);
    return inner_ ? inner_->total_usage() : Usage{};
  }
  // From the configuration, so asking does not connect (or start a local server).
  bool vision() const override { return cfg_.vision; }
  int context_window() const override { return cfg_.local ? LocalServerOptions{}.ctx : cfg_.ctx; }

 private:
  ChatModel& inner() {
    std::lock_guard<std::mutex> g(mu_);
    if (inner_) return *inner_;
    if (!error_.empty()) throw Error(error_);
    try {
      inner_ = connect(verbose_, store_dir_, cfg_, local_);
      if (!inner_) throw UsageError("no chat model is configured");
    } catch (const Error& e) {
      error_ = e.what();
      throw;
    }
    return *inner_;
  }

  const bool verbose_;
  const std::string store_dir_;
  LlmConfig cfg_;
  mutable std::mutex mu_;
  std::unique_ptr<LocalModelServer> local_;
  std::unique_ptr<ChatModel> inner_;
  std::string error_;
};

}  // namespace

std::unique_ptr<ChatModel> open_llm(bool verbose, const std::string& store_dir, const std::string& llm,
                                    std::unique_ptr<LocalModelServer>& local) {
  LlmConfig cfg = resolve_llm_config(llm);
  return connect(verbose, store_dir, cfg, local);
}

std::unique_ptr<ChatModel> open_vlm(const std::string& store_dir, const std::string& spec) {
  return make_openai_chat(parse_vlm_spec(spec), {}, LlmCache::open(store_dir + "/mmkg.db"));
}

LazyLlm open_llm_lazy(bool verbose, const std::string& store_dir, const std::string& llm) {
  LlmConfig cfg = resolve_llm_config(llm);
  LazyLlm out;
  if (!cfg.local && !cfg.configured()) return out;
  if (cfg.local && cfg.model.empty()) {
    try {
      std::string python = "python3";
      if (const char* p = std::getenv("MMKG_PYTHON"); p && *p) python = p;
      cfg.model = std::filesystem::path(find_local_model(python)).stem().string();
    } catch (const Error& e) {
      throw UsageError(std::string("--llm local: ") + e.what());
    }
  }
  out.model = cfg.model.empty() ? cfg.describe() : cfg.model;
  out.concurrency = std::max(1, cfg.concurrency);
  out.chat = std::make_unique<LazyChat>(verbose, store_dir, cfg);
  return out;
}

namespace {

class VisionFigureDescriber : public FigureDescriber {
 public:
  explicit VisionFigureDescriber(ChatModel& model) : vd_(model) {}
  std::string id() const override { return vd_.model().id() + ":" + hash_hex(vd_.prompt()); }
  DescribedFigure describe(const Figure& fig) override {
    FigureDescription d = vd_.describe(fig.png, fig.caption);
    return {d.description, d.text, d.kind};
  }

 private:
  VisionDescriber vd_;
};

}  // namespace

std::unique_ptr<FigureDescriber> make_vision_describer(ChatModel& model) {
  return std::make_unique<VisionFigureDescriber>(model);
}

}  // namespace mmkg
