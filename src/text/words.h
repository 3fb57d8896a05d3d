// Small text utilities shared by the chunker, search and agents.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/ascii.h"  // lower_ascii

namespace mmkg {

/// Collapses runs of ASCII whitespace into one space and trims both ends.
std::string collapse_ws(std::string_view s);
/// Longest prefix of `s` of at most `max_bytes` bytes that ends on a UTF-8 character boundary.
std::string_view utf8_prefix(std::string_view s, size_t max_bytes);
/// Word tokens, lower-cased: runs of ASCII letters/digits and any non-ASCII UTF-8 characters.
/// Hyphens, apostrophes and punctuation separate words (as SQLite's unicode61 tokenizer does).
std::vector<std::string> words(std::string_view s);
/// True for common English function words (articles, pronouns, auxiliaries, question words).
/// A general list (not tuned to any corpus), used to pick the content words of a query.
bool is_stopword(std::string_view lower_word);
/// Snowball English stem of a lower-cased word (libstemmer). Thread-safe.
std::string stem(std::string_view lower_word);
/// Content words of `s`: words() minus stop words, stemmed.
std::vector<std::string> content_stems(std::string_view s);

}  // namespace mmkg
