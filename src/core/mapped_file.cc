#include "core/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace mmkg {

MappedFile::MappedFile(const std::string& path, bool sequential) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    status_ = errno == ENOENT ? Status::Missing : Status::Unreadable;
    error_ = std::strerror(errno);
    return;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    status_ = Status::Unreadable;
    error_ = std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    status_ = Status::NotAFile;
    error_ = "not a regular file";
  } else if (st.st_size > 0) {
    const size_t size = static_cast<size_t>(st.st_size);
    void* m = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      status_ = Status::Unmappable;
      error_ = std::strerror(errno);
    } else {
      if (sequential) ::madvise(m, size, MADV_SEQUENTIAL);
      bytes_ = std::string_view(static_cast<const char*>(m), size);
    }
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (!bytes_.empty()) ::munmap(const_cast<char*>(bytes_.data()), bytes_.size());
}

}  // namespace mmkg
