// The JSON API: health, metrics, the OpenAPI document, documents and ingest jobs, search, ask
// (JSON or Server-Sent Events), entities and figures. Each handler parses the request, calls the
// Session and renders its report with app/json.h, the same JSON as the CLI's --json.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/json.h"
#include "app/request_options.h"
#include "core/error.h"
#include "server/client_watch.h"
#include "server/context.h"
#include "server/uploads.h"
#include "server/workspaces.h"

namespace mmkg::server {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::vector<ChatTurn> chat_history(const json& h) {
  auto bad = [] {
    return HttpError(400, "bad_request", "\"history\" must be an array of {\"role\": \"user\" or \"assistant\", \"content\": TEXT}");
  };
  if (!h.is_array() || h.size() > 200) throw bad();
  std::vector<ChatTurn> out;
  for (const auto& m : h) {
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string() || !m.contains("content") || !m["content"].is_string())
      throw bad();
    const std::string role = m["role"].get<std::string>();
    if (role != "user" && role != "assistant") throw bad();
    out.push_back({role, m["content"].get<std::string>()});
  }
  return out;
}

void health(Context& c, const httplib::Request&, httplib::Response& res) {
  const StoreStats st = store_counts(c);
  send_json(res, {{"status", "ok"},
                  {"version", c.version},
                  {"documents", st.documents},
                  {"chunks", st.chunks},
                  {"ingest", {{"queued", c.jobs.queued()}, {"running", c.jobs.running()}}}});
}

void list_documents(Context& c, const httplib::Request&, httplib::Response& res) {
  StatsReport r;
  {
    std::lock_guard<std::mutex> lk(c.meta_mu);
    r = c.meta.store_stats(true);
  }
  send_json(res, {{"documents", stats_json(r)["docs"]}});
}

void stats(Context& c, const httplib::Request&, httplib::Response& res) {
  StatsReport r;
  {
    std::lock_guard<std::mutex> lk(c.meta_mu);
    r = c.meta.stats();
  }
  send_json(res, stats_json(r));
}

// POST /api/documents: multipart parts named "file"; each written to uploads/ and queued as one job.
void upload(Context& c, const httplib::Request& req, httplib::Response& res) {
  if (!req.is_multipart_form_data())
    throw HttpError(415, "unsupported_media_type", "upload files as multipart/form-data, one part named \"file\" per file");
  auto range = req.files.equal_range("file");
  if (range.first == range.second) throw HttpError(400, "bad_request", "no part named \"file\" in the upload");
  // Check every file before writing any, so a bad one refuses the whole upload cleanly.
  std::vector<std::pair<std::string, const std::string*>> files;
  for (auto it = range.first; it != range.second; ++it) {
    const std::string safe = safe_file_name(it->second.filename);
    if (safe.empty())
      throw HttpError(400, "bad_request", "a file part has no usable file name (\"" + safe_file_name(it->second.name) + "\")");
    if (it->second.content.empty()) throw HttpError(400, "bad_request", safe + ": the file is empty");
    files.push_back({stored_name(safe, it->second.content), &it->second.content});
  }
  std::vector<std::string> names, paths;
  for (const auto& [name, bytes] : files) {
    paths.push_back(write_upload(c.uploads_dir, name, *bytes));
    names.push_back(name);
  }
  const std::string id = c.jobs.submit(names, paths);
  Job j;
  c.jobs.get(id, j);
  res.set_header("Location", "/api/jobs/" + id);
  send_json(res, {{"job", job_json(j)}}, 202);
}

void delete_document(Context& c, const httplib::Request& req, httplib::Response& res) {
  const std::string key = req.matches[1];
  RemoveReport r = c.jobs.remove({key});
  if (r.deleted.empty()) {
    const std::string msg = r.failed.empty() ? "no document matches " + key : r.failed[0].message;
    const bool ambiguous = !r.failed.empty() && r.failed[0].error == "ambiguous";
    throw HttpError(ambiguous ? 409 : 404, ambiguous ? "conflict" : "not_found", msg);
  }
  // An uploaded file goes with its document.
  for (const auto& d : r.deleted) {
    const fs::path p(d.path);
    if (p.parent_path() == fs::path(c.uploads_dir)) {
      std::error_code ec;
      fs::remove(p, ec);
    }
  }
  send_json(res, remove_json(r));
}

void list_jobs(Context& c, const httplib::Request&, httplib::Response& res) {
  json a = json::array();
  for (const auto& j : c.jobs.list()) a.push_back(job_json(j));
  send_json(res, {{"jobs", a}});
}

Job find_job(Context& c, const std::string& id) {
  Job j;
  if (!c.jobs.get(id, j)) throw HttpError(404, "not_found", "no job " + id + "; GET /api/jobs lists them");
  return j;
}

