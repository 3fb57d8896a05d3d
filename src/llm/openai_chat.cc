#include "llm/openai_chat.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <map>

#include "llm/sse.h"

namespace mmkg {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// An answer we cannot use; worth one more attempt unless streamed text already went out.
struct BadAnswer {
  std::string why;
};

std::string excerpt(std::string_view s, size_t n = 120) {
  std::string out;
  for (char c : s) {
    if (out.size() >= n) {
      out += "...";
      break;
    }
    out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  }
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// llama-cpp-python answers an unsupported response_format with HTTP 500 (a pydantic validation
// error), OpenAI-style servers with 400 or 422.
bool mentions_response_format(const HttpStatusError& e) {
  if (e.status() != 400 && e.status() != 422 && e.status() != 500) return false;
  const std::string b = lower(e.body()) + lower(e.what());
  return b.find("response_format") != std::string::npos || b.find("json_schema") != std::string::npos ||
         b.find("json_object") != std::string::npos || b.find("response format") != std::string::npos;
}

bool mentions_stream_options(const HttpStatusError& e) {
  if (e.status() != 400 && e.status() != 422) return false;
  return lower(e.body()).find("stream_options") != std::string::npos;
}

std::string text_of_block(const json& b) {
  if (b.is_string()) return b.get<std::string>();
  if (!b.is_object()) return {};
  const std::string type = b.contains("type") && b["type"].is_string() ? b["type"].get<std::string>() : "text";
  if (type != "text" && type != "output_text") return {};
  if (!b.contains("text")) return {};
  const json& t = b["text"];
  if (t.is_string()) return t.get<std::string>();
  if (t.is_object() && t.contains("value") && t["value"].is_string()) return t["value"].get<std::string>();
  return {};
}

std::string remove_trailing_commas(std::string_view s) {
  std::string out;
  bool in_str = false, esc = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_str) {
      out += c;
      if (esc) esc = false;
      else if (c == '\\') esc = true;
      else if (c == '"') in_str = false;
      continue;
    }
    if (c == '"') in_str = true;
    if (c == ',') {
      size_t j = i + 1;
      while (j < s.size() && std::isspace(static_cast<unsigned char>(s[j]))) ++j;
      if (j < s.size() && (s[j] == '}' || s[j] == ']')) continue;
    }
    out += c;
  }
  return out;
}

// Raw control characters inside strings (a newline a grammar let through) become escapes.
std::string escape_controls_in_strings(std::string_view s) {
  std::string out;
  bool in_str = false, esc = false;
  for (char c : s) {
    if (in_str && !esc && static_cast<unsigned char>(c) < 0x20) {
      out += c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : " ";
      continue;
    }
    out += c;
    if (!in_str) {
      if (c == '"') in_str = true;
    } else if (esc) {
      esc = false;
    } else if (c == '\\') {
      esc = true;
    } else if (c == '"') {
      in_str = false;
    }
  }
  return out;
}

std::optional<json> try_parse(std::string_view s, std::string* err) {
  try {
    return json::parse(s.begin(), s.end());
  } catch (const json::parse_error& e) {
    if (err) *err = e.what();
    return std::nullopt;
  }
}

// Checks the parts of a JSON schema that matter most to callers: the top-level type and the
// required keys of an object. Empty = fine.
std::string schema_problem(const json& value, const nlohmann::ordered_json& schema) {
  if (!schema.is_object()) return {};
  const std::string type = schema.value("type", "");
  if (type == "object" && !value.is_object()) return "the answer is not a JSON object";
  if (type == "array" && !value.is_array()) return "the answer is not a JSON array";
  if (value.is_object() && schema.contains("required") && schema["required"].is_array()) {
    for (const auto& k : schema["required"]) {
      if (k.is_string() && !value.contains(k.get<std::string>())) {
        return "the required key \"" + k.get<std::string>() + "\" is missing";
      }
    }
  }
  return {};
}

json parse_arguments(const json& raw, const std::string& name) {
  if (raw.is_object() || raw.is_array()) return raw;
  if (raw.is_null()) return json::object();
  if (!raw.is_string()) throw BadAnswer{"called tool \"" + name + "\" with arguments that are not a JSON object"};
  const std::string s = raw.get<std::string>();
  if (s.find_first_not_of(" \t\r\n") == std::string::npos) return json::object();
  std::string err;
  auto j = parse_json_lenient(s, &err);
  if (!j || !j->is_object()) {
    throw BadAnswer{"called tool \"" + name + "\" with arguments that are not a JSON object (" + excerpt(s) + ")"};
  }
  return *j;
}

