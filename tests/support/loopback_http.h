// Helpers for the server's unit tests (header-only): a server::Http running on a free loopback
// port on its own thread for the test's scope.
#pragma once

#include <chrono>
#include <thread>

#include "server/http.h"

namespace mmkg::testing {

/// Serves `http` on 127.0.0.1 (a free port) until destroyed.
class LoopbackHttp {
 public:
  explicit LoopbackHttp(server::Http& http) : http_(http) {
    port_ = http_.raw().bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { http_.raw().listen_after_bind(); });
    while (!http_.raw().is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ~LoopbackHttp() {
    http_.raw().stop();
    thread_.join();
  }
  LoopbackHttp(const LoopbackHttp&) = delete;
  LoopbackHttp& operator=(const LoopbackHttp&) = delete;
  int port() const { return port_; }

 private:
  server::Http& http_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace mmkg::testing
