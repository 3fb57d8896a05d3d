// ASCII case folding, for the layers that work on protocol text (header names, URL schemes) and
// on the words of documents alike.
#pragma once

#include <string>
#include <string_view>

namespace mmkg {

/// ASCII lower-casing (UTF-8 bytes >= 0x80 are left unchanged).
inline std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

}  // namespace mmkg