void check_tool_name(const std::string& name, const ChatRequest& req) {
  if (name.empty()) throw BadAnswer{"made a tool call without a function name"};
  if (req.tools.empty()) return;
  for (const auto& t : req.tools) {
    if (t.name == name) return;
  }
  throw BadAnswer{"called an unknown tool \"" + excerpt(name, 60) + "\""};
}

void read_usage(const json& u, Usage& out) {
  if (!u.is_object()) return;
  auto get = [&](const char* k) -> long long {
    return u.contains(k) && u[k].is_number_integer() ? u[k].get<long long>() : 0;
  };
  out.prompt = get("prompt_tokens");
  out.completion = get("completion_tokens");
  out.total = get("total_tokens");
  if (out.total == 0) out.total = out.prompt + out.completion;
}

ChatResponse parse_completion(const std::string& body, const ChatRequest& req) {
  json j;
  try {
    j = json::parse(body);
  } catch (const std::exception&) {
    throw BadAnswer{"answered something that is not complete JSON (" + excerpt(body) + ")"};
  }
  if (!j.is_object()) throw BadAnswer{"answered JSON that is not an object (" + excerpt(body) + ")"};
  if (j.contains("error") && !j["error"].is_null()) {
    throw BadAnswer{"answered an error (" + error_excerpt(body) + ")"};
  }
  if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty()) {
    throw BadAnswer{"answered with an empty choice list"};
  }
  const json& c = j["choices"][0];
  if (!c.is_object() || !c.contains("message") || !c["message"].is_object()) {
    throw BadAnswer{"answered a choice without a message"};
  }
  const json& m = c["message"];
  ChatResponse r;
  if (m.contains("content")) r.text = content_to_text(m["content"]);
  if (m.contains("tool_calls") && m["tool_calls"].is_array()) {
    for (const auto& tc : m["tool_calls"]) {
      if (!tc.is_object()) throw BadAnswer{"answered a tool call that is not an object"};
      const json f = tc.value("function", json::object());
      ToolCall call;
      call.id = tc.contains("id") && tc["id"].is_string() ? tc["id"].get<std::string>() : "";
      call.name = f.is_object() && f.contains("name") && f["name"].is_string() ? f["name"].get<std::string>() : "";
      check_tool_name(call.name, req);
      call.arguments = parse_arguments(f.is_object() && f.contains("arguments") ? f["arguments"] : json(), call.name);
      r.tool_calls.push_back(std::move(call));
    }
  }
  if (c.contains("finish_reason") && c["finish_reason"].is_string()) r.finish_reason = c["finish_reason"];
  if (j.contains("usage")) read_usage(j["usage"], r.usage);
  if (j.contains("model") && j["model"].is_string()) r.model = j["model"];
  return r;
}

// The state of one streamed answer.
struct StreamState {
  struct Frag {
    std::string id, name, args;
  };
  std::string text, finish_reason, model, error;
  std::map<long long, Frag> calls;  // by index
  Usage usage;
  bool done = false, saw_choice = false;
  size_t emitted = 0;

