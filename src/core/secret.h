// Secrets: random identifiers from the kernel's CSPRNG (and the hex they are written in), and
// comparison in constant time. Used for API keys (app/keys.h), the server's key check
// (server/http.h) and MCP session ids.
#pragma once

#include <cstddef>
#include <string>

namespace mmkg {

/// `n` bytes as 2 x `n` lower-case hex digits.
std::string to_hex(const unsigned char* p, size_t n);

/// 2 x `bytes` lower-case hex digits of random bytes from getrandom(2) (which blocks only before
/// the kernel's pool is seeded at boot). Throws Error when the kernel gives none.
std::string random_hex(size_t bytes);

/// Whether a == b, in a time that depends on the lengths only: every byte of the longer string is
/// read whatever matched, so a caller timing it learns nothing of the secret's content.
bool same_secret(const std::string& a, const std::string& b);

}  // namespace mmkg
