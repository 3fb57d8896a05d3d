// The chat model a Session uses (internal to app/): none, a configured OpenAI-compatible server,
// or the local llama-cpp-python server (`--llm local`), with the store's response cache.
#pragma once

#include <memory>
#include <string>

namespace mmkg {

class ChatModel;
class LocalModelServer;

/// The model for ask/eval: nullptr for none; for `local` starts the server into `local` (stopped
/// when it is destroyed). `llm`: the --llm value (empty: config file, then environment).
std::unique_ptr<ChatModel> open_llm(bool verbose, const std::string& store_dir, const std::string& llm,
                                    std::unique_ptr<LocalModelServer>& local);

/// The vision model for --vlm SPEC (parse_vlm_spec: an http(s) spec, vision implied), with the
/// store's response cache, so a figure described once is not sent again. Connects on its first
/// request. Throws UsageError for a bad spec.
std::unique_ptr<ChatModel> open_vlm(const std::string& store_dir, const std::string& spec);

class FigureDescriber;
/// The ingest stage's figure describer over a vision chat model (llm/vision.h): one call per
/// figure, the caption as a hint. `model` must outlive it.
std::unique_ptr<FigureDescriber> make_vision_describer(ChatModel& model);

/// The model for ingest --extract llm, connected (and for `local` started) on its first request,
/// so a run with nothing to extract starts nothing. `chat` is null when no model is configured.
/// Throws UsageError for a bad --llm value or a missing local model.
struct LazyLlm {
  std::unique_ptr<ChatModel> chat;
  std::string model;    ///< the model's name for ids ("SmolLM2-135M-Instruct.Q4_1"); no secrets
  int concurrency = 1;  ///< requests in flight at once (LlmConfig::concurrency)
};
LazyLlm open_llm_lazy(bool verbose, const std::string& store_dir, const std::string& llm);

}  // namespace mmkg
