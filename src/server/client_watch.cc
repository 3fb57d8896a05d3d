#include "server/client_watch.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace mmkg::server {

namespace {

// The numeric address and port of `fd`'s peer; false when it is not a connected IP socket.
bool peer_of(int fd, std::string& addr, int& port) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return false;
  char buf[INET6_ADDRSTRLEN] = {};
  if (ss.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
    if (!::inet_ntop(AF_INET, &a->sin_addr, buf, sizeof buf)) return false;
    port = ntohs(a->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
    if (!::inet_ntop(AF_INET6, &a->sin6_addr, buf, sizeof buf)) return false;
    port = ntohs(a->sin6_port);
  } else {
    return false;
  }
  addr = buf;
  return true;
}

}  // namespace

ClientWatch::Guard::~Guard() {
  if (w_) w_->end(id_);
}

ClientWatch::~ClientWatch() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

ClientWatch& ClientWatch::shared() {
  static ClientWatch w;
  return w;
}

int ClientWatch::find_socket(const std::string& addr, int port) {
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) return -1;
  int found = -1;
  while (dirent* e = ::readdir(d)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || fd == ::dirfd(d)) continue;
    struct stat st{};
    if (::fstat(static_cast<int>(fd), &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    std::string a;
    int p = -1;
    if (peer_of(static_cast<int>(fd), a, p) && p == port && a == addr) {
      found = static_cast<int>(fd);
      break;
    }
  }
  ::closedir(d);
  return found;
}

ClientWatch::Watched ClientWatch::watch_client(const httplib::Request& req) {
  Watched w;
  w.guard = std::make_shared<Guard>(shared().watch(req, w.gone));
  return w;
}

ClientWatch::Guard ClientWatch::watch(const httplib::Request& req, std::shared_ptr<std::atomic<bool>> gone) {
  const int fd = find_socket(req.remote_addr, req.remote_port);
  if (fd < 0) return {};
  long id = 0;
  {
    std::lock_guard<std::mutex> lk(mu_);
    id = next_++;
    entries_[id] = {fd, std::move(gone)};
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
  }
  wake_.notify_all();
  return {this, id};
}

void ClientWatch::end(long id) {
  std::lock_guard<std::mutex> lk(mu_);
  entries_.erase(id);
}

// Polls the watched sockets for the peer's close (POLLRDHUP) or a failure, not for data: a
// pipelined request waiting to be read must neither count as a close nor wake the loop.
void ClientWatch::loop() {
  std::unique_lock<std::mutex> lk(mu_);
  while (!stop_) {
    if (entries_.empty()) {
      wake_.wait(lk, [&] { return stop_ || !entries_.empty(); });
      continue;
    }
    std::vector<long> ids;
    std::vector<pollfd> fds;
    for (const auto& [id, e] : entries_) {
      ids.push_back(id);
      fds.push_back({e.fd, POLLRDHUP, 0});
    }
    lk.unlock();
    const int n = ::poll(fds.data(), fds.size(), 200);
    lk.lock();
    if (n <= 0) continue;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))) continue;
      auto it = entries_.find(ids[i]);  // still watched: its guard has not ended meanwhile
      if (it == entries_.end()) continue;
      it->second.gone->store(true);
      entries_.erase(it);
    }
  }
}

}  // namespace mmkg::server