// A job of this server, else one another server of a shared store recorded there.
json job_anywhere(Context& c, const std::string& id) {
  Job j;
  if (c.jobs.get(id, j)) return job_json(j);
  std::optional<std::string> recorded;
  {
    std::lock_guard<std::mutex> lk(c.meta_mu);
    recorded = c.meta.recorded_job(id);
  }
  if (!recorded) throw HttpError(404, "not_found", "no job " + id + "; GET /api/jobs lists them");
  return json::parse(*recorded);
}

void job_events(Context& c, const httplib::Request& req, httplib::Response& res) {
  Job first = find_job(c, req.matches[1]);
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider("text/event-stream", [&c, first](size_t, httplib::DataSink& sink) {
    Job j = first;
    uint64_t seen = 0;
    bool sent_any = false;
    for (;;) {
      const bool ended = j.ended();
      if (ended) {
        const std::string ev = sse_event("done", job_json(j));
        sink.write(ev.data(), ev.size());
        break;
      }
      if (!sent_any || j.version > seen) {
        const std::string ev = sse_event("progress", job_json(j));
        if (!sink.write(ev.data(), ev.size())) return false;
        seen = j.version;
        sent_any = true;
      }
      if (!c.jobs.wait_change(j.id, seen, 15, j)) break;
      if (j.version == seen && !j.ended()) {
        // No change in 15 s: a comment keeps proxies from closing the stream.
        if (!sink.write(": waiting\n\n", 11)) return false;
      }
    }
    sink.done();
    return true;
  });
}

void search(Context& c, const httplib::Request& req, httplib::Response& res) {
  SearchRequest r = search_request(req);
  auto s = c.pool.acquire();
  send_json(res, search_json(s->search(r)));
}

// An ask stops when its client leaves (ClientWatch): the pool's reader is free again within a step.
void ask(Context& c, const httplib::Request& req, httplib::Response& res) {
  json b = body_json(req);
  AskRequest r = ask_request(b, c.opt.ask_defaults);
  const bool stream = b.value("stream", false) || wants_sse(req);
  auto s = c.pool.acquire();  // 429 here, before any byte is sent
  const ClientWatch::Watched w = ClientWatch::watch_client(req);
  r.options.cancel = w.gone.get();
  if (!stream) {
    send_json(res, ask_json(r.question, run_ask(c, *s, r)));
    return;
  }
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider("text/event-stream", [&c, s, r, w](size_t, httplib::DataSink& sink) mutable {
    r.options.on_step = [&](const StepRecord& step) {
      if (w.gone->load()) return;
      const std::string ev = sse_event("step", ask_step_json(step));
      if (!sink.write(ev.data(), ev.size())) w.gone->store(true);
    };
    std::string last;
    try {
      last = sse_event("answer", ask_json(r.question, run_ask(c, *s, r)));
    } catch (const Cancelled&) {
      last.clear();  // the client left: nothing to send
    } catch (const std::exception& e) {
      last = sse_event("error", {{"error", {{"code", "internal"}, {"message", e.what()}}}});
    }
    if (!w.gone->load() && !last.empty()) sink.write(last.data(), last.size());
    sink.done();
    return true;
  });
}

void entity(Context& c, const httplib::Request& req, httplib::Response& res) {
  const std::string name = req.matches[1];
  const bool evidence = param(req, "evidence", "false") == "true";
  const int limit = int_param(req, "limit", 20, 1, 500);
  auto s = c.pool.acquire();
  send_json(res, entity_json(s->graph_entity(name, evidence, limit), evidence));
}

void graph_overview(Context& c, const httplib::Request& req, httplib::Response& res) {
  const int page = int_param(req, "page", 1, 1, 1000000);
  const int per_page = int_param(req, "per_page", 20, 1, 200);
  auto s = c.pool.acquire();
  send_json(res, graph_overview_json(s->graph_overview(page, per_page)));
}

void figure(Context& c, const httplib::Request& req, httplib::Response& res, bool image) {
  const std::string id = req.matches[1];
  FigureReport f;
  {
    std::lock_guard<std::mutex> lk(c.meta_mu);
    f = c.meta.figure(id);
  }
  if (!image) {
    json j = figure_report_json(f);
    j.erase("written");
    send_json(res, j);
    return;
  }
  if (f.image_path.empty()) throw HttpError(404, "not_found", "figure " + id + " has no image (a table: its rows are in its JSON)");
  std::ifstream in(f.image_path, std::ios::binary);
  if (!in) throw HttpError(500, "internal", "the figure's image is missing from the store; ingest its document again");
  std::ostringstream ss;
  ss << in.rdbuf();
  res.set_header("Cache-Control", "max-age=3600");
  res.set_content(ss.str(), "image/png");
}

}  // namespace

