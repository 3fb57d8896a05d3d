// ASCII character and affix tests shared by the rule extractor's sources (terms.cc, markup.cc).
// Internal to src/graph/extract.
#pragma once

#include <string_view>

namespace mmkg::graph::rules {

inline bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
inline bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_alpha(char c) { return is_upper(c) || is_lower(c); }
inline bool is_alnum(char c) { return is_alpha(c) || is_digit(c); }
inline bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
inline bool ends_with(std::string_view s, std::string_view suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}
inline bool starts_with(std::string_view s, std::string_view pre) { return s.substr(0, pre.size()) == pre; }

}  // namespace mmkg::graph::rules
