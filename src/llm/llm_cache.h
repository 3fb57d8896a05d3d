// The LLM response cache: table llm_cache in the store's SQLite database, keyed by a hash of
// everything that decides the answer (model, messages, sampling parameters, tools, output format).
// Only deterministic requests are cached (temperature 0 or a fixed seed): caching a sampled answer
// would freeze one draw of a random process. Thread-safe: one connection guarded by a mutex.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "llm/chat_model.h"

struct sqlite3;

namespace mmkg {

class LlmCache {
 public:
  /// Opens its own connection to the SQLite file `db_path` (e.g. STORE/mmkg.db) and creates the
  /// table if needed. Throws IOError.
  static std::shared_ptr<LlmCache> open(const std::string& db_path);
  ~LlmCache();
  LlmCache(const LlmCache&) = delete;
  LlmCache& operator=(const LlmCache&) = delete;

  /// True when `req` may be cached: temperature 0 or a seed (see the file comment).
  static bool cacheable(const ChatRequest& req);
  /// The cache key of `req` for `model`: XXH3 of the canonical JSON (sorted keys) of
  /// {model, messages, temperature, max_tokens, seed, tools, tool_choice, response_format, stop};
  /// a message's images count by MIME type, size and XXH3 of their bytes.
  static std::string key(const std::string& model, const ChatRequest& req);

  std::optional<ChatResponse> get(const std::string& key);
  void put(const std::string& key, const ChatResponse& resp);

  long long hits() const { return hits_.load(); }
  long long misses() const { return misses_.load(); }

 private:
  explicit LlmCache(sqlite3* db) : db_(db) {}
  sqlite3* db_;
  std::mutex mu_;
  std::atomic<long long> hits_{0}, misses_{0};
};

/// ChatResponse <-> JSON (the cached form).
nlohmann::json response_to_json(const ChatResponse& r);
ChatResponse response_from_json(const nlohmann::json& j);
/// A message in OpenAI wire form: plain text content, or with images content parts (text first,
/// then one image_url part per image holding its data URI).
nlohmann::json message_to_json(const Message& m);

}  // namespace mmkg
