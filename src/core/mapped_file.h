// A whole file mapped read-only for the life of the object: the open / fstat / mmap / close /
// munmap sequence that the safetensors loader, the vector index file and the int8 cache each
// need, written once. It never throws: status() says what went wrong and error() the system's
// reason, so each caller words the failure its own way (a model file and a vector index throw,
// a cache only gives up).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mmkg {

class MappedFile {
 public:
  enum class Status {
    Ok,          ///< mapped (an empty file is Ok with no bytes)
    Missing,     ///< no such file
    NotAFile,    ///< a directory, a device, ...
    Unreadable,  ///< open or fstat failed (permissions, I/O error)
    Unmappable,  ///< it has bytes, but mmap refused them
  };

  /// Maps `path`. `sequential`: the caller reads it front to back once (MADV_SEQUENTIAL).
  explicit MappedFile(const std::string& path, bool sequential = false);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  Status status() const { return status_; }
  bool ok() const { return status_ == Status::Ok; }
  /// Why it is not Ok: strerror of the failing call, or "not a regular file" ("" when Ok).
  const std::string& error() const { return error_; }
  std::string_view bytes() const { return bytes_; }
  const char* data() const { return bytes_.data(); }
  size_t size() const { return bytes_.size(); }

 private:
  Status status_ = Status::Ok;
  std::string error_;
  std::string_view bytes_;
};

}  // namespace mmkg
