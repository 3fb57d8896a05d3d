#include "server/workspaces.h"

#include <filesystem>
#include <set>

#include "app/keys.h"
#include "core/error.h"

namespace mmkg::server {

namespace fs = std::filesystem;

namespace {

// A store as an error may show it: a folder as given; a URL, which may hold a password, not at all
// (server/ sees no URL helper: net/ is not among its layers).
std::string shown(const std::string& store) {
  return store.find("://") == std::string::npos ? store : "a shared store (URL not shown: it may hold credentials)";
}

}  // namespace

WorkspaceSpec WorkspaceSpec::parse(const std::string& arg) {
  const size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
    throw UsageError("--workspace " + shown(arg) + ": give NAME=STORE (a folder, or neo4j://USER:PASS@HOST:PORT/DB)");
  WorkspaceSpec s{arg.substr(0, eq), arg.substr(eq + 1)};
  if (!valid_workspace_name(s.name))
    throw UsageError("--workspace " + s.name + ": a workspace name is 1 to 64 of A-Z a-z 0-9 _ -");
  if (s.name == "default")
    throw UsageError("--workspace default: \"default\" is the --store store's workspace; give the other one another name");
  return s;
}

Config workspace_config(const Config& base, const std::string& store) {
  Config c = base;
  c.store = store;
  if (base.graph.kind != GraphBackend::Kind::None) {
    c.graph = GraphBackend{};
    c.share_graph_with_store(true);
  }
  c.validate();
  return c;
}

/// One workspace. Members are destroyed in reverse order: the MCP sessions and the context
/// before the sessions they use.
struct Workspaces::Workspace {
  std::unique_ptr<Session> meta;
  std::unique_ptr<JobQueue> jobs;
  std::unique_ptr<SessionPool> pool;
  std::unique_ptr<Context> ctx;
  std::unique_ptr<McpEndpoint> mcp;
};

Workspaces::Workspaces(const ServeOptions& opt, Metrics& metrics) : opt_(opt), metrics_(metrics) {}

Workspaces::~Workspaces() { stop(); }

namespace {

void add_gauges(Metrics& metrics, const std::string& name, JobQueue& jobs, SessionPool& pool) {
  const std::string ws = "workspace=\"" + name + "\",";
  const char* jobs_help = "Ingest jobs waiting or running.";
  const char* done_help = "Ingest jobs finished.";
  const char* sessions_help = "Reader sessions leased or waited for.";
  metrics.add_reading("mmkg_ingest_jobs", "gauge", jobs_help, ws + "state=\"queued\"", [&jobs] { return jobs.queued(); });
  metrics.add_reading("mmkg_ingest_jobs", "gauge", jobs_help, ws + "state=\"running\"", [&jobs] { return jobs.running(); });
  metrics.add_reading("mmkg_ingest_jobs_total", "counter", done_help, ws + "state=\"done\"",
                      [&jobs] { return static_cast<double>(jobs.finished(true)); });
  metrics.add_reading("mmkg_ingest_jobs_total", "counter", done_help, ws + "state=\"failed\"",
                      [&jobs] { return static_cast<double>(jobs.finished(false)); });
  metrics.add_reading("mmkg_sessions", "gauge", sessions_help, ws + "state=\"busy\"", [&pool] { return pool.busy(); });
  metrics.add_reading("mmkg_sessions", "gauge", sessions_help, ws + "state=\"waiting\"", [&pool] { return pool.waiting(); });
}

}  // namespace

void Workspaces::open(const std::string& name, const Config& cfg) {
  std::lock_guard<std::mutex> opening(open_mu_);
  open_locked(name, cfg);
}

void Workspaces::open_locked(const std::string& name, const Config& cfg_in) {
  Config cfg = cfg_in;
  {
    std::shared_lock<std::shared_mutex> lk(mu_);
    if (spaces_.count(name)) throw UsageError("the workspace " + name + " is given twice");
    // One local model server for the whole process: the first workspace starts it, the rest reuse it.
    if (!spaces_.empty()) cfg.llm = spaces_.begin()->second->ctx->cfg.llm;
  }
  auto w = std::make_unique<Workspace>();
  w->meta = Session::open(cfg, true);
  w->meta->open_store();
  cfg.llm = w->meta->shared_llm_spec();
  const std::string dir = fs::absolute(w->meta->local_dir()).lexically_normal().string();
  {
    std::shared_lock<std::shared_mutex> lk(mu_);
    for (const auto& [other, o] : spaces_)
      if (o->ctx->uploads_dir == dir + "/uploads")
        throw UsageError("the workspaces " + other + " and " + name + " name the same store (" + shown(cfg.store) +
                         "); give each workspace its own");
  }
  w->jobs = std::make_unique<JobQueue>(cfg, nullptr);
  JobQueue* jobs = w->jobs.get();
  w->pool = std::make_unique<SessionPool>(cfg, opt_.workers, opt_.max_queue, 60, [jobs] { return jobs->running() > 0; });
  w->ctx.reset(new Context{cfg, opt_, *w->pool, *w->jobs, metrics_, dir + "/uploads", MMKG_VERSION, *w->meta, {}, name});
  w->mcp = std::make_unique<McpEndpoint>(*w->ctx);
  add_gauges(metrics_, name, *w->jobs, *w->pool);
  std::unique_lock<std::shared_mutex> lk(mu_);
  spaces_[name] = std::move(w);
}

void Workspaces::set_root(const Config& base, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir))
    throw UsageError("--workspaces-dir " + dir + " is not a folder and cannot be made one" +
                     (ec ? " (" + ec.message() + ")" : std::string()));
  root_base_ = std::make_unique<Config>(base);
  root_ = fs::absolute(dir).lexically_normal().string();
}

