// Tests only: a scripted HTTP server on loopback that replies with exact bytes, for injecting the
// faults a real model server will not produce on demand (429 + retry-after, 500, 503, stalled or
// truncated bodies, malformed JSON). Each connection gets the next scripted reply and is closed.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mmkg::testing {

struct ScriptedReply {
  std::string raw;        // bytes sent as the response
  double stall_s = 0;     // then stay silent this long before closing
  double delay_s = 0;     // silence before sending anything
};

struct ReceivedRequest {
  std::string head;  // request line and headers
  std::string body;
};

class ScriptedHttpServer {
 public:
  ScriptedHttpServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd_, 16);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~ScriptedHttpServer() {
    stop_ = true;
    acceptor_.join();
    for (auto& t : workers_) t.join();
    ::close(fd_);
  }

  int port() const { return port_; }
  std::string url(const std::string& path = "") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

  void push(ScriptedReply r) {
    std::lock_guard<std::mutex> g(mu_);
    script_.push_back(std::move(r));
  }
  /// Replies with `status` and a JSON body.
  void push_json(int status, const std::string& body, const std::string& extra_headers = "") {
    push({response(status, body, extra_headers)});
  }

  /// Replies computed from each request, used once the script is empty: for concurrent requests,
  /// which arrive in any order, so a fixed script cannot match answers to them.
  void respond_with(std::function<ScriptedReply(const ReceivedRequest&)> f) {
    std::lock_guard<std::mutex> g(mu_);
    responder_ = std::move(f);
  }

  std::vector<ReceivedRequest> requests() const {
    std::lock_guard<std::mutex> g(mu_);
    return received_;
  }
  size_t request_count() const {
    std::lock_guard<std::mutex> g(mu_);
    return received_.size();
  }

  /// A complete response with Content-Length.
  static std::string response(int status, const std::string& body,
                              const std::string& extra_headers = "") {
    return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Type: application/json\r\n" +
           extra_headers + "Content-Length: " + std::to_string(body.size()) +
           "\r\nConnection: close\r\n\r\n" + body;
  }

 private:
  void accept_loop() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      workers_.emplace_back([this, c] { serve(c); });
    }
  }

  void serve(int c) {
    ReceivedRequest req;
    std::string buf;
    char tmp[65536];
    size_t head_end = std::string::npos;
    size_t need = 0;
    while (!stop_) {
      pollfd p{c, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      ssize_t n = ::recv(c, tmp, sizeof tmp, 0);
      if (n <= 0) break;
      buf.append(tmp, static_cast<size_t>(n));
      if (head_end == std::string::npos) {
        head_end = buf.find("\r\n\r\n");
        if (head_end == std::string::npos) continue;
        req.head = buf.substr(0, head_end);
        std::string lowhead = req.head;
        for (char& ch : lowhead) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        auto cl = lowhead.find("content-length:");
        need = cl == std::string::npos ? 0 : std::stoul(lowhead.substr(cl + 15));
      }
      if (buf.size() >= head_end + 4 + need) break;
    }
    if (head_end != std::string::npos) req.body = buf.substr(head_end + 4, need);
    ScriptedReply r;
    std::function<ScriptedReply(const ReceivedRequest&)> responder;
    {
      std::lock_guard<std::mutex> g(mu_);
      received_.push_back(req);
      if (!script_.empty()) {
        r = script_.front();
        script_.pop_front();
      } else if (responder_) {
        responder = responder_;
      } else {
        r.raw = response(599, "{\"error\":{\"message\":\"script exhausted\"}}");
      }
    }
    if (responder) r = responder(req);  // outside the lock: requests are answered concurrently
    const auto start = std::chrono::steady_clock::now() + std::chrono::duration<double>(r.delay_s);
    while (!stop_ && std::chrono::steady_clock::now() < start) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    size_t off = 0;
    while (off < r.raw.size()) {
      ssize_t n = ::send(c, r.raw.data() + off, r.raw.size() - off, MSG_NOSIGNAL);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(r.stall_s);
    while (!stop_ && std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::shutdown(c, SHUT_RDWR);
    ::close(c);
  }

  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread acceptor_;
  std::vector<std::thread> workers_;  // touched by the acceptor thread only, joined after it
  mutable std::mutex mu_;
  std::deque<ScriptedReply> script_;
  std::vector<ReceivedRequest> received_;
  std::function<ScriptedReply(const ReceivedRequest&)> responder_;
};

}  // namespace mmkg::testing
