#include "llm/llm_cache.h"

#include <sqlite3.h>

#include <ctime>

#include "core/error.h"
#include "core/hash.h"
#include "store/sqlite_util.h"

namespace mmkg {

using json = nlohmann::json;

namespace {

// A message as JSON. Images are either data URIs in content parts (the wire) or, for cache keys,
// their MIME type and a hash of their bytes: as decisive, without hashing megabytes of base64.
json message_json(const Message& m, bool image_hashes) {
  json j = {{"role", m.role}};
  if (!m.images.empty() && !image_hashes) {
    // OpenAI content parts, text first: what OpenAI, Groq, vLLM and Ollama's /v1 all take.
    json parts = json::array();
    if (!m.content.empty()) parts.push_back({{"type", "text"}, {"text", m.content}});
    for (const auto& im : m.images) {
      parts.push_back({{"type", "image_url"}, {"image_url", {{"url", im.data_uri()}}}});
    }
    j["content"] = std::move(parts);
  } else if (m.content.empty() && !m.tool_calls.empty()) {
    j["content"] = nullptr;
  } else {
    j["content"] = m.content;
  }
  if (!m.images.empty() && image_hashes) {
    // Only when there are images, so the keys of text-only requests are what they always were.
    json ims = json::array();
    for (const auto& im : m.images) {
      ims.push_back({{"mime", im.mime}, {"bytes", im.bytes.size()}, {"xxh3", hash_hex(im.bytes)}});
    }
    j["images"] = std::move(ims);
  }
  if (!m.tool_calls.empty()) {
    json calls = json::array();
    for (const auto& c : m.tool_calls) {
      calls.push_back({{"id", c.id},
                       {"type", "function"},
                       {"function", {{"name", c.name}, {"arguments", c.arguments.dump()}}}});
    }
    j["tool_calls"] = calls;
  }
  if (!m.tool_call_id.empty()) j["tool_call_id"] = m.tool_call_id;
  if (!m.name.empty()) j["name"] = m.name;
  return j;
}

}  // namespace

json message_to_json(const Message& m) { return message_json(m, false); }

json response_to_json(const ChatResponse& r) {
  json calls = json::array();
  for (const auto& c : r.tool_calls) calls.push_back({{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
  return {{"text", r.text},
          {"tool_calls", calls},
          {"finish_reason", r.finish_reason},
          {"usage", {{"prompt", r.usage.prompt}, {"completion", r.usage.completion}, {"total", r.usage.total}}},
          {"model", r.model},
          {"json", r.json}};
}

ChatResponse response_from_json(const json& j) {
  ChatResponse r;
  r.text = j.value("text", "");
  for (const auto& c : j.value("tool_calls", json::array())) {
    r.tool_calls.push_back({c.value("id", ""), c.value("name", ""), c.value("arguments", json::object())});
  }
  r.finish_reason = j.value("finish_reason", "");
  if (j.contains("usage") && j["usage"].is_object()) {
    r.usage.prompt = j["usage"].value("prompt", 0LL);
    r.usage.completion = j["usage"].value("completion", 0LL);
    r.usage.total = j["usage"].value("total", 0LL);
  }
  r.model = j.value("model", "");
  if (j.contains("json")) r.json = j["json"];
  return r;
}

std::shared_ptr<LlmCache> LlmCache::open(const std::string& db_path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw IOError("cannot open the LLM cache in " + db_path + " (" + msg + ")");
  }
  sqlite3_busy_timeout(db, 10000);
  // The store runs in WAL mode; a cache row lost in a power cut only costs a request again.
  sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL", nullptr, nullptr, nullptr);
  char* err = nullptr;
  if (sqlite3_exec(db,
                   "CREATE TABLE IF NOT EXISTS llm_cache(key TEXT PRIMARY KEY, response TEXT NOT NULL, "
                   "created INTEGER NOT NULL)",
                   nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    sqlite3_close(db);
    throw IOError("cannot create the LLM cache table in " + db_path + " (" + msg + ")");
  }
  return std::shared_ptr<LlmCache>(new LlmCache(db));
}

LlmCache::~LlmCache() { sqlite3_close(db_); }

bool LlmCache::cacheable(const ChatRequest& req) {
  // Deterministic requests only: temperature 0, or a seed that makes the sampling repeatable.
  return (req.temperature && *req.temperature == 0.0) || req.seed.has_value();
}

std::string LlmCache::key(const std::string& model, const ChatRequest& req) {
  json msgs = json::array();
  for (const auto& m : req.messages) msgs.push_back(message_json(m, true));
  json tools = json::array();
  for (const auto& t : req.tools) {
    tools.push_back({{"name", t.name}, {"description", t.description}, {"parameters", t.parameters}});
  }
  json response_format;
  if (req.response_schema) {
    response_format = {{"name", req.response_schema->name}, {"schema", req.response_schema->schema}};
    // A lenient answer may be prose with json null: not what a strict request may be served.
    if (req.response_schema->lenient) response_format["lenient"] = true;
  }
  json k = {{"model", model},
            {"messages", msgs},
            {"temperature", req.temperature ? json(*req.temperature) : json()},
            {"max_tokens", req.max_tokens ? json(*req.max_tokens) : json()},
            {"seed", req.seed ? json(*req.seed) : json()},
            {"tools", tools},
            {"tool_choice", req.tool_choice},
            {"response_format", response_format},
            {"stop", req.stop}};
  // nlohmann::json objects keep keys sorted, so dump() is canonical.
  return hash_hex("mmkg-llm-cache-v1\n" + k.dump(-1, ' ', false, json::error_handler_t::replace));
}

std::optional<ChatResponse> LlmCache::get(const std::string& key) {
  std::string text;
  {
    std::lock_guard<std::mutex> g(mu_);
    Stmt st(db_, "SELECT response FROM llm_cache WHERE key = ?");
    st.bind(1, key);
    if (!st.step()) {
      ++misses_;
      return std::nullopt;
    }
    text = st.text(0);
  }
  try {
    ChatResponse r = response_from_json(json::parse(text));
    r.cached = true;
    ++hits_;
    return r;
  } catch (const std::exception&) {
    ++misses_;  // a damaged row is a miss; put() overwrites it
    return std::nullopt;
  }
}

void LlmCache::put(const std::string& key, const ChatResponse& resp) {
  const std::string text = response_to_json(resp).dump(-1, ' ', false, json::error_handler_t::replace);
  std::lock_guard<std::mutex> g(mu_);
  Stmt st(db_, "INSERT OR REPLACE INTO llm_cache(key, response, created) VALUES (?, ?, ?)");
  st.bind(1, key).bind(2, text).bind(3, static_cast<int64_t>(std::time(nullptr)));
  st.run();
}

}  // namespace mmkg
