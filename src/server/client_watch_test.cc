// ClientWatch on real loopback connections: the server side's socket is found by the client's
// address and port, and the flag is set once the client closes, not before.
#include "server/client_watch.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace mmkg::server {
namespace {

struct Loopback {
  int listener = -1, client = -1, accepted = -1;
  int client_port = 0;
  Loopback() {
    listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(listener, 1);
    socklen_t len = sizeof a;
    ::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len);
    client = ::socket(AF_INET, SOCK_STREAM, 0);
    ::connect(client, reinterpret_cast<sockaddr*>(&a), sizeof a);
    accepted = ::accept(listener, nullptr, nullptr);
    sockaddr_in c{};
    len = sizeof c;
    ::getsockname(client, reinterpret_cast<sockaddr*>(&c), &len);
    client_port = ntohs(c.sin_port);
  }
  ~Loopback() {
    for (int fd : {listener, client, accepted})
      if (fd >= 0) ::close(fd);
  }
  httplib::Request request() const {
    httplib::Request r;
    r.remote_addr = "127.0.0.1";
    r.remote_port = client_port;
    return r;
  }
};

bool becomes_true(const std::atomic<bool>& f) {
  for (int i = 0; i < 300 && !f.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return f.load();
}

TEST(ClientWatch, FindsTheServersSocketOfAClientByItsAddressAndPort) {
  Loopback l;
  ASSERT_GE(l.accepted, 0);
  EXPECT_EQ(ClientWatch::find_socket("127.0.0.1", l.client_port), l.accepted);
  EXPECT_EQ(ClientWatch::find_socket("127.0.0.2", l.client_port), -1);
}

TEST(ClientWatch, SetsTheFlagWhenTheClientClosesAndNotBefore) {
  ClientWatch w;
  Loopback l;
  auto gone = std::make_shared<std::atomic<bool>>(false);
  ClientWatch::Guard g = w.watch(l.request(), gone);
  ASSERT_TRUE(g.watching());
  // Data from the client (a pipelined request) is not a close.
  ASSERT_EQ(::write(l.client, "GET / HTTP/1.1\r\n\r\n", 18), 18);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_FALSE(gone->load());
  ::close(l.client);
  l.client = -1;
  EXPECT_TRUE(becomes_true(*gone));
}

TEST(ClientWatch, AnEndedGuardWatchesNoMore) {
  ClientWatch w;
  Loopback l;
  auto gone = std::make_shared<std::atomic<bool>>(false);
  { ClientWatch::Guard g = w.watch(l.request(), gone); }
  ::close(l.client);
  l.client = -1;
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_FALSE(gone->load());
  httplib::Request nobody;
  nobody.remote_addr = "127.0.0.1";
  nobody.remote_port = 1;
  EXPECT_FALSE(w.watch(nobody, gone).watching());
}

}  // namespace
}  // namespace mmkg::server