StoreStats store_counts(Context& c) {
  std::lock_guard<std::mutex> lk(c.meta_mu);
  return c.meta.store_stats(false).store;
}

SearchRequest search_request(const httplib::Request& req) {
  SearchRequest r;
  json given = json::object();
  if (req.method == "POST") {
    json b = body_json(req);
    if (!b.is_object()) throw HttpError(400, "bad_request", "the body must be a JSON object: {\"query\": TEXT, ...}");
    r.query = b.value("query", "");
    given = options_in(std::move(b), {"query"});
  } else {
    r.query = param(req, "q");
    for (const OptionSpec& o : door_options(search_options(), kDoorHttp))
      if (req.has_param(o.name)) given[o.name] = o.parse_text(req.get_param_value(o.name), kDoorHttp);
  }
  if (r.query.empty()) throw HttpError(400, "bad_request", "the query is empty: give ?q=TEXT or {\"query\": TEXT}");
  apply_options(given, r, kDoorHttp);
  return r;
}

AskRequest ask_request(const json& b, const json& defaults) {
  if (!b.is_object()) throw HttpError(400, "bad_request", "the body must be a JSON object: {\"question\": TEXT, ...}");
  AskRequest r;
  r.question = b.value("question", "");
  if (r.question.empty()) throw HttpError(400, "bad_request", "the question is empty: give {\"question\": TEXT}");
  // The conversation before the question: [{"role": "user"|"assistant", "content": TEXT}, ...],
  // oldest first; a follow-up is made standalone from it (the "rewrite" step of the trace).
  if (b.contains("history")) r.options.history = chat_history(b["history"]);
  apply_options(defaults, r, kDoorServe);
  apply_options(options_in(b, {"question", "history", "stream"}), r, kDoorHttp);
  return r;
}

AskResult run_ask(Context& c, Session& s, const AskRequest& r) {
  c.metrics.ask();
  const long long before = s.model_usage().requests;
  try {
    AskResult a = s.ask(r);
    c.metrics.model_calls(s.model_usage().requests - before);
    return a;
  } catch (const Cancelled&) {
    c.metrics.model_calls(s.model_usage().requests - before);
    c.metrics.cancelled();
    throw;
  }
}

void add_api_routes(Http& http, Workspaces& ws) {
  using R = const httplib::Request&;
  using W = httplib::Response&;
  RouteOptions open;
  open.open = true;
  RouteOptions write;
  write.write = true;
  RouteOptions server;
  server.any_workspace = true;
  Metrics& metrics = ws.get("default").metrics;
  http.get("/health", "/health", in_workspace(ws, health), open);
  http.get("/openapi.json", "/openapi.json", [](R, W w) { w.set_content(openapi_document(), "application/json"); }, open);
  http.get("/metrics", "/metrics", [&metrics](R, W w) { w.set_content(metrics.render(), "text/plain; version=0.0.4"); }, server);
  http.get("/api/documents", "/api/documents", in_workspace(ws, list_documents));
  http.post("/api/documents", "/api/documents", in_workspace(ws, upload), write);
  http.del(R"(/api/documents/([^/]+))", "/api/documents/{key}", in_workspace(ws, delete_document), write);
  http.get("/api/stats", "/api/stats", in_workspace(ws, stats));
  http.get("/api/jobs", "/api/jobs", in_workspace(ws, list_jobs));
  http.get(R"(/api/jobs/([^/]+))", "/api/jobs/{id}", in_workspace(ws, [](Context& c, R q, W w) { send_json(w, job_anywhere(c, q.matches[1])); }));
  http.get(R"(/api/jobs/([^/]+)/events)", "/api/jobs/{id}/events", in_workspace(ws, job_events));
  http.get("/api/search", "/api/search", in_workspace(ws, search));
  http.post("/api/search", "/api/search", in_workspace(ws, search));
  http.post("/api/ask", "/api/ask", in_workspace(ws, ask));
  http.get(R"(/api/entities/([^/]+))", "/api/entities/{name}", in_workspace(ws, entity));
  http.get("/api/graph", "/api/graph", in_workspace(ws, graph_overview));
  http.get(R"(/api/figures/([^/]+))", "/api/figures/{id}", in_workspace(ws, [](Context& c, R q, W w) { figure(c, q, w, false); }));
  http.get(R"(/api/figures/([^/]+)/image)", "/api/figures/{id}/image", in_workspace(ws, [](Context& c, R q, W w) { figure(c, q, w, true); }));
  add_workspace_routes(http, ws);
}

}  // namespace mmkg::server
