#include "index/lexical_query.h"

#include "text/fts5_query.h"
#include "text/words.h"

namespace mmkg {

namespace {

// The parsed expression with its phrases tokenised and stemmed as the index stores them; nullopt
// for a phrase with no words (FTS5 then decides what it means).
std::optional<LexNode> analyse(const Fts5Node& f) {
  LexNode n;
  switch (f.kind) {
    case Fts5Node::Kind::Phrase:
      n.kind = LexNode::Kind::Phrase;
      n.words = words(f.text);
      if (n.words.empty()) return std::nullopt;
      for (auto& w : n.words) n.terms.push_back(stem(w));
      return n;
    case Fts5Node::Kind::And: n.kind = LexNode::Kind::And; break;
    case Fts5Node::Kind::Or: n.kind = LexNode::Kind::Or; break;
    case Fts5Node::Kind::Not: n.kind = LexNode::Kind::Not; break;
    case Fts5Node::Kind::Near:
      n.kind = LexNode::Kind::Near;
      n.near = f.near;
      break;
  }
  for (const auto& c : f.children) {
    auto a = analyse(c);
    if (!a) return std::nullopt;
    n.children.push_back(std::move(*a));
  }
  return n;
}

}  // namespace

std::optional<LexNode> parse_lexical_query(const std::string& match) {
  try {
    auto tree = parse_fts5_query(match);
    return tree ? analyse(*tree) : std::nullopt;
  } catch (const Fts5SyntaxError&) {
    return std::nullopt;  // outside the subset: FTS5 itself answers (or reports the error)
  }
}

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
    case LexNode::Kind::And:
    case LexNode::Kind::Not: {
      const char* op = n.kind == LexNode::Kind::Or ? " OR " : n.kind == LexNode::Kind::And ? " AND " : " NOT ";
      std::string s = "(";
      for (size_t i = 0; i < n.children.size(); ++i) s += (i ? op : "") + to_string(n.children[i]);
      return s + ")";
    }
  }
  return "";
}

}  // namespace mmkg
