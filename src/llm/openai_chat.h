// The ChatModel for OpenAI-compatible chat completions (OpenAI, Groq, llama.cpp and
// llama-cpp-python servers, vLLM, Ollama): POST {base_url}/chat/completions, plain or streamed
// (SSE), with tool calls, structured output, retries (net/http.h), a concurrency cap and an
// optional response cache.
//
// Structured output degrades per client, remembered for later calls: response_format
// json_schema -> json_object (when the server answers 400 naming response_format / json_schema)
// -> the schema in the prompt only. The answer is parsed with a small repair (code fences, text
// around the outermost {...}, trailing commas); an answer that still is not JSON is asked for
// once more, quoting the parse error. Unusable answers (not JSON, no choices, tool arguments that
// are not JSON, an unknown tool) are retried once, then fail with an LlmError that says why.
// The API key is sent in the Authorization header only and is scrubbed from every error.
// Images (Message::images, vision models) go as OpenAI content parts with base64 data URIs.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "llm/chat_model.h"
#include "llm/llm_cache.h"
#include "llm/llm_config.h"
#include "net/http.h"

namespace mmkg {

class OpenAiChat final : public ChatModel {
 public:
  /// How structured output is requested (see the file comment); only ever moves down.
  enum class JsonMode { Schema = 0, Object = 1, Prompted = 2 };

  /// `policy` is used for transport retries with max_attempts = cfg.max_retries + 1 (tests pass
  /// a recording sleep). `cache` may be null. Throws UsageError when cfg has no base URL.
  OpenAiChat(LlmConfig cfg, RetryPolicy policy = {}, std::shared_ptr<LlmCache> cache = nullptr);

  ChatResponse chat(const ChatRequest& req, const TokenCallback& on_token = {}) override;
  std::string id() const override;
  Usage total_usage() const override;
  /// LlmConfig::vision: the spec said the model takes images. Requests with images to a model
  /// not marked so fail with UsageError before anything is sent.
  bool vision() const override { return cfg_.vision; }
  int context_window() const override { return cfg_.ctx; }

  JsonMode json_mode() const { return static_cast<JsonMode>(json_mode_.load()); }
  /// Most requests that were in flight at once (tests of the concurrency cap).
  int max_in_flight() const { return max_in_flight_.load(); }
  const LlmConfig& config() const { return cfg_; }

 private:
  struct Sent;
  ChatResponse run(const ChatRequest& req, const TokenCallback& on_token);
  // Ordered, so that the response schema keeps its property order on the wire.
  nlohmann::ordered_json build_body(const ChatRequest& req, const std::vector<Message>& msgs, JsonMode mode) const;
  ChatResponse exchange(const nlohmann::ordered_json& body, const ChatRequest& req, const TokenCallback& on_token,
                        bool& emitted, bool retry_500);
  // exchange()'s request: the body with its headers, the time and size limits, and the retry
  // policy (HTTP 500 retried only with `retry_500`).
  HttpRequest http_request(const nlohmann::ordered_json& body, const ChatRequest& req) const;
  HttpLimits http_limits(const ChatRequest& req) const;
  RetryPolicy retry_policy(bool retry_500) const;
  // exchange() of a streamed request: the events fed to on_token as they come.
  ChatResponse exchange_stream(const HttpRequest& hr, HttpLimits lim, const RetryPolicy& pol, const ChatRequest& req,
                               const TokenCallback& on_token, bool& emitted);
  void acquire(const std::atomic<bool>* cancel);
  void release();
  std::string scrub(std::string s) const;

  LlmConfig cfg_;
  RetryPolicy policy_;
  std::shared_ptr<LlmCache> cache_;
  std::string url_;    // .../chat/completions
  std::string where_;  // "chat model MODEL at URL" (redacted)
  std::atomic<int> json_mode_{0};
  std::atomic<bool> stream_options_{true};
  std::mutex slot_mu_;
  std::condition_variable slot_cv_;
  int in_flight_ = 0;
  std::atomic<int> max_in_flight_{0};
  std::atomic<long long> prompt_tokens_{0}, completion_tokens_{0}, total_tokens_{0}, requests_{0};
};

/// Builds the client for a resolved configuration (cfg.configured() must be true).
std::unique_ptr<ChatModel> make_openai_chat(const LlmConfig& cfg, const RetryPolicy& policy = {},
                                            std::shared_ptr<LlmCache> cache = nullptr);

/// Message content as text: a string as is, null as "", an array of content blocks as the text
/// of its text blocks (other blocks dropped) joined by `sep` — never the raw JSON.
std::string content_to_text(const nlohmann::json& content, std::string_view sep = "\n");

/// Parses model output as JSON, repairing what models commonly get wrong: ``` fences, prose
/// around the outermost {...} or [...], trailing commas, raw newlines and tabs inside strings. nullopt (and *error set) if it fails.
std::optional<nlohmann::json> parse_json_lenient(std::string_view text, std::string* error = nullptr);

}  // namespace mmkg
