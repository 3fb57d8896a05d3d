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

#include "core/base64.h"
#include "core/error.h"

namespace mmkg {

/// One tool call made by the model.
struct ToolCall {
  std::string id;
  std::string name;
  nlohmann::json arguments = nlohmann::json::object();  ///< parsed; always a JSON value
};

/// An image sent to a vision model: raw bytes and their MIME type. Carried as bytes (not a data
/// URI) so the cache key can hash them cheaply; the client base64-encodes them on the wire.
struct ImagePart {
  std::string mime = "image/png";  ///< "image/png", "image/jpeg", "image/webp", ...
  std::string bytes;               ///< the encoded image file (PNG bytes, ...)

  /// "data:MIME;base64,..." as OpenAI-compatible servers take it in image_url.url.
  std::string data_uri() const { return "data:" + mime + ";base64," + base64_encode(bytes); }
};

/// One chat message. `content` is always text: content blocks are joined before they get here.
/// `images` go to vision models only (ChatModel::vision()); a message with images is sent as
/// content parts, its text first and then each image, and one without as plain text.
struct Message {
  std::string role;  ///< "system", "user", "assistant" or "tool"
  std::string content;
  std::vector<ToolCall> tool_calls;  ///< assistant messages that called tools
  std::string tool_call_id;          ///< tool messages: the call this answers
  std::string name;                  ///< optional participant or tool name
  std::vector<ImagePart> images;     ///< user messages to a vision model

  static Message system(std::string text) { return make("system", std::move(text)); }
  static Message user(std::string text) { return make("user", std::move(text)); }
  /// A user message with images, in the order given.
  static Message user(std::string text, std::vector<ImagePart> images) {
    Message m = make("user", std::move(text));
    m.images = std::move(images);
    return m;
  }
  static Message assistant(std::string text) { return make("assistant", std::move(text)); }
  static Message tool(std::string call_id, std::string text) {
    Message m = make("tool", std::move(text));
    m.tool_call_id = std::move(call_id);
    return m;
  }

 private:
  static Message make(std::string role, std::string text) {
    Message m;
    m.role = std::move(role);
    m.content = std::move(text);
    return m;
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
  /// For callers that can use a prose answer (they fall back to the text): an answer that is not
  /// JSON comes back as text with `json` null, and JSON missing required keys comes back as
  /// parsed, instead of being asked for once more and then failing with LlmError. Keeps one
  /// request per call, which matters when every request carries an image.
  bool lenient = false;
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
  /// True when the model takes images (Message::images). Servers do not say so in a way every
  /// one of them answers, so it is configured (the `vision` option of an LLM spec).
  virtual bool vision() const { return false; }
  /// The model's context window in tokens when known (the local server's n_ctx); 0: not known.
  virtual int context_window() const { return 0; }
};

}  // namespace mmkg
