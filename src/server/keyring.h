// The scoped API keys a server accepts (app/keys.h), read from the key file and read again when
// the file changes, so `mmkg keys add` and `mmkg keys revoke` take effect on a running server at
// its next request.
#pragma once

#include <filesystem>
#include <mutex>
#include <optional>
#include <string>

#include "app/keys.h"

namespace mmkg::server {

class KeyRing {
 public:
  /// Reads `path` (Error when it is not a key file; a missing file holds no key yet).
  explicit KeyRing(std::string path);

  /// The key `presented` is, if the file (as it is now) holds it. Throws Error when the file
  /// changed into something unreadable (the request then fails: no key is trusted).
  std::optional<ApiKey> verify(const std::string& presented);

  const std::string& path() const { return path_; }

 private:
  void refresh();  // under mu_
  std::string path_;
  std::mutex mu_;
  KeyFile file_;
  std::filesystem::file_time_type mtime_{};
  std::uintmax_t size_ = 0;
  bool exists_ = false;
};

}  // namespace mmkg::server
