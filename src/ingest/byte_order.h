// Little- and big-endian integers read from a file's bytes (headers of ZIP, PNG, GIF, BMP, JPEG).
// The caller checks that `at` and the bytes after it are inside `b`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mmkg {

inline uint32_t le16(std::string_view b, size_t at) {
  return static_cast<uint8_t>(b[at]) | static_cast<uint32_t>(static_cast<uint8_t>(b[at + 1])) << 8;
}
inline uint32_t le32(std::string_view b, size_t at) { return le16(b, at) | le16(b, at + 2) << 16; }
inline uint32_t be16(std::string_view b, size_t at) {
  return static_cast<uint32_t>(static_cast<uint8_t>(b[at])) << 8 | static_cast<uint8_t>(b[at + 1]);
}

}  // namespace mmkg
