// The workspaces one server holds: each a name and its own store (a folder, or a shared store in
// Neo4j), with its own reader sessions, writer (ingest jobs), MCP sessions and uploads folder.
// The store given to `mmkg serve` is the workspace "default"; `--workspace NAME=STORE` adds more.
// A request names its workspace with a path prefix (/w/NAME/api/ask, /w/NAME/v1/chat/completions,
// /w/NAME/mcp) or the header X-MMKG-Workspace: NAME (request_workspace, http.h); without either it
// works in "default", so a single-store server works as it did before workspaces. With
// `--workspaces-dir DIR`, every subfolder of DIR with a workspace's name is one too, found when
// a request first names it: `mkdir DIR/team-c` (or `mmkg ingest --store DIR/team-c`) adds a
// workspace to a running server.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
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
  /// Makes each subfolder of `dir` (created when missing) a workspace of its name, its store
  /// configured as workspace_config(base, DIR/NAME); opened when first named.
  void set_root(const Config& base, const std::string& dir);

  /// The workspace a request names (http.h request_workspace). HttpError 404 when this server
  /// has none of that name.
  Context& of(const httplib::Request& req);
  McpEndpoint& mcp_of(const httplib::Request& req);
  Context& get(const std::string& name);
  McpEndpoint& mcp(const std::string& name);

  /// "default" first, then by name; with a root, its subfolders too (opened or not).
  std::vector<std::string> names() const;
  /// Finishes every workspace's running ingest job (after the HTTP threads have stopped).
  void stop();

 private:
  struct Workspace;
  Workspace& find(const std::string& name);
  /// The root's subfolder `name` opened, or nullptr when there is none.
  Workspace* discover(const std::string& name);
  void open_locked(const std::string& name, const Config& cfg);  ///< open() with open_mu_ held
  const ServeOptions& opt_;
  Metrics& metrics_;
  // Workspaces are added (at start, or found in the root) but never removed: a reference to one
  // stays valid. mu_ guards the map; open_mu_ lets one thread at a time open a workspace.
  mutable std::shared_mutex mu_;
  std::mutex open_mu_;
  std::map<std::string, std::unique_ptr<Workspace>> spaces_;
  std::unique_ptr<Config> root_base_;
  std::string root_;
};

/// GET /api/workspaces: the workspaces the request's key may read, with their document counts.
void add_workspace_routes(Http& http, Workspaces& ws);

}  // namespace mmkg::server