  void event(const SseEvent& ev, const TokenCallback& on_token) {
    if (!error.empty() || done) return;
    if (ev.data == "[DONE]") {
      done = true;
      return;
    }
    json j;
    try {
      j = json::parse(ev.data);
    } catch (const std::exception&) {
      error = "sent a stream event that is not JSON (" + excerpt(ev.data) + ")";
      return;
    }
    if (!j.is_object()) return;
    if (j.contains("error") && !j["error"].is_null()) {
      error = "reported an error mid-stream (" + error_excerpt(ev.data) + ")";
      return;
    }
    if (j.contains("model") && j["model"].is_string()) model = j["model"];
    if (j.contains("usage") && j["usage"].is_object()) read_usage(j["usage"], usage);
    if (j.contains("x_groq") && j["x_groq"].is_object() && j["x_groq"].contains("usage")) {
      read_usage(j["x_groq"]["usage"], usage);
    }
    if (!j.contains("choices") || !j["choices"].is_array()) return;
    for (const auto& c : j["choices"]) {
      if (!c.is_object() || c.value("index", 0) != 0) continue;
      saw_choice = true;
      if (c.contains("finish_reason") && c["finish_reason"].is_string()) finish_reason = c["finish_reason"];
      if (!c.contains("delta") || !c["delta"].is_object()) continue;
      const json& d = c["delta"];
      if (d.contains("content")) {
        const std::string piece = content_to_text(d["content"], "");
        if (!piece.empty()) {
          text += piece;
          emitted += piece.size();
          if (on_token) on_token(piece);
        }
      }
      if (d.contains("tool_calls") && d["tool_calls"].is_array()) {
        for (const auto& tc : d["tool_calls"]) {
          if (!tc.is_object()) continue;
          const long long idx = tc.contains("index") && tc["index"].is_number_integer()
                                    ? tc["index"].get<long long>()
                                    : static_cast<long long>(calls.size());
          Frag& f = calls[idx];
          if (tc.contains("id") && tc["id"].is_string()) f.id = tc["id"];
          if (tc.contains("function") && tc["function"].is_object()) {
            const json& fn = tc["function"];
            if (fn.contains("name") && fn["name"].is_string()) f.name += fn["name"].get<std::string>();
            if (fn.contains("arguments")) {
              if (fn["arguments"].is_string()) f.args += fn["arguments"].get<std::string>();
              else if (!fn["arguments"].is_null()) f.args += fn["arguments"].dump();
            }
          }
        }
      }
    }
  }
};

}  // namespace

std::string content_to_text(const json& content, std::string_view sep) {
  if (content.is_null()) return {};
  if (content.is_string()) return content.get<std::string>();
  if (content.is_object()) return text_of_block(content);
  if (!content.is_array()) return {};
  std::string out;
  bool first = true;
  for (const auto& b : content) {
    const std::string t = text_of_block(b);
    if (t.empty()) continue;
    if (!first) out += sep;
    out += t;
    first = false;
  }
  return out;
}

std::optional<json> parse_json_lenient(std::string_view text, std::string* error) {
  std::string err;
  if (auto j = try_parse(text, &err)) return j;
  std::string s(text);
  // ``` fences: keep what is inside the first fenced block.
  if (auto f = s.find("```"); f != std::string::npos) {
    size_t start = s.find('\n', f);
    start = start == std::string::npos ? f + 3 : start + 1;
    const size_t end = s.find("```", start);
    s = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
  }
  // The outermost {...} or [...].
  const size_t ob = s.find('{'), ab = s.find('[');
  const size_t b = std::min(ob, ab);
  if (b != std::string::npos) {
    const char close = s[b] == '{' ? '}' : ']';
    const size_t e = s.rfind(close);
    if (e != std::string::npos && e > b) s = s.substr(b, e - b + 1);
  }
  s = escape_controls_in_strings(remove_trailing_commas(s));
  if (auto j = try_parse(s, &err)) return j;
  if (error) *error = err;
  return std::nullopt;
}

OpenAiChat::OpenAiChat(LlmConfig cfg, RetryPolicy policy, std::shared_ptr<LlmCache> cache)
    : cfg_(std::move(cfg)), policy_(std::move(policy)), cache_(std::move(cache)) {
  if (cfg_.base_url.empty()) {
    throw UsageError("no chat model URL is configured; pass --llm URL#model=NAME or set MMKG_LLM_BASE_URL");
  }
  cfg_.base_url = normalise_llm_base_url(cfg_.base_url);
  cfg_.concurrency = std::max(1, cfg_.concurrency);
  cfg_.max_retries = std::max(0, cfg_.max_retries);
  url_ = cfg_.base_url + "/chat/completions";
  where_ = "chat model " + (cfg_.model.empty() ? std::string() : cfg_.model + " ") + "at " + redact_url(cfg_.base_url);
}

std::string OpenAiChat::id() const {
  return "openai:" + cfg_.model + "@" + redact_url(cfg_.base_url);
}

Usage OpenAiChat::total_usage() const {
  return {prompt_tokens_.load(), completion_tokens_.load(), total_tokens_.load(), requests_.load()};
}

