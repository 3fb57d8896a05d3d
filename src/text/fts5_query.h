// FTS5's query language (https://sqlite.org/fts5.html, section 3) parsed into a tree, once, for
// every index that answers mmkg's lexical queries: FTS5 itself takes the text, the Xapian index of
// large stores (index/lexical_query.h) and Neo4j's full-text index (graph/stores/lucene_query.h)
// take this tree.
//
// The subset parsed: strings ("..." with "" for a quote, or barewords) joined by '+' into phrases,
// AND (explicit or by juxtaposition), OR, NOT, parentheses and NEAR(phrase phrase ... [, N]), with
// FTS5's precedence NOT > AND > OR. Column filters (`col:`, `{a b}:`, `-col:`), prefix queries
// (`*`) and initial-token queries (`^`) are refused: mmkg's own queries never use them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace mmkg {

struct Fts5Node {
  enum class Kind { Phrase, And, Or, Not, Near };
  Kind kind = Kind::Phrase;
  /// Phrase: its strings, quotes undone, joined by single spaces (not yet tokenised).
  std::string text;
  /// And, Or: the operands (two or more); Not: {kept, excluded}; Near: its phrases (two or more).
  std::vector<Fts5Node> children;
  int near = 10;  ///< Near: most tokens allowed between the phrases (FTS5's N, default 10)
};

/// An expression outside the subset, or malformed: what was expected or found, and where.
class Fts5SyntaxError : public Error {
 public:
  Fts5SyntaxError(std::string what, size_t pos)
      : Error(what + " at character " + std::to_string(pos + 1)), what_(std::move(what)), pos_(pos) {}
  /// e.g. "a prefix query (*)", "')' expected", "unexpected ','".
  const std::string& reason() const { return what_; }
  /// 0-based byte offset into the expression.
  size_t pos() const { return pos_; }

 private:
  std::string what_;
  size_t pos_;
};

/// The tree of an FTS5 MATCH expression; nullopt when it is empty (only spaces). Throws
/// Fts5SyntaxError for anything outside the subset above.
std::optional<Fts5Node> parse_fts5_query(std::string_view match);

}  // namespace mmkg
