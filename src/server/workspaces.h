// The workspaces one server holds: each a name and its own store (a folder, or a shared store in
// Neo4j), with its own reader sessions, writer (ingest jobs), MCP sessions and uploads folder.
// The store given to `mmkg serve` is the workspace "default"; `--workspace NAME=STORE` adds more.
// A request names its workspace with a path prefix (/w/NAME/api/ask, /w/NAME/v1/chat/completions,
// /w/NAME/mcp) or the header X-MMKG-Workspace: NAME (request_workspace, http.h); without either it
// works in "default", so a single-store server works as it did before workspaces.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "server/context.h"

namespace mmkg::server {

/// `--workspace NAME=STORE` read: UsageError for a bad name, "default", or no store.
struct WorkspaceSpec {
  std::string name, store;
  static WorkspaceSpec parse(const std::string& arg);
};

/// The store of workspace `name` (not "default") as a Config: `base` (the default store's) with
/// its store set, and the graph in that store (embedded for a folder, the same Neo4j database for
/// a shared store): a workspace never shares its graph with another.
Config workspace_config(const Config& base, const std::string& store);

class Workspaces {
 public:
  Workspaces(const ServeOptions& opt, Metrics& metrics);
  ~Workspaces();

  /// Opens `cfg.store` (created when missing) as workspace `name` and adds its gauges to the
  /// metrics. UsageError when the name is taken; the store's own errors as they are.
  void open(const std::string& name, const Config& cfg);

  /// The workspace a request names (http.h request_workspace). HttpError 404 when this server
  /// has none of that name.
  Context& of(const httplib::Request& req);
  McpEndpoint& mcp_of(const httplib::Request& req);
  Context& get(const std::string& name);
  McpEndpoint& mcp(const std::string& name);

  std::vector<std::string> names() const;  ///< "default" first, then by name
  /// Finishes every workspace's running ingest job (after the HTTP threads have stopped).
  void stop();

 private:
  struct Workspace;
  Workspace& find(const std::string& name);
  const ServeOptions& opt_;
  Metrics& metrics_;
  std::map<std::string, std::unique_ptr<Workspace>> spaces_;
};

/// GET /api/workspaces: the workspaces the request's key may read, with their document counts.
void add_workspace_routes(Http& http, Workspaces& ws);

}  // namespace mmkg::server
