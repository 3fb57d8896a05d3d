// mmkg mcp: the MCP server (server/mcp.h) over stdio, for AI clients that start it as a
// subprocess: one JSON-RPC message per line on stdin, one response per line on stdout. Nothing
// else may reach stdout, so the protocol gets its own copy of it and stdout itself becomes stderr
// (logs, warnings, a model server's chatter all go there).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "cli/commands.h"
#include "core/error.h"
#include "server/mcp.h"

namespace mmkg::cli {

namespace {

/// The protocol's stream (the original stdout); stdout is redirected to stderr.
FILE* take_stdout() {
  std::fflush(stdout);
  // Close-on-exec: a model server started later must not hold the client's pipe open.
  const int fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) throw IOError("cannot set up stdout for the MCP messages");
  FILE* out = ::fdopen(fd, "w");
  if (!out) throw IOError("cannot set up stdout for the MCP messages");
  return out;
}

/// True for a notifications/cancelled message, which must reach the server while a request runs.
bool is_cancellation(const std::string& line) {
  if (line.find("notifications/cancelled") == std::string::npos) return false;
  const nlohmann::json m = nlohmann::json::parse(line, nullptr, false);
  return m.is_object() && m.value("method", "") == "notifications/cancelled";
}

/// Answers each line of stdin, in order, until it ends (the client closed it: the requests read
/// are still answered) or stdout does. A reader thread takes the lines in, so that a cancellation
/// reaches the request it names while that request runs; after stdin's end it watches stdout, and
/// a client that closed its end of it (it left) stops what is under way.
int serve_stdio(Session& session, const std::string& store, const nlohmann::json& ask_defaults) {
  FILE* out = take_stdout();
  ::signal(SIGPIPE, SIG_IGN);  // a client gone: a failed write ends the loop
  server::mcp::McpServer protocol([&session](server::mcp::Work, const std::function<void(Session&)>& fn) { fn(session); },
                                  MMKG_VERSION, ask_defaults);
  std::fprintf(stderr, "mmkg: mcp: serving %s over stdio\n", store.c_str());
  std::mutex mu;
  std::condition_variable more;
  std::deque<std::string> lines;
  bool ended = false;
  std::atomic<bool> finished{false};
  std::thread reader([&] {
    server::mcp::Connection side;  // the same (only) connection: its key is empty too
    std::string line;
    while (std::getline(std::cin, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.find_first_not_of(" \t") == std::string::npos) continue;
      if (is_cancellation(line)) {
        protocol.handle_text(line, side);
        continue;
      }
      std::lock_guard<std::mutex> lk(mu);
      lines.push_back(std::move(line));
      more.notify_one();
    }
    {
      std::lock_guard<std::mutex> lk(mu);
      ended = true;
      more.notify_one();
    }
    pollfd p{::fileno(out), 0, 0};  // no events asked: a pipe whose reader left reports POLLERR
    while (!finished.load()) {
      if (::poll(&p, 1, 200) > 0 && (p.revents & (POLLERR | POLLHUP))) {
        protocol.cancel_all();
        break;
      }
    }
  });
  server::mcp::Connection conn;
  bool written = true;
  for (;;) {
    std::string line;
    {
      std::unique_lock<std::mutex> lk(mu);
      more.wait(lk, [&] { return ended || !lines.empty(); });
      if (lines.empty()) break;
      line = std::move(lines.front());
      lines.pop_front();
    }
    const std::string reply = protocol.handle_text(line, conn);
    if (reply.empty()) continue;
    if (std::fprintf(out, "%s\n", reply.c_str()) < 0 || std::fflush(out) != 0) {
      written = false;
      break;
    }
  }
  finished = true;
  // With stdout gone the client is too, but stdin may stay open: the reader is left to the exit.
  if (written)
    reader.join();
  else
    reader.detach();
  std::fclose(out);
  return 0;
}

}  // namespace

Command add_mcp(CLI::App& app, Common& c) {
  auto* cmd = app.add_subcommand(
      "mcp", "serve the store to AI clients over MCP (Model Context Protocol) on stdin/stdout: tools search, ask, "
             "get_chunk, get_figure, graph_entity, list_documents; each document as a resource (docs/API.md, MCP)");
  add_common(cmd, c);
  cmd->add_option("--llm", c.llm,
                  "language model for ask: none (extractive), local (starts llama-cpp-python with SmolLM2), or "
                  "an OpenAI-compatible URL http(s)://HOST/v1#model=NAME (env MMKG_LLM_BASE_URL, GROQ_API_KEY, ...)")
      ->capture_default_str();
  auto defaults = std::make_shared<nlohmann::json>(nlohmann::json::object());
  add_request_flags(cmd, door_options(ask_options(), kDoorServe), kDoorServe, defaults,
                    "Ask defaults (the ask tool starts from them; its arguments override them)");
  return {cmd, [&c, defaults]() {
            AskRequest checked;  // a bad default fails now (exit 2), not at every ask
            apply_options(*defaults, checked, kDoorServe);
            // Opened before the first message: a missing store fails now, with its message on stderr.
            std::unique_ptr<Session> s = open_session(c);
            return serve_stdio(*s, c.store, *defaults);
          }};
}

}  // namespace mmkg::cli
