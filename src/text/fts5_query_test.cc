#include "text/fts5_query.h"

#include <gtest/gtest.h>

namespace mmkg {
namespace {

// The tree written back compactly: P"text", (AND ...), (OR ...), (NOT a b), NEAR/N(...).
std::string show(const Fts5Node& n) {
  std::string s;
  switch (n.kind) {
    case Fts5Node::Kind::Phrase: return "P\"" + n.text + "\"";
    case Fts5Node::Kind::And: s = "(AND"; break;
    case Fts5Node::Kind::Or: s = "(OR"; break;
    case Fts5Node::Kind::Not: s = "(NOT"; break;
    case Fts5Node::Kind::Near: s = "(NEAR/" + std::to_string(n.near); break;
  }
  for (const auto& c : n.children) s += " " + show(c);
  return s + ")";
}

std::string parsed(const char* q) {
  auto t = parse_fts5_query(q);
  return t ? show(*t) : "<empty>";
}

TEST(Fts5Query, PhrasesStringsAndJoins) {
  EXPECT_EQ(parsed(""), "<empty>");
  EXPECT_EQ(parsed(" \t\n"), "<empty>");
  EXPECT_EQ(parsed("\"multi head\""), "P\"multi head\"");
  EXPECT_EQ(parsed("attention"), "P\"attention\"");
  EXPECT_EQ(parsed("\"say \"\"hi\"\"\""), "P\"say \"hi\"\"") << "a doubled quote is a quote";
  EXPECT_EQ(parsed("\"a\" + \"b\" + c"), "P\"a b c\"") << "FTS5's phrase join";
  EXPECT_EQ(parsed("café"), "P\"café\"") << "non-ASCII bareword";
  EXPECT_EQ(parsed("\"AND\""), "P\"AND\"") << "a quoted keyword is a word";
  EXPECT_EQ(parsed("\"c++ (x) a:b *\""), "P\"c++ (x) a:b *\"") << "syntax inside quotes is text";
}

TEST(Fts5Query, PrecedenceIsNotThenAndThenOr) {
  EXPECT_EQ(parsed("a b OR c"), "(OR (AND P\"a\" P\"b\") P\"c\")") << "juxtaposition is AND";
  EXPECT_EQ(parsed("a OR b AND c"), "(OR P\"a\" (AND P\"b\" P\"c\"))");
  EXPECT_EQ(parsed("a AND b NOT c"), "(AND P\"a\" (NOT P\"b\" P\"c\"))");
  EXPECT_EQ(parsed("a NOT b NOT c"), "(NOT (NOT P\"a\" P\"b\") P\"c\")") << "left-associative";
  EXPECT_EQ(parsed("(a OR b) NOT (c OR d)"), "(NOT (OR P\"a\" P\"b\") (OR P\"c\" P\"d\"))");
  EXPECT_EQ(parsed("((a))"), "P\"a\"");
  EXPECT_EQ(parsed("a OR b OR c"), "(OR P\"a\" P\"b\" P\"c\")") << "flat";
  EXPECT_EQ(parsed("or and"), "(AND P\"or\" P\"and\")") << "operators are upper case";
}

TEST(Fts5Query, Near) {
  EXPECT_EQ(parsed("NEAR(\"attention\" \"is\", 2)"), "(NEAR/2 P\"attention\" P\"is\")");
  EXPECT_EQ(parsed("NEAR(a b)"), "(NEAR/10 P\"a\" P\"b\")") << "FTS5's default distance";
  EXPECT_EQ(parsed("NEAR(a)"), "P\"a\"");
  EXPECT_EQ(parsed("NEAR OR near"), "(OR P\"NEAR\" P\"near\")") << "NEAR without '(' is a word";
  EXPECT_EQ(parsed("x NEAR(a b, 1)"), "(AND P\"x\" (NEAR/1 P\"a\" P\"b\"))");
}

TEST(Fts5Query, OutsideTheSubsetSaysWhatAndWhere) {
  struct Case {
    const char* q;
    const char* reason;
    size_t pos;
  };
  for (const Case& c : std::initializer_list<Case>{{"heading_path: \"x\"", "a column filter (:)", 12},
                                                   {"{a b}: x", "a column filter", 0},
                                                   {"- a: x", "a column filter", 0},
                                                   {"\"pre\"*", "a prefix query (*)", 5},
                                                   {"^start", "an initial-token query (^)", 0},
                                                   {"\"open", "unterminated quote", 5},
                                                   {"(a OR b", "')' expected", 7},
                                                   {"a OR", "a phrase expected", 4},
                                                   {"AND a", "a phrase expected", 0},
                                                   {"a )", "unexpected ')'", 2},
                                                   {"NEAR(a b, x)", "a distance expected after ',' in NEAR", 10},
                                                   {"NEAR()", "an empty NEAR", 5},
                                                   {"\"\"", "an empty phrase", 2},
                                                   {"a , b", "unexpected ','", 2}}) {
    try {
      parse_fts5_query(c.q);
      ADD_FAILURE() << "accepted: " << c.q;
    } catch (const Fts5SyntaxError& e) {
      EXPECT_EQ(e.reason(), c.reason) << c.q;
      EXPECT_EQ(e.pos(), c.pos) << c.q;
      EXPECT_NE(std::string(e.what()).find("at character " + std::to_string(c.pos + 1)), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace mmkg
