#include "index/model_file.h"

#include <system_error>

namespace mmkg {

std::shared_ptr<const FittedModel> ModelFile::get() {
  if (path_.empty()) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path_, ec);
  const auto mtime = ec ? std::filesystem::file_time_type{} : std::filesystem::last_write_time(path_, ec);
  if (ec) {  // gone or unreadable: the loader says so in its words
    model_ = load_(path_);
    ++loads_;
    return model_;
  }
  if (!model_ || size != size_ || mtime != mtime_) {
    model_ = load_(path_);
    size_ = size, mtime_ = mtime;
    ++loads_;
  }
  return model_;
}

int ModelFile::loads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return loads_;
}

}  // namespace mmkg