Workspaces::Workspace* Workspaces::discover(const std::string& name) {
  if (root_.empty() || name == "default" || !valid_workspace_name(name)) return nullptr;
  const fs::path dir = fs::path(root_) / name;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return nullptr;
  std::lock_guard<std::mutex> opening(open_mu_);
  {
    std::shared_lock<std::shared_mutex> lk(mu_);  // another request may have opened it meanwhile
    if (auto it = spaces_.find(name); it != spaces_.end()) return it->second.get();
  }
  open_locked(name, workspace_config(*root_base_, dir.string()));
  std::shared_lock<std::shared_mutex> lk(mu_);
  return spaces_.at(name).get();
}

Workspaces::Workspace& Workspaces::find(const std::string& name) {
  {
    std::shared_lock<std::shared_mutex> lk(mu_);
    auto it = spaces_.find(name);
    if (it != spaces_.end()) return *it->second;
  }
  if (Workspace* w = discover(name)) return *w;
  throw HttpError(404, "not_found", "this server has no workspace '" + name + "'; GET /api/workspaces lists them");
}

Context& Workspaces::get(const std::string& name) { return *find(name).ctx; }
McpEndpoint& Workspaces::mcp(const std::string& name) { return *find(name).mcp; }
Context& Workspaces::of(const httplib::Request& req) { return get(request_workspace(req)); }
McpEndpoint& Workspaces::mcp_of(const httplib::Request& req) { return mcp(request_workspace(req)); }

std::vector<std::string> Workspaces::names() const {
  std::set<std::string> rest;
  bool has_default = false;
  {
    std::shared_lock<std::shared_mutex> lk(mu_);
    for (const auto& [name, w] : spaces_) {
      if (name == "default") has_default = true;
      else rest.insert(name);
    }
  }
  if (!root_.empty()) {
    std::error_code ec;
    for (fs::directory_iterator it(root_, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string n = it->path().filename().string();
      if (n != "default" && valid_workspace_name(n) && it->is_directory(ec)) rest.insert(n);
    }
  }
  std::vector<std::string> out;
  if (has_default) out.push_back("default");
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

void Workspaces::stop() {
  std::shared_lock<std::shared_mutex> lk(mu_);
  for (auto& [name, w] : spaces_) w->jobs->stop();
}

Handler in_workspace(Workspaces& ws, WorkspaceHandler h) {
  return [&ws, h = std::move(h)](const httplib::Request& req, httplib::Response& res) { h(ws.of(req), req, res); };
}

void add_workspace_routes(Http& http, Workspaces& ws) {
  RouteOptions server;
  server.any_workspace = true;
  http.get("/api/workspaces", "/api/workspaces", [&http, &ws](const httplib::Request& req, httplib::Response& res) {
    nlohmann::json list = nlohmann::json::array();
    for (const std::string& name : ws.names()) {
      if (!http.policy().may_read(req, name)) continue;
      const StoreStats st = store_counts(ws.get(name));
      list.push_back({{"name", name}, {"documents", st.documents}, {"chunks", st.chunks}});
    }
    send_json(res, {{"workspaces", list}});
  }, server);
}

}  // namespace mmkg::server
