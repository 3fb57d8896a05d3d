// Content hashing (xxHash XXH3) for document and chunk ids.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mmkg {

/// 64-bit XXH3 of `data`.
uint64_t hash64(std::string_view data);
/// 16 lower-case hex digits of hash64(data): document ids, chunk ids.
std::string hash_hex(std::string_view data);
/// Streaming hasher for large inputs.
class Hasher {
 public:
  Hasher();
  ~Hasher();
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;
  void update(std::string_view data);
  std::string hex() const;

 private:
  void* state_;
};

}  // namespace mmkg
