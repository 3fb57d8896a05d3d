// /mcp: the MCP server (mcp.h) over Streamable HTTP. A client POSTs one JSON-RPC message (or a
// batch) and gets the response as application/json, or 202 with no body for notifications. The
// initialize response carries an Mcp-Session-Id that later requests send back; DELETE ends the
// session, and a request naming an ended (or unknown) one gets 404, so its client initializes
// again. A request without a session id is answered too, as by a client that never initialized
// (stateless use, curl). GET answers 405: this server sends no messages of its own. /mcp is a
// read route (the key with --auth all): its tools only read.
#include "core/secret.h"
#include "server/client_watch.h"
#include "server/context.h"
#include "server/workspaces.h"

namespace mmkg::server {

using nlohmann::json;

namespace {

constexpr size_t kMaxSessions = 1000;  // beyond it, the one idle longest is ended

/// A JSON-RPC error as the whole HTTP answer (the transport's own errors carry no request id).
void send_rpc_error(httplib::Response& res, int status, int code, const std::string& message) {
  res.status = status;
  res.set_content(mcp::McpServer::error(nullptr, code, message).dump(), "application/json");
}

bool is_initialize(const json& msg) { return msg.is_object() && msg.value("method", json()) == "initialize"; }

}  // namespace

McpEndpoint::McpEndpoint(Context& c)
    : protocol_([&c](mcp::Work work, const std::function<void(Session&)>& fn) { run(c, work, fn); }, c.version,
                c.opt.ask_defaults) {}

void McpEndpoint::run(Context& c, mcp::Work work, const std::function<void(Session&)>& fn) {
  if (work == mcp::Work::Light) {
    std::lock_guard<std::mutex> lk(c.meta_mu);
    fn(c.meta);
    return;
  }
  auto s = c.pool.acquire();
  if (work == mcp::Work::Query) {
    fn(*s);
    return;
  }
  c.metrics.ask();
  const long long before = s->model_usage().requests;
  fn(*s);
  c.metrics.model_calls(s->model_usage().requests - before);
}

void McpEndpoint::post(const httplib::Request& req, httplib::Response& res) {
  const std::string version = req.get_header_value("MCP-Protocol-Version");
  const auto& known = mcp::protocol_versions();
  if (!version.empty() && std::find(known.begin(), known.end(), version) == known.end())
    return send_rpc_error(res, 400, mcp::kInvalidRequest,
                          "MCP-Protocol-Version " + version + " is not supported; this server speaks " + known.front() +
                              " to " + known.back());
  const json msg = json::parse(req.body, nullptr, false);
  if (msg.is_discarded()) return send_rpc_error(res, 400, mcp::kParseError, "the body is not JSON: POST one JSON-RPC 2.0 message");
  const std::string sid = req.get_header_value("Mcp-Session-Id");
  mcp::Connection conn;
  if (!sid.empty() && !is_initialize(msg) && !find(sid, conn))
    return send_rpc_error(res, 404, mcp::kInvalidRequest, "session " + sid + " is not known (ended, or the server restarted): initialize again");
  conn.key = sid;
  // A client that leaves stops its requests, as notifications/cancelled would.
  const ClientWatch::Watched watched = ClientWatch::watch_client(req);
  const json out = protocol_.handle(msg, conn, watched.gone);
  if (is_initialize(msg) && out.contains("result")) {
    const std::string id = random_hex(16);  // 128 bits
    conn.key = id;
    remember(id, conn);
    res.set_header("Mcp-Session-Id", id);
  } else if (!sid.empty()) {
    remember(sid, conn);  // notifications/initialized
  }
  if (out.is_null()) {
    res.status = 202;
    return;
  }
  send_json(res, out);
}

void McpEndpoint::end(const httplib::Request& req, httplib::Response& res) {
  const std::string sid = req.get_header_value("Mcp-Session-Id");
  if (sid.empty()) throw HttpError(400, "bad_request", "DELETE /mcp ends a session: send its Mcp-Session-Id header");
  std::lock_guard<std::mutex> lk(mu_);
  if (sessions_.erase(sid) == 0) throw HttpError(404, "not_found", "session " + sid + " is not known (already ended?)");
  res.status = 204;
}

bool McpEndpoint::find(const std::string& id, mcp::Connection& conn) {
  std::lock_guard<std::mutex> lk(mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return false;
  conn = it->second.conn;
  it->second.used = ++clock_;
  return true;
}

void McpEndpoint::remember(const std::string& id, const mcp::Connection& conn) {
  std::lock_guard<std::mutex> lk(mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end() && sessions_.size() >= kMaxSessions) {
    auto oldest = std::min_element(sessions_.begin(), sessions_.end(),
                                   [](const auto& a, const auto& b) { return a.second.used < b.second.used; });
    sessions_.erase(oldest);
  }
  sessions_[id] = {conn, ++clock_};
}

size_t McpEndpoint::sessions() const {
  std::lock_guard<std::mutex> lk(mu_);
  return sessions_.size();
}

void add_mcp_routes(Http& http, Workspaces& ws) {
  using R = const httplib::Request&;
  using W = httplib::Response&;
  http.post("/mcp", "/mcp", [&ws](R q, W w) { ws.mcp_of(q).post(q, w); });
  http.del("/mcp", "/mcp", [&ws](R q, W w) { ws.mcp_of(q).end(q, w); });
  http.get("/mcp", "/mcp", in_workspace(ws, [](Context&, R, W w) {
    w.set_header("Allow", "POST, DELETE");
    send_error(w, 405, "method_not_allowed", "this server sends no messages of its own: POST JSON-RPC messages to /mcp");
  }));
}

}  // namespace mmkg::server
