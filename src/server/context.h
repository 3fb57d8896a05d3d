// What the route handlers share (internal to server/).
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "server/http.h"
#include "server/jobs.h"
#include "server/mcp.h"
#include "server/metrics.h"
#include "server/pool.h"
#include "server/server.h"

namespace mmkg::server {

struct Context {
  Config cfg;
  ServeOptions opt;
  SessionPool& pool;
  JobQueue& jobs;
  Metrics& metrics;
  std::string uploads_dir;  ///< STORE/uploads (absolute)
  std::string version;
  /// A session for the cheap reads that must not wait for a reader (/health, the document list):
  /// store reads only, one at a time.
  Session& meta;
  std::mutex meta_mu;
  std::string workspace = "default";  ///< its name (workspaces.h)
};

/// The store's document and chunk counts, read on the shared session (/health, /api/workspaces).
StoreStats store_counts(Context& c);

class Workspaces;
using WorkspaceHandler = std::function<void(Context&, const httplib::Request&, httplib::Response&)>;
/// A handler that runs in the request's workspace (HttpError 404 when the server has none of
/// that name): workspaces.cc.
Handler in_workspace(Workspaces& ws, WorkspaceHandler h);

/// /health, /metrics, /openapi.json, /api/documents, /api/jobs, /api/search, /api/ask,
/// /api/entities, /api/figures.
void add_api_routes(Http& http, Workspaces& ws);
void add_page_routes(Http& http, Workspaces& ws);  ///< /api/documents/{key}/pages/{n}/image, /api/chunks/{id}
/// /v1/models, /v1/chat/completions, /api/tags, /api/version, /api/chat.
void add_compat_routes(Http& http, Workspaces& ws);

/// The MCP server at /mcp (routes_mcp.cc): the protocol over Streamable HTTP, with its sessions.
class McpEndpoint {
 public:
  explicit McpEndpoint(Context& c);
  void post(const httplib::Request& req, httplib::Response& res);  ///< one message or a batch
  void end(const httplib::Request& req, httplib::Response& res);   ///< DELETE: ends the session
  size_t sessions() const;

 private:
  /// Store reads on the shared session, the rest on a leased reader (asks counted).
  static void run(Context& c, mcp::Work work, const std::function<void(Session&)>& fn);
  bool find(const std::string& id, mcp::Connection& conn);
  void remember(const std::string& id, const mcp::Connection& conn);

  struct Entry {
    mcp::Connection conn;
    unsigned long long used = 0;  ///< clock_ at its last request
  };
  mcp::McpServer protocol_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> sessions_;
  unsigned long long clock_ = 0;
};
/// POST, DELETE and GET (405) /mcp, each workspace's own endpoint.
void add_mcp_routes(Http& http, Workspaces& ws);

/// The search of GET /api/search (?q=TEXT and the options as parameters) or of a POST body
/// ({"query": TEXT, options...}): HttpError or UsageError (400) for a bad one.
SearchRequest search_request(const httplib::Request& req);
/// The ask of a POST /api/ask body ({"question", "history", "stream"} and the options of
/// app/request_options.h), the server's `defaults` (ServeOptions::ask_defaults) under its options.
AskRequest ask_request(const nlohmann::json& body, const nlohmann::json& defaults);

/// Answers through the session, counting the ask and its model calls in the metrics.
AskResult run_ask(Context& c, Session& s, const AskRequest& r);

/// The embedded OpenAPI document (openapi.json, built into the binary).
const std::string& openapi_document();

/// A chat request read as a question: the last user message's text (a string, or the "text"
/// parts of a list of content parts), and the user and assistant messages before it, which make
/// a follow-up standalone (agents/followup.h). HttpError 400 when there is no user message with
/// text, or a message is not an object.
struct ChatInput {
  std::string question;
  std::vector<ChatTurn> history;
};
ChatInput chat_input(const nlohmann::json& messages);

}  // namespace mmkg::server
