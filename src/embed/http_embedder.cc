#include "embed/http_embedder.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "net/http.h"
#include "core/hash.h"

namespace mmkg {
namespace {

using json = nlohmann::json;

int positive_int(const std::string& key, const std::string& v) {
  try {
    size_t used = 0;
    int n = std::stoi(v, &used);
    if (used == v.size() && n > 0) return n;
  } catch (...) {
  }
  throw UsageError("embedder option " + key + "=" + v + " must be a positive whole number");
}

const char* kGemmaQuery = "task: search result | query: ";
const char* kGemmaDoc = "title: none | text: ";

// Decodes an OpenAI base64 embedding (little-endian float32).
std::vector<float> decode_base64_floats(const std::string& b64) {
  static const std::string chars =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string bytes;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : b64) {
    if (c == '=') break;
    auto p = chars.find(c);
    if (p == std::string::npos) throw Error("embedding is not valid base64");
    acc = (acc << 6) | static_cast<uint32_t>(p);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  if (bytes.size() % 4) throw Error("base64 embedding is not a whole number of float32 values");
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

// One "embedding" value: a vector of numbers, a base64 string, or (servers without pooling,
// e.g. llama-cpp-python with a decoder model) one vector per token, which we mean-pool.
std::vector<float> parse_vector(const json& e) {
  if (e.is_string()) return decode_base64_floats(e.get<std::string>());
  if (!e.is_array() || e.empty()) throw Error("an embedding is empty or not an array");
  if (e[0].is_array()) {
    std::vector<float> sum;
    for (const auto& tok : e) {
      auto v = parse_vector(tok);
      if (sum.empty()) sum.assign(v.size(), 0.0f);
      if (v.size() != sum.size()) throw Error("token vectors of different lengths");
      for (size_t i = 0; i < v.size(); ++i) sum[i] += v[i];
    }
    for (float& x : sum) x /= static_cast<float>(e.size());
    return sum;
  }
  std::vector<float> v;
  v.reserve(e.size());
  for (const auto& x : e) {
    if (!x.is_number()) throw Error("an embedding holds a value that is not a number");
    const double d = x.get<double>();
    if (!std::isfinite(d)) throw Error("an embedding holds NaN or infinity");
    v.push_back(static_cast<float>(d));
  }
  return v;
}

void l2_normalise(float* v, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += static_cast<double>(v[i]) * v[i];
  if (s <= 0) return;
  const float inv = static_cast<float>(1.0 / std::sqrt(s));
  for (size_t i = 0; i < n; ++i) v[i] *= inv;
}

class HttpEmbedder final : public Embedder {
 public:
  HttpEmbedder(HttpEmbedderConfig cfg, RetryPolicy policy)
      : cfg_(std::move(cfg)), policy_(std::move(policy)), batch_(cfg_.batch) {
    where_ = "embedding server at " + redact_url(cfg_.url);
    std::vector<float> probe;
    try {
      probe = request({"dimension probe"}, true);
    } catch (const Error& e) {
      throw Error(std::string(e.what()) +
                  "; start the server or fix the URL in --embedder / MMKG_EMBEDDER");
    }
    dim_ = static_cast<int>(probe.size());
    if (cfg_.dim && cfg_.dim != dim_) {
      throw UsageError(where_ + " returns " + std::to_string(dim_) +
                       "-dimensional vectors, not the dim=" + std::to_string(cfg_.dim) +
                       " the spec asks for; fix dim= or the model");
    }
    const std::string who = cfg_.model.empty() ? redact_url(cfg_.url) : cfg_.model;
    id_ = "http:" + who;
    if (!cfg_.query_prefix.empty() || !cfg_.doc_prefix.empty()) {
      id_ += cfg_.style != PromptStyle::Custom ? "+" + std::string(prompt_style_name(cfg_.style))
                                    : "+prefix:" + hash_hex(cfg_.query_prefix + '\0' + cfg_.doc_prefix).substr(0, 8);
    }
  }

  std::string id() const override { return id_; }
  int dim() const override { return dim_; }

  std::vector<float> embed(const std::vector<std::string>& texts, EmbedKind kind) override {
    const std::string& prefix = kind == EmbedKind::Query ? cfg_.query_prefix : cfg_.doc_prefix;
    std::vector<std::string> in;
    in.reserve(texts.size());
    for (const auto& t : texts) {
      // Some servers refuse an empty input; a single space embeds "nothing" everywhere.
      in.push_back(prefix + (t.empty() && prefix.empty() ? " " : t));
    }
    std::vector<float> out(texts.size() * static_cast<size_t>(dim_));
    // Ranges of texts; worker threads take them in order.
    const size_t step = static_cast<size_t>(std::max(1, batch_.load()));
    std::vector<std::pair<size_t, size_t>> ranges;
    for (size_t b = 0; b < in.size(); b += step) ranges.emplace_back(b, std::min(in.size(), b + step));
    std::atomic<size_t> next{0};
    std::mutex err_mu;
    std::string first_error;
    auto work = [&] {
      for (size_t r; (r = next.fetch_add(1)) < ranges.size();) {
        {
          std::lock_guard<std::mutex> g(err_mu);
          if (!first_error.empty()) return;
        }
        try {
          embed_range(in, ranges[r].first, ranges[r].second, out);
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> g(err_mu);
          if (first_error.empty()) first_error = e.what();
        }
      }
    };
    const int n_threads = std::min<int>(cfg_.parallel, static_cast<int>(ranges.size()));
    if (n_threads <= 1) {
      work();
    } else {
      std::vector<std::thread> threads;
      for (int i = 0; i < n_threads; ++i) threads.emplace_back(work);
      for (auto& t : threads) t.join();
    }
    if (!first_error.empty()) throw Error(first_error);
    return out;
  }

  long long tokens() const { return tokens_.load(); }

 private:
  // Embeds in[b, e) into out, halving the batch when the server refuses it whole.
  void embed_range(const std::vector<std::string>& in, size_t b, size_t e, std::vector<float>& out) {
    const size_t cap = static_cast<size_t>(std::max(1, batch_.load()));
    if (e - b > cap) {  // the batch size was lowered since this range was cut
      for (size_t x = b; x < e; x += cap) embed_range(in, x, std::min(e, x + cap), out);
      return;
    }
    std::vector<std::string> part(in.begin() + static_cast<long>(b), in.begin() + static_cast<long>(e));
    std::vector<float> v;
    try {
      v = request(part, part.size() == 1);
    } catch (const HttpStatusError& err) {
      const long s = err.status();
      const bool refusal = s == 400 || s == 413 || s == 422 || s == 500;
      if (part.size() <= 1 || !refusal) throw;
      // The server may not take batches (llama-cpp-python with a decoder model) or this many
      // tokens at once: remember a smaller batch and split.
      const size_t half = part.size() / 2;
      int cur = batch_.load();
      while (static_cast<size_t>(cur) > half && !batch_.compare_exchange_weak(cur, static_cast<int>(half))) {
      }
      embed_range(in, b, e, out);  // now cut at the smaller size
      return;
    }
    if (v.size() != part.size() * static_cast<size_t>(dim_)) {
      throw Error(where_ + " returned vectors of " + std::to_string(v.size() / part.size()) +
                  " dimensions, earlier " + std::to_string(dim_) +
                  "; the server's model changed — re-run with the right --embedder");
    }
    std::copy(v.begin(), v.end(), out.begin() + static_cast<long>(b * static_cast<size_t>(dim_)));
  }

  // One request for `inputs`; returns their vectors, L2-normalised, in input order.
  // Multi-input requests do not retry 500s: a refused batch is split instead (embed_range).
  std::vector<float> request(const std::vector<std::string>& inputs, bool single) {
    json body = {{"input", inputs}, {"encoding_format", "float"}};
    if (!cfg_.model.empty()) body["model"] = cfg_.model;
    HttpRequest req{cfg_.url, body.dump(-1, ' ', false, json::error_handler_t::replace),
                    {"Content-Type: application/json", "Accept: application/json"}};
    if (!cfg_.api_key.empty()) req.headers.push_back("Authorization: Bearer " + cfg_.api_key);
    HttpLimits lim;
    lim.timeout_s = cfg_.timeout_s;
    lim.stall_s = std::min(60.0, cfg_.timeout_s);
    RetryPolicy pol = policy_;
    if (!single) pol.retry_statuses.erase(
        std::remove(pol.retry_statuses.begin(), pol.retry_statuses.end(), 500L),
        pol.retry_statuses.end());
    HttpResponse resp = http_send_with_retry(req, lim, pol, "embedding server");

    json j;
    try {
      j = json::parse(resp.body);
    } catch (const std::exception&) {
      throw Error(where_ + " answered something that is not JSON (" + error_excerpt(resp.body) +
                  "); is the URL an OpenAI-compatible /v1 endpoint?");
    }
    if (!j.is_object() || !j.contains("data") || !j["data"].is_array()) {
      throw Error(where_ + " answered JSON without a \"data\" list (" + error_excerpt(resp.body) +
                  "); is the URL an OpenAI-compatible /v1 endpoint?");
    }
    const auto& data = j["data"];
    if (data.size() != inputs.size()) {
      throw Error(where_ + " returned " + std::to_string(data.size()) + " embeddings for " +
                  std::to_string(inputs.size()) + " inputs");
    }
    if (j.contains("usage") && j["usage"].is_object() && j["usage"].contains("prompt_tokens") &&
        j["usage"]["prompt_tokens"].is_number_integer()) {
      tokens_ += j["usage"]["prompt_tokens"].get<long long>();
    }
    std::vector<std::vector<float>> rows(inputs.size());
    for (size_t i = 0; i < data.size(); ++i) {
      const auto& item = data[i];
      size_t idx = i;
      if (item.is_object() && item.contains("index") && item["index"].is_number_integer()) {
        const long long k = item["index"].get<long long>();
        if (k < 0 || static_cast<size_t>(k) >= inputs.size() || !rows[static_cast<size_t>(k)].empty()) {
          throw Error(where_ + " returned an embedding with a bad or repeated index " + std::to_string(k));
        }
        idx = static_cast<size_t>(k);
      }
      if (!item.is_object() || !item.contains("embedding")) {
        throw Error(where_ + " returned a data item without \"embedding\"");
      }
      try {
        rows[idx] = parse_vector(item["embedding"]);
      } catch (const Error& e) {
        throw Error(where_ + ": " + e.what());
      }
    }
    const size_t d = rows[0].size();
    std::vector<float> out;
    out.reserve(d * rows.size());
    for (auto& r : rows) {
      if (r.size() != d) throw Error(where_ + " returned embeddings of different lengths in one answer");
      l2_normalise(r.data(), r.size());
      out.insert(out.end(), r.begin(), r.end());
    }
    return out;
  }

  HttpEmbedderConfig cfg_;
  RetryPolicy policy_;
  std::string where_;
  std::string id_;
  int dim_ = 0;
  std::atomic<int> batch_;
  std::atomic<long long> tokens_{0};
};

}  // namespace

const char* prompt_style_name(PromptStyle s) {
  switch (s) {
    case PromptStyle::None: return "none";
    case PromptStyle::Gemma: return "gemma";
    case PromptStyle::E5: return "e5";
    case PromptStyle::Nomic: return "nomic";
    case PromptStyle::Custom: return "custom";
  }
  return "none";
}

HttpEmbedderConfig parse_http_embedder_spec(const std::string& spec) {
  HttpEmbedderConfig c;
  std::string s = spec;
  if (s == "openai" || s.rfind("openai#", 0) == 0) {
    s = "https://api.openai.com/v1" + (s.size() > 6 ? s.substr(6) : std::string("#model=text-embedding-3-small"));
  }
  if (s.rfind("http://", 0) != 0 && s.rfind("https://", 0) != 0) {
    throw UsageError("embedder spec \"" + redact_url(spec) + "\" is not an http(s) URL");
  }
  std::string key_env;
  std::string style = "none";  // prompts= as given; "custom" once a prefix is given (the last word wins)
  for (const auto& [key, val] : split_fragment_options(s)) {
    if (key == "model") c.model = val;
    else if (key == "prompts") style = val;
    else if (key == "query_prefix") c.query_prefix = val, style = "custom";
    else if (key == "doc_prefix") c.doc_prefix = val, style = "custom";
    else if (key == "batch") c.batch = positive_int(key, val);
    else if (key == "parallel") c.parallel = positive_int(key, val);
    else if (key == "dim") c.dim = positive_int(key, val);
    else if (key == "timeout") c.timeout_s = positive_int(key, val);
    else if (key == "key_env") key_env = val;
    else
      throw UsageError("unknown embedder option \"" + key +
                       "\"; use model, prompts, query_prefix, doc_prefix, batch, parallel, dim, "
                       "key_env or timeout");
  }
  if (style == "gemma") {
    c.style = PromptStyle::Gemma;
    c.query_prefix = kGemmaQuery, c.doc_prefix = kGemmaDoc;
  } else if (style == "e5") {
    c.style = PromptStyle::E5;
    c.query_prefix = "query: ", c.doc_prefix = "passage: ";
  } else if (style == "nomic") {
    c.style = PromptStyle::Nomic;
    c.query_prefix = "search_query: ", c.doc_prefix = "search_document: ";
  } else if (style == "custom") {
    c.style = PromptStyle::Custom;
  } else if (style != "none") {
    throw UsageError("unknown prompts=" + style + "; use gemma, e5, nomic or none");
  }

  // Endpoint: a URL ending in /embeddings is used as is; a base such as .../v1 gets /embeddings;
  // a bare host gets /v1/embeddings.
  while (!s.empty() && s.back() == '/') s.pop_back();
  const size_t host_start = s.find("://") + 3;
  if (s.find('/', host_start) == std::string::npos) s += "/v1";
  if (s.size() < 11 || s.compare(s.size() - 11, 11, "/embeddings") != 0) s += "/embeddings";
  c.url = s;

  const char* k = nullptr;
  if (!key_env.empty()) {
    k = std::getenv(key_env.c_str());
    if (!k || !*k) throw UsageError("key_env=" + key_env + " names an empty environment variable; export it");
  } else {
    k = std::getenv("MMKG_EMBED_API_KEY");
    if ((!k || !*k) && s.find("api.openai.com") != std::string::npos) k = std::getenv("OPENAI_API_KEY");
  }
  if (k) c.api_key = k;
  return c;
}

std::unique_ptr<Embedder> make_http_embedder(const HttpEmbedderConfig& config,
                                             const RetryPolicy& policy) {
  return std::make_unique<HttpEmbedder>(config, policy);
}

}  // namespace mmkg
