#include "graph/stores/lucene_query.h"

#include <cstdio>

#include "core/error.h"

namespace mmkg::graph {

namespace {

// A recursive-descent reader of FTS5's query grammar (https://sqlite.org/fts5.html, section 3),
// precedence NOT > AND (explicit or implicit) > OR, writing the Lucene query as it reads.
class Translator {
 public:
  Translator(std::string_view in, const std::vector<LuceneField>& fields, size_t max_clauses)
      : in_(in), fields_(fields), max_(max_clauses) {}

  std::string run() {
    skip_space();
    if (pos_ == in_.size()) return "";
    std::string out = or_expr();
    skip_space();
    if (pos_ != in_.size()) fail(std::string("unexpected '") + in_[pos_] + "'");
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw UsageError("the full-text query `" + std::string(in_) + "` cannot be translated for Neo4j's full-text index (" +
                     what + " at character " + std::to_string(pos_ + 1) +
                     "); it takes quoted phrases, AND, OR, NOT, parentheses and NEAR(...): search without "
                     "--graph neo4j://... to use the store's FTS5 index");
  }

  void skip_space() {
    while (pos_ < in_.size() && (in_[pos_] == ' ' || in_[pos_] == '\t' || in_[pos_] == '\n' || in_[pos_] == '\r'))
      ++pos_;
  }

  static bool bare_char(char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           c == '\x1a';
  }

  // The bareword at pos_ (not consumed); empty if there is none.
  std::string_view peek_word() const {
    size_t e = pos_;
    while (e < in_.size() && bare_char(in_[e])) ++e;
    return in_.substr(pos_, e - pos_);
  }

  // True (and consumed) when the next token is the operator `op`.
  bool keyword(std::string_view op) {
    skip_space();
    if (peek_word() != op) return false;
    pos_ += op.size();
    return true;
  }

  bool at(char c) {
    skip_space();
    return pos_ < in_.size() && in_[pos_] == c;
  }

  // One string: "..." (a doubled quote is a quote) or a bareword.
  std::string string_token() {
    skip_space();
    if (pos_ >= in_.size()) fail("a phrase expected");
    if (in_[pos_] == '"') {
      std::string s;
      for (++pos_;; ++pos_) {
        if (pos_ >= in_.size()) fail("unterminated quote");
        if (in_[pos_] != '"') {
          s += in_[pos_];
        } else if (pos_ + 1 < in_.size() && in_[pos_ + 1] == '"') {
          s += '"';
          ++pos_;
        } else {
          ++pos_;
          return s;
        }
      }
    }
    std::string_view w = peek_word();
    if (w.empty()) fail(std::string("unexpected '") + in_[pos_] + "'");
    pos_ += w.size();
    return std::string(w);
  }

  // A phrase: strings joined by '+', then checked for what follows it that is not translated.
  std::string phrase_text() {
    std::string text = string_token();
    while (at('+')) {
      ++pos_;
      text += ' ';
      text += string_token();
    }
    skip_space();
    if (pos_ < in_.size() && (in_[pos_] == '*' || in_[pos_] == ':'))
      fail(in_[pos_] == '*' ? "a prefix query (*)" : "a column filter (:)");
    if (text.find_first_not_of(" \t") == std::string::npos) fail("an empty phrase");
    return text;
  }

  // A Lucene phrase, in every field when fields are given.
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

  // NEAR(phrase phrase ... [, N]) after the keyword.
  std::string near() {
    ++pos_;  // '('
    std::vector<std::string> phrases;
    int n = 10;  // FTS5's default distance
    for (;;) {
      if (at(')')) break;
      if (at(',')) {
        ++pos_;
        skip_space();
        size_t e = pos_;
        while (e < in_.size() && in_[e] >= '0' && in_[e] <= '9') ++e;
        if (e == pos_ || e - pos_ > 6) fail("a distance expected after ',' in NEAR");
        n = std::stoi(std::string(in_.substr(pos_, e - pos_)));
        pos_ = e;
        if (!at(')')) fail("')' expected after NEAR's distance");
        break;
      }
      if (pos_ >= in_.size()) fail("')' expected to close NEAR");
      phrases.push_back(phrase_text());
    }
    ++pos_;  // ')'
    if (phrases.empty()) fail("an empty NEAR");
    auto joined = [&](bool reversed) {
      std::string t;
      for (size_t i = 0; i < phrases.size(); ++i) t += (i ? " " : "") + phrases[reversed ? phrases.size() - 1 - i : i];
      return t;
    };
    if (phrases.size() == 1) return lucene_phrase(phrases[0]);
    const int slop = n * static_cast<int>(phrases.size() - 1);
    if (phrases.size() > 2) return lucene_phrase(joined(false), slop);
    return "(" + lucene_phrase(joined(false), slop) + " OR " + lucene_phrase(joined(true), slop) + ")";
  }

  std::string primary() {
    skip_space();
    if (pos_ >= in_.size()) fail("a phrase expected");
    const char c = in_[pos_];
    if (c == '(') {
      ++pos_;
      std::string inner = or_expr();
      if (!at(')')) fail("')' expected");
      ++pos_;
      return inner;
    }
    if (c == '^') fail("an initial-token query (^)");
    if (c == '-' || c == '{') fail("a column filter");
    if (peek_word() == "NEAR") {
      const size_t save = pos_;
      pos_ += 4;
      if (at('(')) return near();
      pos_ = save;
    }
    if (peek_word() == "AND" || peek_word() == "OR" || peek_word() == "NOT") fail("a phrase expected");
    return lucene_phrase(phrase_text());
  }

  std::string not_expr() {
    std::string left = primary();
    while (keyword("NOT")) {
      ++negated_;
      left = "(" + left + " AND NOT " + primary() + ")";
      --negated_;
    }
    return left;
  }

  // True when the next token can start an operand (an implicit AND follows).
  bool operand_follows() {
    skip_space();
    if (pos_ >= in_.size() || in_[pos_] == ')') return false;
    const std::string_view w = peek_word();
    return w != "OR" && w != "AND" && w != "NOT";
  }

  std::string and_expr() {
    std::vector<std::string> parts{not_expr()};
    for (;;) {
      if (keyword("AND") || operand_follows()) parts.push_back(not_expr());
      else break;
    }
    return group(parts, " AND ");
  }

  // Over max_, a disjunction loses its last operands (fewer alternatives: a narrower query, not
  // another one), unless it is negated (NOT (a OR b) would exclude less).
  std::string or_expr() {
    std::vector<std::string> parts{and_expr()};
    size_t kept = 1, fits = clauses_;
    while (keyword("OR")) {
      parts.push_back(and_expr());
      if (clauses_ <= max_ || !max_) kept = parts.size(), fits = clauses_;
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
  size_t pos_ = 0;
  size_t clauses_ = 0;  ///< field phrases written so far
  int negated_ = 0;     ///< inside NOT's right operand
};

}  // namespace

std::string fts5_to_lucene(std::string_view match, const std::vector<LuceneField>& fields, size_t max_clauses) {
  return Translator(match, fields, max_clauses).run();
}

}  // namespace mmkg::graph