std::string OpenAiChat::scrub(std::string s) const {
  if (cfg_.api_key.size() >= 4) {
    for (size_t p; (p = s.find(cfg_.api_key)) != std::string::npos;) s.replace(p, cfg_.api_key.size(), "***");
  }
  return s;
}

void OpenAiChat::acquire(const std::atomic<bool>* cancel) {
  std::unique_lock<std::mutex> lk(slot_mu_);
  while (in_flight_ >= cfg_.concurrency) {
    if (cancel && cancel->load()) throw LlmError(where_ + ": cancelled");
    slot_cv_.wait_for(lk, std::chrono::milliseconds(50));
  }
  ++in_flight_;
  int m = max_in_flight_.load();
  while (in_flight_ > m && !max_in_flight_.compare_exchange_weak(m, in_flight_)) {
  }
}

void OpenAiChat::release() {
  {
    std::lock_guard<std::mutex> g(slot_mu_);
    --in_flight_;
  }
  slot_cv_.notify_one();
}

ChatResponse OpenAiChat::chat(const ChatRequest& req, const TokenCallback& on_token) {
  if (!cfg_.vision) {
    // A text-only server answers images with a 400 that rarely says why, or ignores them and
    // answers about nothing; say it here instead.
    for (const auto& m : req.messages) {
      if (!m.images.empty()) {
        throw UsageError(where_ + " is not marked as taking images; if it does (llava, qwen2.5vl, gpt-4o-mini, "
                         "llama-4-scout), add vision=1 to its spec (URL#model=NAME&vision=1)");
      }
    }
  }
  const auto t0 = Clock::now();
  auto elapsed_ms = [&] { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); };
  std::string key;
  if (cache_ && LlmCache::cacheable(req)) {
    key = LlmCache::key(cfg_.model, req);
    if (auto hit = cache_->get(key)) {
      if (req.stream && on_token && !hit->text.empty()) on_token(hit->text);
      hit->ms = elapsed_ms();
      return *hit;
    }
  }
  acquire(req.cancel);
  struct Release {
    OpenAiChat* self;
    ~Release() { self->release(); }
  } release_on_exit{this};
  ChatResponse r;
  // Errors leave with the key scrubbed (a server may echo it), keeping their types.
  try {
    r = run(req, on_token);
  } catch (const HttpStatusError& e) {
    throw HttpStatusError(e.status(), scrub(e.what()), scrub(e.body()));
  } catch (const NetError& e) {
    throw NetError(e.kind(), scrub(e.what()));
  } catch (const UsageError& e) {
    throw UsageError(scrub(e.what()));
  } catch (const Error& e) {
    throw LlmError(scrub(e.what()));
  }
  prompt_tokens_ += r.usage.prompt;
  completion_tokens_ += r.usage.completion;
  total_tokens_ += r.usage.total;
  if (!key.empty()) cache_->put(key, r);
  r.ms = elapsed_ms();
  return r;
}

nlohmann::ordered_json OpenAiChat::build_body(const ChatRequest& req, const std::vector<Message>& msgs,
                                              JsonMode mode) const {
  using ojson = nlohmann::ordered_json;
  std::vector<Message> m = msgs;
  if (req.response_schema && mode != JsonMode::Schema) {
    // json_object needs "JSON" in the prompt (OpenAI refuses it otherwise); prompt-only needs it all.
    const std::string instr = "Answer with JSON matching this schema: " + req.response_schema->schema.dump() +
                              "\nReply with the JSON only, no other text.";
    if (!m.empty() && m.front().role == "system") m.front().content += "\n\n" + instr;
    else m.insert(m.begin(), Message::system(instr));
  }
  json jm = json::array();
  for (const auto& x : m) jm.push_back(message_to_json(x));
  ojson b = {{"messages", jm}};
  if (!cfg_.model.empty()) b["model"] = cfg_.model;
  if (req.temperature) b["temperature"] = *req.temperature;
  if (req.max_tokens) b["max_tokens"] = *req.max_tokens;
  if (req.seed) b["seed"] = *req.seed;
  if (!req.stop.empty()) b["stop"] = req.stop;
  if (!req.tools.empty()) {
    ojson tools = ojson::array();
    for (const auto& t : req.tools) {
      ojson f = {{"name", t.name}, {"parameters", t.parameters}};
      if (!t.description.empty()) f["description"] = t.description;
      tools.push_back({{"type", "function"}, {"function", f}});
    }
    b["tools"] = tools;
  }
  if (!req.tool_choice.empty()) {
    const std::string& tc = req.tool_choice;
    if (tc == "auto" || tc == "none" || tc == "required") b["tool_choice"] = tc;
    else b["tool_choice"] = {{"type", "function"}, {"function", {{"name", tc}}}};
  }
  if (req.response_schema) {
    if (mode == JsonMode::Schema) {
      b["response_format"] = ojson{{"type", "json_schema"},
                                   {"json_schema", {{"name", req.response_schema->name}, {"schema", req.response_schema->schema}}}};
    } else if (mode == JsonMode::Object) {
      // "schema" beside json_object is llama-cpp-python's way to constrain the grammar to the
      // schema; a server that refuses the extra field says response_format and we go to prompted.
      b["response_format"] = ojson{{"type", "json_object"}, {"schema", req.response_schema->schema}};
    }
  }
  if (req.stream) {
    b["stream"] = true;
    if (stream_options_.load()) b["stream_options"] = {{"include_usage", true}};
  }
  return b;
}

