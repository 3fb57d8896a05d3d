// Whether the client of a request is still there, so that an ask whose client left stops
// (AskOptions::cancel). cpp-httplib 0.11 (Debian bookworm's) tells a handler neither whether its
// connection closed (Request::is_connection_closed came in a later release) nor its socket, so the
// socket is found among this process's open sockets by the client's address and port (unique
// among live connections), and one thread polls every watched socket for the client's close.
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include <httplib.h>

namespace mmkg::server {

class ClientWatch {
 public:
  /// Ends watching when destroyed.
  class Guard {
   public:
    Guard() = default;
    Guard(ClientWatch* w, long id) : w_(w), id_(id) {}
    Guard(Guard&& o) noexcept : w_(o.w_), id_(o.id_) { o.w_ = nullptr; }
    Guard& operator=(Guard&&) = delete;
    ~Guard();
    bool watching() const { return w_ != nullptr; }

   private:
    ClientWatch* w_ = nullptr;
    long id_ = 0;
  };

  ClientWatch() = default;
  ~ClientWatch();
  ClientWatch(const ClientWatch&) = delete;
  ClientWatch& operator=(const ClientWatch&) = delete;

  /// Sets `gone` once the client of `req` has closed its connection (or it fails), for as long as
  /// the guard lives; the guard must end before the response does (the socket may then be reused).
  /// A request whose socket is not found is not watched (the guard says so).
  Guard watch(const httplib::Request& req, std::shared_ptr<std::atomic<bool>> gone);

  /// The process's watcher (its thread starts with the first watch).
  static ClientWatch& shared();

  /// A request's stop flag with its watch; shared, so that a stream's provider can hold them past
  /// the handler until the answer is written.
  struct Watched {
    std::shared_ptr<std::atomic<bool>> gone = std::make_shared<std::atomic<bool>>(false);
    std::shared_ptr<Guard> guard;
  };
  /// A new flag, set once the client of `req` leaves (watch() on the process's watcher).
  static Watched watch_client(const httplib::Request& req);

  /// The open socket whose peer is `addr`:`port` (numeric, as httplib gives them); -1: none.
  static int find_socket(const std::string& addr, int port);

 private:
  struct Entry {
    int fd = -1;
    std::shared_ptr<std::atomic<bool>> gone;
  };
  void loop();
  void end(long id);

  std::mutex mu_;
  std::condition_variable wake_;
  std::map<long, Entry> entries_;
  long next_ = 1;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace mmkg::server
