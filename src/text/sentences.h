// Sentence segmentation (ICU BreakIterator, English with abbreviation suppressions).
#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace mmkg {

/// Byte ranges [begin, end) of the sentences of UTF-8 `text`, trailing whitespace excluded,
/// covering all non-space text in order. Thread-safe. Falls back to one range on ICU failure.
std::vector<std::pair<size_t, size_t>> split_sentences(std::string_view text);

}  // namespace mmkg