HttpRequest OpenAiChat::http_request(const nlohmann::ordered_json& body, const ChatRequest& req) const {
  HttpRequest hr{url_, body.dump(-1, ' ', false, json::error_handler_t::replace),
                 {"Content-Type: application/json", req.stream ? "Accept: text/event-stream" : "Accept: application/json"}};
  if (!cfg_.api_key.empty()) hr.headers.push_back("Authorization: Bearer " + cfg_.api_key);
  return hr;
}

HttpLimits OpenAiChat::http_limits(const ChatRequest& req) const {
  HttpLimits lim;
  lim.timeout_s = cfg_.timeout_s;
  lim.stall_s = std::min(cfg_.stall_s, cfg_.timeout_s);
  lim.cancel = req.cancel;
  lim.max_body = size_t(64) << 20;
  return lim;
}

RetryPolicy OpenAiChat::retry_policy(bool retry_500) const {
  RetryPolicy pol = policy_;
  pol.max_attempts = cfg_.max_retries + 1;
  if (!retry_500) {
    pol.retry_statuses.erase(std::remove(pol.retry_statuses.begin(), pol.retry_statuses.end(), 500L),
                             pol.retry_statuses.end());
  }
  return pol;
}

ChatResponse OpenAiChat::exchange(const nlohmann::ordered_json& body, const ChatRequest& req, const TokenCallback& on_token,
                                  bool& emitted, bool retry_500) {
  const HttpRequest hr = http_request(body, req);
  HttpLimits lim = http_limits(req);
  const RetryPolicy pol = retry_policy(retry_500);

  ++requests_;
  if (!req.stream) {
    HttpResponse resp = http_send_with_retry(hr, lim, pol, "chat model", [this](int, double, const std::string&) {
      ++requests_;  // called before each retry
    });
    return parse_completion(resp.body, req);
  }
  return exchange_stream(hr, std::move(lim), pol, req, on_token, emitted);
}

namespace {

// The answer of a stream that ended well: its text, finish reason, model, usage and tool calls.
ChatResponse streamed_response(StreamState& st, const ChatRequest& req) {
  ChatResponse r;
  r.text = std::move(st.text);
  r.finish_reason = st.finish_reason;
  r.model = st.model;
  r.usage = st.usage;
  for (auto& [idx, f] : st.calls) {
    ToolCall call;
    call.id = f.id;
    call.name = f.name;
    check_tool_name(call.name, req);
    call.arguments = parse_arguments(json(f.args), f.name);
    r.tool_calls.push_back(std::move(call));
  }
  return r;
}

}  // namespace

