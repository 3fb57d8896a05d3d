#include "core/hash.h"

#include <xxhash.h>

#include <cstdio>

namespace mmkg {

uint64_t hash64(std::string_view data) { return XXH3_64bits(data.data(), data.size()); }

static std::string to_hex(uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string hash_hex(std::string_view data) { return to_hex(hash64(data)); }

Hasher::Hasher() : state_(XXH3_createState()) { XXH3_64bits_reset(static_cast<XXH3_state_t*>(state_)); }
Hasher::~Hasher() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }
void Hasher::update(std::string_view data) {
  XXH3_64bits_update(static_cast<XXH3_state_t*>(state_), data.data(), data.size());
}
std::string Hasher::hex() const { return to_hex(XXH3_64bits_digest(static_cast<XXH3_state_t*>(state_))); }

}  // namespace mmkg
