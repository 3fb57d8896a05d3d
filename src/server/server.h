// `mmkg serve`: one process that keeps the store, the embedder, the vector index, the graph and
// the chat model loaded and serves the JSON API (/api/...), OpenAI-compatible (/v1/...) and
// Ollama-compatible (/api/chat, /api/tags) endpoints, and the web UI's static files. Every
// request goes through the library entry point, Session (app/session.h): readers lease one from
// a pool, writes go through one writer session (jobs.h).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/config.h"

namespace mmkg::server {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;               ///< 0: any free port
  std::string auth = "writes";   ///< writes | all | none
  std::string api_key;           ///< MMKG_API_KEY (never logged)
  std::string keys_file;         ///< scoped keys (mmkg keys, app/keys.h); empty: none
  /// More workspaces beside "default" (the store of `cfg`): "NAME=STORE" each (workspaces.h).
  std::vector<std::string> workspaces;
  /// A folder whose every subfolder is a workspace of its name, found when first named; empty: none.
  std::string workspaces_dir;
  int workers = 0;               ///< reader sessions; 0: the number of cores (at least 2)
  int max_queue = 64;            ///< requests waiting for a reader before 429
  int threads = 0;               ///< HTTP threads; 0: 4 x workers + max_queue (at least 16)
  int max_upload_mb = 100;       ///< request body limit
  std::string ui_dir;            ///< the built web UI; empty: none served
  bool log_requests = true;      ///< one line per request on stderr
  /// Ask options (app/request_options.h, the serve door) every ask starts from: /api/ask, the
  /// chat endpoints and the MCP ask tool; a request's own options override them.
  nlohmann::json ask_defaults = nlohmann::json::object();
  /// Called once the port is bound: the URL ("http://HOST:PORT").
  std::function<void(const std::string& url)> on_ready;
};

/// Runs until SIGTERM or SIGINT (or stop_server()), then lets in-flight requests and the running
/// ingest job finish. Returns the exit code. Throws UsageError for a bad option (a non-loopback
/// host with --auth none, a port in use, ...).
int serve(Config cfg, const ServeOptions& opt);

/// Asks a running serve() to stop, as SIGTERM does (for tests).
void stop_server();

}  // namespace mmkg::server