ChatResponse OpenAiChat::exchange_stream(const HttpRequest& hr, HttpLimits lim, const RetryPolicy& pol,
                                         const ChatRequest& req, const TokenCallback& on_token, bool& emitted) {
  StreamState st;
  auto handler = [&](const SseEvent& ev) { st.event(ev, on_token); };
  SseParser parser(handler);
  std::exception_ptr consumer_error;  // from on_token: carried past libcurl, rethrown below
  lim.on_data = [&](std::string_view piece) {
    try {
      parser.feed(piece);
    } catch (...) {
      consumer_error = std::current_exception();
      return false;
    }
    return st.error.empty();
  };
  RetryObserver observer = [&](int, double, const std::string& why) {
    ++requests_;
    if (st.emitted > 0) {
      emitted = true;
      throw LlmError(where_ + ": the stream broke after text was delivered (" + why + "); ask again");
    }
    st = StreamState{};
    parser = SseParser(handler);
  };
  HttpResponse resp;
  try {
    resp = http_send_with_retry(hr, lim, pol, "chat model", observer);
  } catch (const NetError& e) {
    emitted = st.emitted > 0;
    if (consumer_error) std::rethrow_exception(consumer_error);
    if (!st.error.empty()) throw BadAnswer{st.error};
    throw;
  }
  parser.finish();
  emitted = st.emitted > 0;
  if (!st.error.empty()) throw BadAnswer{st.error};
  if (parser.events() == 0) {
    // The server ignored "stream": a plain completion.
    ChatResponse r = parse_completion(resp.body, req);
    if (on_token && !r.text.empty()) on_token(r.text);
    emitted = !r.text.empty();
    return r;
  }
  if (!st.done && st.finish_reason.empty()) throw BadAnswer{"ended the stream before [DONE]"};
  if (!st.saw_choice) throw BadAnswer{"streamed an empty choice list"};
  return streamed_response(st, req);
}

ChatResponse OpenAiChat::run(const ChatRequest& req, const TokenCallback& on_token) {
  std::vector<Message> msgs = req.messages;
  int second_chances = 1;  // one more attempt after an unusable answer
  bool retry_500 = false;
  Usage spent;  // over every answer received, a repaired one included
  for (;;) {
    const auto mode = static_cast<JsonMode>(json_mode_.load());
    const nlohmann::ordered_json body = build_body(req, msgs, mode);
    // While response_format is sent, a 500 may be a refusal of it (llama-cpp-python): look at the
    // first one before retrying.
    const bool probing = req.response_schema && mode != JsonMode::Prompted && !retry_500;
    ChatResponse r;
    bool emitted = false;
    try {
      r = exchange(body, req, on_token, emitted, !probing);
    } catch (const HttpStatusError& e) {
      if (req.response_schema && mode != JsonMode::Prompted && mentions_response_format(e)) {
        int cur = static_cast<int>(mode);
        json_mode_.compare_exchange_strong(cur, cur + 1);  // remembered for later calls
        continue;
      }
      if (probing && e.status() == 500) {
        retry_500 = true;  // an ordinary server error: the usual retries
        continue;
      }
      if (req.stream && stream_options_.load() && mentions_stream_options(e)) {
        stream_options_ = false;
        continue;
      }
      throw;
    } catch (const BadAnswer& b) {
      if (second_chances-- > 0 && !emitted) continue;
      throw LlmError(where_ + " " + b.why + (emitted ? "" : " twice in a row") +
                     "; check that the server and model support this request, or try another model");
    }
    spent.prompt += r.usage.prompt;
    spent.completion += r.usage.completion;
    spent.total += r.usage.total;
    r.usage = spent;
    if (req.response_schema && !(r.text.empty() && !r.tool_calls.empty())) {
      std::string err;
      auto j = parse_json_lenient(r.text, &err);
      if (j) err = schema_problem(*j, req.response_schema->schema);
      if (req.response_schema->lenient && (!j || !err.empty())) {
        if (j) r.json = std::move(*j);  // usable as far as it goes; the caller checks
        return r;
      }
      if (!j || !err.empty()) {
        if (second_chances-- > 0) {
          msgs = req.messages;
          msgs.push_back(Message::assistant(r.text));
          msgs.push_back(Message::user("That answer is not valid: " + excerpt(err, 200) +
                                       ". Answer again with only the JSON, matching the schema."));
          continue;
        }
        throw LlmError(where_ + " did not answer valid JSON for schema \"" + req.response_schema->name +
                       "\" (" + excerpt(err, 160) + "; answer: " + excerpt(r.text) +
                       "); try a larger model");
      }
      r.json = std::move(*j);
    }
    return r;
  }
}

std::unique_ptr<ChatModel> make_openai_chat(const LlmConfig& cfg, const RetryPolicy& policy,
                                            std::shared_ptr<LlmCache> cache) {
  return std::make_unique<OpenAiChat>(cfg, policy, std::move(cache));
}

}  // namespace mmkg
