// OpenAI-compatible (/v1/models, /v1/chat/completions) and Ollama-compatible (/api/tags,
// /api/version, /api/chat) endpoints: existing chat clients use mmkg as a model named "mmkg" that
// answers the last user message from the documents. The answer text ends with its sources, and
// the citations also come as a structured "citations" field.
#include <chrono>
#include <ctime>

#include "app/cite.h"
#include "app/json.h"
#include "app/request_options.h"
#include "core/clock.h"
#include "server/client_watch.h"
#include "server/context.h"
#include "server/workspaces.h"

namespace mmkg::server {

using nlohmann::json;

namespace {

constexpr const char* kModel = "mmkg";

long long unix_now() { return static_cast<long long>(std::time(nullptr)); }

std::string iso_now() { return utc_now_iso(true); }

std::string completion_id() {
  static std::atomic<unsigned long long> n{0};
  return "chatcmpl-mmkg-" + std::to_string(unix_now()) + "-" + std::to_string(++n);
}

// The answer in pieces for a streamed reply: sentence by sentence (the model is the whole team,
// so the text is complete before the first piece is sent; pieces keep clients' rendering smooth).
std::vector<std::string> pieces(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (size_t i = 0; i < text.size(); ++i) {
    cur += text[i];
    const bool end = (text[i] == '.' || text[i] == '\n' || text[i] == '?' || text[i] == '!') &&
                     (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\n');
    if (end && cur.size() >= 20) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// Rough token counts for "usage" (words), as the answer is not a model's output.
int words(const std::string& s) {
  int n = 0;
  bool in = false;
  for (unsigned char c : s) {
    const bool w = !std::isspace(c);
    n += w && !in;
    in = w;
  }
  return n;
}

// An answer for a chat endpoint: its text with the sources (rendered from the answer itself)
// and the JSON fields the endpoints add beside it.
struct ChatAnswer {
  std::string text;
  json citations, standalone_question;
};

// The answer stops when its client leaves (`w`, held by the handler or the stream's provider).
ChatAnswer answer(Context& c, std::shared_ptr<Session>& s, const ChatInput& in, const ClientWatch::Watched& w) {
  AskRequest r;
  apply_options(c.opt.ask_defaults, r, kDoorServe);
  r.options.cancel = w.gone.get();
  r.question = in.question;
  r.options.history = in.history;
  const AskResult res = run_ask(c, *s, r);
  json j = ask_json(in.question, res);
  return {answer_with_sources(res.answer, res.citations), std::move(j["citations"]), std::move(j["standalone_question"])};
}

void models(Context&, const httplib::Request&, httplib::Response& res) {
  send_json(res, {{"object", "list"},
                  {"data", json::array({{{"id", kModel}, {"object", "model"}, {"created", unix_now()}, {"owned_by", "mmkg"}}})}});
}

void chat_completions(Context& c, const httplib::Request& req, httplib::Response& res) {
  json b = body_json(req);
  if (!b.contains("messages") || !b["messages"].is_array())
    throw HttpError(400, "bad_request", "\"messages\" must be an array of chat messages");
  const ChatInput in = chat_input(b["messages"]);
  const std::string& question = in.question;
  const bool stream = b.value("stream", false);
  auto s = c.pool.acquire();
  const ClientWatch::Watched w = ClientWatch::watch_client(req);
  if (!stream) {
    ChatAnswer a = answer(c, s, in, w);
    const std::string& text = a.text;
    const int pt = words(question), ct = words(text);
    send_json(res, {{"id", completion_id()},
                    {"object", "chat.completion"},
                    {"created", unix_now()},
                    {"model", kModel},
                    {"choices", json::array({{{"index", 0},
                                              {"message", {{"role", "assistant"}, {"content", text}}},
                                              {"finish_reason", "stop"}}})},
                    {"usage", {{"prompt_tokens", pt}, {"completion_tokens", ct}, {"total_tokens", pt + ct}}},
                    {"citations", a.citations},
                    {"standalone_question", a.standalone_question}});
    return;
  }
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider("text/event-stream", [&c, s, in, w](size_t, httplib::DataSink& sink) mutable {
    const std::string id = completion_id();
    const long long created = unix_now();
    auto chunk = [&](const json& delta, const json& finish, const json* cites) {
      json j = {{"id", id},
                {"object", "chat.completion.chunk"},
                {"created", created},
                {"model", kModel},
                {"choices", json::array({{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}})}};
      if (cites) j["citations"] = *cites;
      const std::string line = "data: " + j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n\n";
      return sink.write(line.data(), line.size());
    };
    if (!chunk({{"role", "assistant"}, {"content", ""}}, nullptr, nullptr)) return false;
    ChatAnswer a;
    try {
      a = answer(c, s, in, w);
    } catch (const std::exception& e) {
      const std::string line =
          "data: " + json({{"error", {{"code", "internal"}, {"message", e.what()}}}}).dump() + "\n\ndata: [DONE]\n\n";
      sink.write(line.data(), line.size());
      sink.done();
      return true;
    }
    for (const auto& p : pieces(a.text))
      if (!chunk({{"content", p}}, nullptr, nullptr)) return false;
    chunk(json::object(), "stop", &a.citations);
    sink.write("data: [DONE]\n\n", 14);
    sink.done();
    return true;
  });
}

json tag() {
  return {{"name", "mmkg:latest"},
          {"model", "mmkg:latest"},
          {"modified_at", iso_now()},
          {"size", 0},
          {"digest", "0000000000000000000000000000000000000000000000000000000000000000"},
          {"details", {{"format", "mmkg"}, {"family", "mmkg"}, {"parameter_size", ""}, {"quantization_level", ""}}}};
}

void ollama_chat(Context& c, const httplib::Request& req, httplib::Response& res) {
  json b = body_json(req);
  if (!b.contains("messages") || !b["messages"].is_array())
    throw HttpError(400, "bad_request", "\"messages\" must be an array of chat messages");
  const ChatInput in = chat_input(b["messages"]);
  const std::string model = b.value("model", std::string("mmkg:latest"));
  const bool stream = b.value("stream", true);  // Ollama streams unless told not to
  auto s = c.pool.acquire();
  const ClientWatch::Watched w = ClientWatch::watch_client(req);
  auto final_line = [model](const ChatAnswer& a, const std::string& content) {
    return json{{"model", model},
                {"created_at", iso_now()},
                {"message", {{"role", "assistant"}, {"content", content}}},
                {"done", true},
                {"done_reason", "stop"},
                {"citations", a.citations},
                {"standalone_question", a.standalone_question}};
  };
  if (!stream) {
    ChatAnswer a = answer(c, s, in, w);
    send_json(res, final_line(a, a.text));
    return;
  }
  res.set_chunked_content_provider("application/x-ndjson", [&c, s, in, w, model, final_line](size_t, httplib::DataSink& sink) mutable {
    ChatAnswer a;
    try {
      a = answer(c, s, in, w);
    } catch (const std::exception& e) {
      const std::string line = json({{"error", e.what()}}).dump() + "\n";
      sink.write(line.data(), line.size());
      sink.done();
      return true;
    }
    for (const auto& p : pieces(a.text)) {
      const std::string line = json({{"model", model},
                                     {"created_at", iso_now()},
                                     {"message", {{"role", "assistant"}, {"content", p}}},
                                     {"done", false}})
                                   .dump(-1, ' ', false, json::error_handler_t::replace) +
                               "\n";
      if (!sink.write(line.data(), line.size())) return false;
    }
    const std::string last = final_line(a, "").dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    sink.write(last.data(), last.size());
    sink.done();
    return true;
  });
}

}  // namespace

namespace {

// A message's text: its content as a string, or the "text" parts of a list of content parts.
std::string message_text(const json& m) {
  if (!m.is_object())
    throw HttpError(400, "bad_request", "every chat message must be an object with \"role\" and \"content\"");
  const json& content = m.contains("content") ? m["content"] : json();
  std::string q;
  if (content.is_string()) q = content.get<std::string>();
  if (content.is_array())
    for (const auto& part : content)
      if (part.is_object() && part.value("type", "") == "text") q += (q.empty() ? "" : " ") + part.value("text", "");
  return q;
}

}  // namespace

ChatInput chat_input(const json& messages) {
  ChatInput in;
  size_t last = messages.size();
  for (size_t i = messages.size(); i-- > 0;) {
    if (messages[i].is_object() && messages[i].value("role", "") == "user" && !message_text(messages[i]).empty()) {
      last = i;
      break;
    }
  }
  if (last == messages.size())
    throw HttpError(400, "bad_request", "no user message with text: the last user message is the question");
  in.question = message_text(messages[last]);
  for (size_t i = 0; i < last; ++i) {
    const std::string role = messages[i].is_object() ? messages[i].value("role", "") : "";
    std::string text = message_text(messages[i]);
    if ((role == "user" || role == "assistant") && !text.empty()) in.history.push_back({role, std::move(text)});
  }
  return in;
}

void add_compat_routes(Http& http, Workspaces& ws) {
  using R = const httplib::Request&;
  using W = httplib::Response&;
  RouteOptions server;
  server.any_workspace = true;
  const std::string version = ws.get("default").version;
  http.get("/v1/models", "/v1/models", in_workspace(ws, models));
  http.post("/v1/chat/completions", "/v1/chat/completions", in_workspace(ws, chat_completions));
  http.get("/api/tags", "/api/tags", [](R, W w) { send_json(w, {{"models", json::array({tag()})}}); }, server);
  http.get("/api/version", "/api/version", [version](R, W w) { send_json(w, {{"version", version}}); }, server);
  http.post("/api/chat", "/api/chat", in_workspace(ws, ollama_chat));
}

}  // namespace mmkg::server
