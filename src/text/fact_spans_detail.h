// Helpers shared by text/fact_spans.cc and text/fact_relations.cc (not part of the interface).
#pragma once

#include <string_view>
#include <vector>

namespace mmkg::fact_detail {

/// The whitespace that separates words of running text.
inline bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

/// The sentences of a passage, a markdown heading line that opens one left out.
std::vector<std::string_view> sentences_of(std::string_view passage);
/// `w` (lower case) as whole words in `s` from `from`, ASCII case folded; npos when absent.
size_t find_words(std::string_view s, std::string_view w, size_t from = 0);

}  // namespace mmkg::fact_detail
