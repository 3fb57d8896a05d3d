#include "graph/stores/lucene_query.h"

#include <cstdio>
#include <optional>

#include "core/error.h"
#include "text/fts5_query.h"

namespace mmkg::graph {

namespace {

constexpr const char* kSubset =
    "it takes quoted phrases, AND, OR, NOT, parentheses and NEAR(...): search without --graph neo4j://... to use "
    "the store's FTS5 index";

// Writes the Lucene query of a parsed FTS5 expression (text/fts5_query.h), counting the field
// phrases it writes against the clause cap.
class Writer {
 public:
  Writer(std::string_view in, const std::vector<LuceneField>& fields, size_t max_clauses)
      : in_(in), fields_(fields), max_(max_clauses) {}

  std::string write(const Fts5Node& n) {
    switch (n.kind) {
      case Fts5Node::Kind::Phrase: return lucene_phrase(n.text);
      case Fts5Node::Kind::Near: return near(n);
      case Fts5Node::Kind::Not: {
        std::string kept = write(n.children[0]);
        ++negated_;
        std::string out = "(" + kept + " AND NOT " + write(n.children[1]) + ")";
        --negated_;
        return out;
      }
      case Fts5Node::Kind::And: {
        std::vector<std::string> parts;
        for (const auto& c : n.children) parts.push_back(write(c));
        return group(parts, " AND ");
      }
      case Fts5Node::Kind::Or: return disjunction(n);
    }
    return "";
  }

  // The whole query; over the cap even after its disjunctions were cut, refused.
  std::string write_all(const Fts5Node& n) {
    std::string out = write(n);
    if (max_ && clauses_ > max_) fail("more than " + std::to_string(max_) + " Lucene clauses");
    return out;
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw UsageError("the full-text query `" + std::string(in_) + "` cannot be translated for Neo4j's full-text index (" +
                     what + "); " + kSubset);
  }

 private:
  // A Lucene phrase, in every field when fields are given. Quoted, Lucene's operators and special
  // characters are text for the analyzer; only `"` and `\` are escaped.
  std::string lucene_phrase(const std::string& text, int slop = -1) {
    std::string q = "\"";
    for (char c : text) {
      if (c == '"' || c == '\\') q += '\\';
      q += c;
    }
    q += '"';
    if (slop >= 0) q += "~" + std::to_string(slop);
    clauses_ += fields_.empty() ? 1 : fields_.size();
    if (fields_.empty()) return q;
    std::string out;
    for (const auto& f : fields_) {
      out += out.empty() ? "(" : " OR ";
      out += f.name + ":" + q;
      if (f.boost != 1.0) {
        char b[32];
        std::snprintf(b, sizeof b, "^%g", f.boost);
        out += b;
      }
    }
    return out + ")";
  }

  // NEAR as sloppy phrases: both orders for two phrases (FTS5's NEAR takes any order); for more,
  // their terms in the order given with a slop of N per gap (an approximation). A phrase of
  // several words inside NEAR loses its adjacency.
  std::string near(const Fts5Node& n) {
    const auto& ph = n.children;
    auto joined = [&](bool reversed) {
      std::string t;
      for (size_t i = 0; i < ph.size(); ++i) t += (i ? " " : "") + ph[reversed ? ph.size() - 1 - i : i].text;
      return t;
    };
    const int slop = n.near * static_cast<int>(ph.size() - 1);
    if (ph.size() > 2) return lucene_phrase(joined(false), slop);
    return "(" + lucene_phrase(joined(false), slop) + " OR " + lucene_phrase(joined(true), slop) + ")";
  }

  // Over max_, a disjunction loses its last operands (fewer alternatives: a narrower query, not
  // another one), unless it is negated (NOT (a OR b) would exclude less).
  std::string disjunction(const Fts5Node& n) {
    std::vector<std::string> parts;
    size_t kept = 0, fits = clauses_;
    for (const auto& c : n.children) {
      parts.push_back(write(c));
      if (parts.size() == 1 || clauses_ <= max_ || !max_) kept = parts.size(), fits = clauses_;
    }
    if (max_ && clauses_ > max_) {
      if (negated_ || fits > max_) fail("more than " + std::to_string(max_) + " Lucene clauses");
      parts.resize(kept);  // mmkg's queries put the single words first, then the word pairs
      clauses_ = fits;
    }
    return group(parts, " OR ");
  }

  static std::string group(const std::vector<std::string>& parts, const char* op) {
    if (parts.size() == 1) return parts[0];
    std::string out = "(";
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? op : "") + parts[i];
    return out + ")";
  }

  std::string_view in_;
  const std::vector<LuceneField>& fields_;
  size_t max_ = 0;
  size_t clauses_ = 0;  ///< field phrases written so far
  int negated_ = 0;     ///< inside NOT's right operand
};

}  // namespace

std::string fts5_to_lucene(std::string_view match, const std::vector<LuceneField>& fields, size_t max_clauses) {
  Writer w(match, fields, max_clauses);
  std::optional<Fts5Node> tree;
  try {
    tree = parse_fts5_query(match);
  } catch (const Fts5SyntaxError& e) {
    w.fail(e.what());
  }
  return tree ? w.write_all(*tree) : "";
}

}  // namespace mmkg::graph
