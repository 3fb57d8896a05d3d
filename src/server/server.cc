#include "server/server.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "core/error.h"
#include "server/context.h"
#include "server/keyring.h"
#include "server/workspaces.h"

namespace mmkg::server {

namespace fs = std::filesystem;

namespace {

bool loopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// SIGTERM and SIGINT write their number to a pipe that one thread waits on: a handler, not a
// blocked mask, because threads started before serve() (OpenBLAS's pool, at load time) would
// otherwise take the default action and end the process mid-request.
int stop_pipe[2] = {-1, -1};

extern "C" void on_stop_signal(int sig) {
  const unsigned char b = static_cast<unsigned char>(sig);
  if (stop_pipe[1] >= 0) [[maybe_unused]] auto n = ::write(stop_pipe[1], &b, 1);
}

}  // namespace

void stop_server() { ::kill(::getpid(), SIGTERM); }

namespace {

/// Checks the options and fills in the defaults that depend on the machine; the access policy.
AccessPolicy check_options(ServeOptions& opt) {
  AccessPolicy policy;
  policy.auth = parse_auth(opt.auth);
  policy.api_key = opt.api_key;
  if (!opt.keys_file.empty()) policy.keys = std::make_shared<KeyRing>(opt.keys_file);
  if (policy.auth == Auth::None && !loopback(opt.host))
    throw UsageError("--auth none on " + opt.host + " would let anyone on the network write to the store; "
                     "bind to 127.0.0.1, or set MMKG_API_KEY and use --auth writes or all");
  if (opt.port < 0 || opt.port > 65535) throw UsageError("--port must be from 0 to 65535");
  if (opt.max_upload_mb < 1) throw UsageError("--max-upload-mb must be at least 1");
  const int cores = static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
  if (opt.workers <= 0) opt.workers = cores;
  if (opt.threads <= 0) opt.threads = std::max(16, 4 * opt.workers + opt.max_queue);
  return policy;
}

void install_stop_handlers() {
  // A client that goes away must not end the process with SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
  if (stop_pipe[0] < 0 && ::pipe2(stop_pipe, O_CLOEXEC) != 0) throw Error("cannot create the stop pipe");
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
}

/// httplib's limits and thread pool, the routes and the web UI.
void set_up_http(Http& http, Workspaces& ws, const ServeOptions& opt) {
  httplib::Server& srv = http.raw();
  const int threads = opt.threads;
  srv.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  srv.set_payload_max_length(static_cast<size_t>(opt.max_upload_mb) << 20);
  srv.set_keep_alive_max_count(1000);
  srv.set_read_timeout(30);
  srv.set_write_timeout(30);
  add_api_routes(http, ws);
  add_page_routes(http, ws);
  add_compat_routes(http, ws);
  add_mcp_routes(http, ws);
  if (!opt.ui_dir.empty() && fs::is_directory(opt.ui_dir)) srv.set_mount_point("/", opt.ui_dir);
}

/// Binds to opt.host:opt.port (any free port for 0); the port bound.
int bind_port(httplib::Server& srv, const ServeOptions& opt) {
  if (opt.port == 0) {
    const int port = srv.bind_to_any_port(opt.host);
    if (port < 0) throw UsageError("cannot listen on " + opt.host + ": no free port");
    return port;
  }
  if (!srv.bind_to_port(opt.host, opt.port))
    throw UsageError("cannot listen on " + opt.host + ":" + std::to_string(opt.port) +
                     " (in use, or not this machine's address); pick another --port, or --port 0 for any free one");
  return opt.port;
}

/// Serves until SIGTERM or SIGINT (or a listen failure), then lets the requests in flight finish.
void listen_until_stopped(httplib::Server& srv, const std::string& url, const ServeOptions& opt) {
  std::thread waiter([&srv] {
    unsigned char sig = 0;
    while (::read(stop_pipe[0], &sig, 1) < 0 && errno == EINTR) {
    }
    if (sig == 0) return;  // woken to end (listen failed)
    std::fprintf(stderr, "mmkg: serve: %s received; finishing the requests in flight\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    srv.stop();
  });
  if (opt.on_ready) opt.on_ready(url);
  const bool ok = srv.listen_after_bind();
  if (!ok) {
    const unsigned char zero = 0;
    [[maybe_unused]] auto n = ::write(stop_pipe[1], &zero, 1);
  }
  waiter.join();
}

}  // namespace

int serve(Config cfg, const ServeOptions& opt_in) {
  ServeOptions opt = opt_in;
  const AccessPolicy policy = check_options(opt);
  std::vector<WorkspaceSpec> specs;
  for (const std::string& w : opt.workspaces) specs.push_back(WorkspaceSpec::parse(w));
  install_stop_handlers();

  // Each store is created if missing (an empty store serves an empty corpus until an upload).
  Metrics metrics;
  Workspaces ws(opt, metrics);
  ws.open("default", cfg);
  for (const WorkspaceSpec& w : specs) ws.open(w.name, workspace_config(cfg, w.store));
  if (!opt.workspaces_dir.empty()) ws.set_root(cfg, opt.workspaces_dir);

  Http http(policy, metrics, opt.log_requests);
  set_up_http(http, ws, opt);
  const int port = bind_port(http.raw(), opt);
  // The first query should not pay for loading the model.
  try {
    ws.get("default").pool.warm();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mmkg: warning: %s\n", e.what());
  }
  const std::string url = "http://" + (opt.host.find(':') != std::string::npos ? "[" + opt.host + "]" : opt.host) +
                          ":" + std::to_string(port);
  listen_until_stopped(http.raw(), url, opt);
  // Requests have finished (httplib joined its threads); the running ingest jobs finish now.
  ws.stop();
  std::fprintf(stderr, "mmkg: serve: stopped\n");
  return 0;
}

}  // namespace mmkg::server
