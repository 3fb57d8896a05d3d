#include "core/secret.h"

#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "core/error.h"

namespace mmkg {

std::string to_hex(const unsigned char* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) out += d[p[i] >> 4], out += d[p[i] & 15];
  return out;
}

std::string random_hex(size_t bytes) {
  std::vector<unsigned char> b(bytes);
  size_t got = 0;
  while (got < bytes) {
    const ssize_t n = ::getrandom(b.data() + got, bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(std::string("cannot read random bytes from the kernel: ") + std::strerror(errno));
    got += static_cast<size_t>(n);
  }
  return to_hex(b.data(), b.size());
}

bool same_secret(const std::string& a, const std::string& b) {
  const size_t n = std::max(a.size(), b.size());
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= x ^ y;
  }
  return diff == 0;
}

}  // namespace mmkg
