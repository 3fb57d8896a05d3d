// The chat model interface: one call, chat(request) -> response, for every LLM backend. Requests
// and responses are plain structs; a backend maps them to its wire format (openai_chat.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace mmkg {

/// One tool call made by the model.
struct ToolCall {
  std::string id;
  std::string name;
  nlohmann::json arguments = nlohmann::json::object();  ///< parsed; always a JSON value
};

/// One chat message. `content` is always text: content blocks are joined before they get here.
struct Message {
  std::string role;  ///< "system", "user", "assistant" or "tool"
  std::string content;
  std::vector<ToolCall> tool_calls;  ///< assistant messages that called tools
  std::string tool_call_id;          ///< tool messages: the call this answers
  std::string name;                  ///< optional participant or tool name

  static Message system(std::string text) { return {"system", std::move(text), {}, {}, {}}; }
  static Message user(std::string text) { return {"user", std::move(text), {}, {}, {}}; }
  static Message assistant(std::string text) { return {"assistant", std::move(text), {}, {}, {}}; }
  static Message tool(std::string call_id, std::string text) {
    return {"tool", std::move(text), {}, std::move(call_id), {}};
  }
};

/// A function the model may call; `parameters` is its JSON schema.
struct ToolSpec {
  std::string name;
  std::string description;
  nlohmann::json parameters = nlohmann::json::object();
};

/// Structured output: the answer must be JSON matching `schema`. The schema is sent with its
/// keys in the order written: grammar-constrained servers (llama.cpp) generate an object's
/// properties in that order, so put first what should condition the rest (a name before its
/// description).
struct ResponseSchema {
  std::string name = "answer";
  nlohmann::ordered_json schema = nlohmann::ordered_json::object();
};

struct ChatRequest {
  std::vector<Message> messages;
  std::optional<double> temperature;
  std::optional<int> max_tokens;
  std::optional<int64_t> seed;
  std::vector<std::string> stop;
  std::vector<ToolSpec> tools;
  /// "" (server default), "auto", "none", "required", or the name of one tool to force.
  std::string tool_choice;
  std::optional<ResponseSchema> response_schema;
  /// Stream the answer (SSE); tokens go to the on_token callback as they arrive.
  bool stream = false;
  /// Set to true (from any thread) to abandon the request; chat() then throws LlmError.
  const std::atomic<bool>* cancel = nullptr;
};

/// Token counts as reported by the server (0 when it reports none). A response's usage covers
/// every answer its chat() call received (a repair attempt included).
struct Usage {
  long long prompt = 0;
  long long completion = 0;
  long long total = 0;
  /// HTTP requests sent: transport retries, repair attempts and structured-output probes
  /// included. Set in ChatModel::total_usage() only.
  long long requests = 0;
};

struct ChatResponse {
  std::string text;  ///< the answer as text (content blocks joined), never raw JSON blocks
  std::vector<ToolCall> tool_calls;
  std::string finish_reason;  ///< "stop", "length", "tool_calls", ...
  Usage usage;
  std::string model;  ///< the model the server says answered
  bool cached = false;  ///< served from the response cache without a request
  double ms = 0;        ///< wall time of chat()
  /// Structured output: the parsed (and, if needed, repaired) JSON answer; null otherwise.
  nlohmann::json json;
};

/// A failed chat: the server's answer was unusable after the retries, or the request was
/// cancelled. The message says what happened and what to do; it never holds an API key.
class LlmError : public Error {
 public:
  using Error::Error;
};

/// Called with each piece of streamed text, in order.
using TokenCallback = std::function<void(std::string_view)>;

/// A chat model. chat() is thread-safe; backends cap their own concurrency.
class ChatModel {
 public:
  virtual ~ChatModel() = default;
  /// Sends `req`; streams text to `on_token` when req.stream is set (cached answers arrive as
  /// one piece). Throws LlmError, NetError or HttpStatusError (all mmkg::Error) on failure.
  virtual ChatResponse chat(const ChatRequest& req, const TokenCallback& on_token = {}) = 0;
  /// "openai:MODEL@URL" or similar; no secrets.
  virtual std::string id() const = 0;
  /// Tokens used and HTTP requests sent by all calls so far (cache hits excluded).
  virtual Usage total_usage() const = 0;
};

}  // namespace mmkg
