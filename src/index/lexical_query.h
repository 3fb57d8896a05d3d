// The lexical query language as the index sees it: the FTS5 expression parsed by
// text/fts5_query.h (phrases, AND, OR, NOT, parentheses, NEAR) with each phrase's words
// tokenised and stemmed as the index stores them, so that an index other than FTS5 (the Xapian
// index of large stores, xapian_lexical.h) answers the same expressions.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mmkg {

struct LexNode {
  enum class Kind { Phrase, Or, And, Not, Near };
  Kind kind = Kind::Phrase;
  /// Phrase: its words as the index stores them (words(), lower-cased, stemmed; stop words kept).
  std::vector<std::string> terms;
  /// Phrase: its words before stemming (whether each is a stop word).
  std::vector<std::string> words;
  std::vector<LexNode> children;  ///< Or, And: operands; Not: {kept, excluded}; Near: its phrases
  int near = 10;                  ///< Near: most tokens allowed between the phrases (FTS5's N)
};

/// Parses an FTS5 MATCH expression of the subset above. Returns nullopt for anything else (column
/// filters, prefix queries, '^', unbalanced quotes or parentheses), for an empty expression and
/// for a phrase with no words: the caller then uses FTS5 itself, which knows the whole language.
std::optional<LexNode> parse_lexical_query(const std::string& match);

/// The expression back in FTS5 syntax (for messages and tests).
std::string to_string(const LexNode& n);

}  // namespace mmkg
