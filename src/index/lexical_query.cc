#include "index/lexical_query.h"

#include <cctype>
#include <cstdlib>

#include "text/words.h"

namespace mmkg {

namespace {

// A recursive-descent parser over the expression's bytes. FTS5 precedence: AND (explicit or by
// juxtaposition) binds tighter than OR.
class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}

  std::optional<LexNode> parse() {
    auto n = or_expr();
    skip_ws();
    if (!n || i_ != s_.size()) return std::nullopt;
    return n;
  }

 private:
  void skip_ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool keyword(const char* kw) {
    skip_ws();
    size_t n = std::char_traits<char>::length(kw);
    if (s_.compare(i_, n, kw) != 0) return false;
    size_t e = i_ + n;
    if (e < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[e])) || s_[e] == '_')) return false;
    i_ = e;
    return true;
  }
  bool peek(char c) {
    skip_ws();
    return i_ < s_.size() && s_[i_] == c;
  }

  static LexNode combine(LexNode::Kind kind, std::vector<LexNode> parts) {
    if (parts.size() == 1) return std::move(parts[0]);
    LexNode n;
    n.kind = kind;
    n.children = std::move(parts);
    return n;
  }

  std::optional<LexNode> or_expr() {
    std::vector<LexNode> parts;
    do {
      auto a = and_expr();
      if (!a) return std::nullopt;
      parts.push_back(std::move(*a));
    } while (keyword("OR"));
    return combine(LexNode::Kind::Or, std::move(parts));
  }

  std::optional<LexNode> and_expr() {
    std::vector<LexNode> parts;
    for (;;) {
      auto p = primary();
      if (!p) return std::nullopt;
      parts.push_back(std::move(*p));
      if (keyword("AND")) continue;
      skip_ws();
      // Juxtaposition is an implicit AND; anything else ends this operand.
      if (i_ < s_.size() && (s_[i_] == '"' || s_[i_] == '(' || s_.compare(i_, 4, "NEAR") == 0)) continue;
      break;
    }
    return combine(LexNode::Kind::And, std::move(parts));
  }

  std::optional<LexNode> primary() {
    skip_ws();
    if (i_ >= s_.size()) return std::nullopt;
    if (s_[i_] == '"') return phrase();
    if (s_[i_] == '(') {
      ++i_;
      auto n = or_expr();
      if (!n || !peek(')')) return std::nullopt;
      ++i_;
      return n;
    }
    if (keyword("NEAR")) return near();
    return std::nullopt;  // bare words, NOT, column filters, '^', '*', ...: not in the subset
  }

  std::optional<LexNode> phrase() {
    ++i_;  // opening quote
    std::string text;
    for (;;) {
      if (i_ >= s_.size()) return std::nullopt;
      if (s_[i_] == '"') {
        if (i_ + 1 < s_.size() && s_[i_ + 1] == '"') {
          text += '"';
          i_ += 2;
          continue;
        }
        ++i_;
        break;
      }
      text += s_[i_++];
    }
    if (i_ < s_.size() && s_[i_] == '*') return std::nullopt;  // prefix query
    LexNode n;
    n.words = words(text);
    if (n.words.empty()) return std::nullopt;
    for (auto& w : n.words) n.terms.push_back(stem(w));
    return n;
  }

  std::optional<LexNode> near() {
    if (!peek('(')) return std::nullopt;
    ++i_;
    LexNode n;
    n.kind = LexNode::Kind::Near;
    while (peek('"')) {
      auto p = phrase();
      if (!p) return std::nullopt;
      n.children.push_back(std::move(*p));
    }
    if (peek(',')) {
      ++i_;
      skip_ws();
      size_t start = i_;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      if (start == i_) return std::nullopt;
      n.near = std::atoi(s_.substr(start, i_ - start).c_str());
    }
    if (!peek(')') || n.children.empty()) return std::nullopt;
    ++i_;
    if (n.children.size() == 1) return std::move(n.children[0]);
    return n;
  }

  const std::string& s_;
  size_t i_ = 0;
};

}  // namespace

std::optional<LexNode> parse_lexical_query(const std::string& match) { return Parser(match).parse(); }

std::string to_string(const LexNode& n) {
  auto quoted = [](const LexNode& p) {
    std::string q = "\"";
    for (size_t i = 0; i < p.words.size(); ++i) q += (i ? " " : "") + p.words[i];
    return q + "\"";
  };
  switch (n.kind) {
    case LexNode::Kind::Phrase: return quoted(n);
    case LexNode::Kind::Near: {
      std::string s = "NEAR(";
      for (size_t i = 0; i < n.children.size(); ++i) s += (i ? " " : "") + quoted(n.children[i]);
      return s + ", " + std::to_string(n.near) + ")";
    }
    case LexNode::Kind::Or:
    case LexNode::Kind::And: {
      std::string s = "(";
      for (size_t i = 0; i < n.children.size(); ++i)
        s += (i ? (n.kind == LexNode::Kind::Or ? " OR " : " AND ") : "") + to_string(n.children[i]);
      return s + ")";
    }
  }
  return "";
}

}  // namespace mmkg
