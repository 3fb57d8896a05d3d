#include "text/fts5_query.h"

namespace mmkg {

namespace {

// A recursive-descent parser over the expression's bytes, one method per grammar rule.
class Parser {
 public:
  explicit Parser(std::string_view in) : in_(in) {}

  std::optional<Fts5Node> run() {
    skip_space();
    if (pos_ == in_.size()) return std::nullopt;
    Fts5Node out = or_expr();
    skip_space();
    if (pos_ != in_.size()) fail(std::string("unexpected '") + in_[pos_] + "'");
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw Fts5SyntaxError(what, pos_); }

  void skip_space() {
    while (pos_ < in_.size() && (in_[pos_] == ' ' || in_[pos_] == '\t' || in_[pos_] == '\n' || in_[pos_] == '\r'))
      ++pos_;
  }

  // FTS5's bareword characters: ASCII letters, digits, '_', the substitute character and any
  // byte of a non-ASCII UTF-8 sequence.
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

  // True (and consumed) when the next token is the operator `op` (operators are upper case).
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

  // A phrase: strings joined by '+', then checked for what may follow a phrase in FTS5 and is not
  // in the subset.
  Fts5Node phrase() {
    Fts5Node n;
    n.text = string_token();
    while (at('+')) {
      ++pos_;
      n.text += ' ';
      n.text += string_token();
    }
    skip_space();
    if (pos_ < in_.size() && (in_[pos_] == '*' || in_[pos_] == ':'))
      fail(in_[pos_] == '*' ? "a prefix query (*)" : "a column filter (:)");
    if (n.text.find_first_not_of(" \t") == std::string::npos) fail("an empty phrase");
    return n;
  }

  // NEAR(phrase phrase ... [, N]) after the keyword; NEAR of one phrase is that phrase.
  Fts5Node near() {
    ++pos_;  // '('
    Fts5Node n;
    n.kind = Fts5Node::Kind::Near;
    for (;;) {
      if (at(')')) break;
      if (at(',')) {
        ++pos_;
        skip_space();
        size_t e = pos_;
        while (e < in_.size() && in_[e] >= '0' && in_[e] <= '9') ++e;
        if (e == pos_ || e - pos_ > 6) fail("a distance expected after ',' in NEAR");
        n.near = std::stoi(std::string(in_.substr(pos_, e - pos_)));
        pos_ = e;
        if (!at(')')) fail("')' expected after NEAR's distance");
        break;
      }
      if (pos_ >= in_.size()) fail("')' expected to close NEAR");
      n.children.push_back(phrase());
    }
    if (n.children.empty()) fail("an empty NEAR");
    ++pos_;  // ')'
    if (n.children.size() == 1) return std::move(n.children[0]);
    return n;
  }

  Fts5Node primary() {
    skip_space();
    if (pos_ >= in_.size()) fail("a phrase expected");
    const char c = in_[pos_];
    if (c == '(') {
      ++pos_;
      Fts5Node inner = or_expr();
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
      pos_ = save;  // NEAR without '(' is a word
    }
    if (peek_word() == "AND" || peek_word() == "OR" || peek_word() == "NOT") fail("a phrase expected");
    return phrase();
  }

  Fts5Node not_expr() {
    Fts5Node left = primary();
    while (keyword("NOT")) {
      Fts5Node n;
      n.kind = Fts5Node::Kind::Not;
      n.children.push_back(std::move(left));
      n.children.push_back(primary());
      left = std::move(n);
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

  Fts5Node and_expr() {
    std::vector<Fts5Node> parts;
    parts.push_back(not_expr());
    while (keyword("AND") || operand_follows()) parts.push_back(not_expr());
    return group(Fts5Node::Kind::And, std::move(parts));
  }

  Fts5Node or_expr() {
    std::vector<Fts5Node> parts;
    parts.push_back(and_expr());
    while (keyword("OR")) parts.push_back(and_expr());
    return group(Fts5Node::Kind::Or, std::move(parts));
  }

  static Fts5Node group(Fts5Node::Kind kind, std::vector<Fts5Node> parts) {
    if (parts.size() == 1) return std::move(parts[0]);
    Fts5Node n;
    n.kind = kind;
    n.children = std::move(parts);
    return n;
  }

  std::string_view in_;
  size_t pos_ = 0;
};

}  // namespace

std::optional<Fts5Node> parse_fts5_query(std::string_view match) { return Parser(match).run(); }

}  // namespace mmkg
