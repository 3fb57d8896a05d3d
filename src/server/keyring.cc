#include "server/keyring.h"

namespace mmkg::server {

namespace fs = std::filesystem;

KeyRing::KeyRing(std::string path) : path_(std::move(path)) {
  std::lock_guard lock(mu_);
  refresh();
}

void KeyRing::refresh() {
  std::error_code ec;
  const bool exists = fs::exists(path_, ec);
  const auto mtime = exists ? fs::last_write_time(path_, ec) : fs::file_time_type{};
  const auto size = exists ? fs::file_size(path_, ec) : 0;
  if (exists == exists_ && mtime == mtime_ && size == size_ && !ec) return;
  file_ = KeyFile::load(path_);  // the file is replaced whole (atomic rename): never half-written
  exists_ = exists, mtime_ = mtime, size_ = size;
}

std::optional<ApiKey> KeyRing::verify(const std::string& presented) {
  std::lock_guard lock(mu_);
  refresh();
  return file_.verify(presented);
}

}  // namespace mmkg::server
