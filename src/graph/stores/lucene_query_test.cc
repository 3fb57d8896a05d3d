#include "graph/stores/lucene_query.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace mmkg::graph {
namespace {

TEST(Fts5ToLucene, QuotedTermsAndPhrasesOrEdAsFts5QueryWritesThem) {
  EXPECT_EQ(fts5_to_lucene(""), "");
  EXPECT_EQ(fts5_to_lucene("   "), "");
  EXPECT_EQ(fts5_to_lucene("\"attention\""), "\"attention\"");
  EXPECT_EQ(fts5_to_lucene("\"multi\" OR \"head\" OR \"multi head\""), "(\"multi\" OR \"head\" OR \"multi head\")");
  EXPECT_EQ(fts5_to_lucene("attention"), "\"attention\"") << "a bareword is quoted too";
  EXPECT_EQ(fts5_to_lucene("\"a\" + \"b\" + c"), "\"a b c\"") << "FTS5's phrase join";
}

TEST(Fts5ToLucene, LuceneSyntaxInsideTermsStaysText) {
  // Quoted, Lucene's operators and special characters are text for the analyzer; only the quote
  // and the backslash need escaping inside a Lucene phrase.
  EXPECT_EQ(fts5_to_lucene("\"c++ (x) [y] {z} ^2 ~1 a:b * ? ! / -n && ||\""),
            "\"c++ (x) [y] {z} ^2 ~1 a:b * ? ! / -n && ||\"");
  EXPECT_EQ(fts5_to_lucene("\"say \"\"hi\"\"\""), "\"say \\\"hi\\\"\"") << "FTS5's doubled quote";
  EXPECT_EQ(fts5_to_lucene("\"a\\b\""), "\"a\\\\b\"");
  EXPECT_EQ(fts5_to_lucene("\"AND\" OR \"NOT\" OR \"or\""), "(\"AND\" OR \"NOT\" OR \"or\")")
      << "quoted keywords are words";
  EXPECT_EQ(fts5_to_lucene("\"café\" OR naïve"), "(\"café\" OR \"naïve\")") << "UTF-8 barewords";
}

TEST(Fts5ToLucene, AndOrNotAndParenthesesKeepFts5Precedence) {
  // The planner's follow-up query: a gap term AND the question's terms.
  EXPECT_EQ(fts5_to_lucene("\"g\" AND (\"a\" OR \"b c\")"), "(\"g\" AND (\"a\" OR \"b c\"))");
  // Implicit AND; AND binds tighter than OR; NOT tighter than AND.
  EXPECT_EQ(fts5_to_lucene("a b OR c"), "((\"a\" AND \"b\") OR \"c\")");
  EXPECT_EQ(fts5_to_lucene("a OR b AND c"), "(\"a\" OR (\"b\" AND \"c\"))");
  EXPECT_EQ(fts5_to_lucene("a AND b NOT c"), "(\"a\" AND (\"b\" AND NOT \"c\"))");
  EXPECT_EQ(fts5_to_lucene("(a OR b) NOT (c OR d)"), "((\"a\" OR \"b\") AND NOT (\"c\" OR \"d\"))");
  EXPECT_EQ(fts5_to_lucene("((a))"), "\"a\"");
}

TEST(Fts5ToLucene, NearBecomesSloppyPhrasesInBothOrders) {
  EXPECT_EQ(fts5_to_lucene("NEAR(\"attention\" \"is\", 2)"), "(\"attention is\"~2 OR \"is attention\"~2)");
  EXPECT_EQ(fts5_to_lucene("NEAR(\"multi head\" \"is\", 2)"), "(\"multi head is\"~2 OR \"is multi head\"~2)");
  EXPECT_EQ(fts5_to_lucene("NEAR(a b)"), "(\"a b\"~10 OR \"b a\"~10)") << "FTS5's default distance";
  EXPECT_EQ(fts5_to_lucene("NEAR(a b c, 3)"), "\"a b c\"~6") << "more than two: in order, a gap each";
  EXPECT_EQ(fts5_to_lucene("NEAR(a)"), "\"a\"");
  // The planner's definition query.
  EXPECT_EQ(fts5_to_lucene("NEAR(\"x\" \"is\", 2) OR NEAR(\"x\" \"means\", 2)"),
            "((\"x is\"~2 OR \"is x\"~2) OR (\"x means\"~2 OR \"means x\"~2))");
  EXPECT_EQ(fts5_to_lucene("NEAR OR near"), "(\"NEAR\" OR \"near\")") << "NEAR without '(' is a word";
}

TEST(Fts5ToLucene, FieldsSpreadEveryPhraseWithItsBoost) {
  const std::vector<LuceneField> f = {{"heading_path", 2.0}, {"text", 1.0}, {"context", 0.5}};
  EXPECT_EQ(fts5_to_lucene("\"a b\"", f), "(heading_path:\"a b\"^2 OR text:\"a b\" OR context:\"a b\"^0.5)");
  EXPECT_EQ(fts5_to_lucene("x AND y", {{"t", 1.0}}), "((t:\"x\") AND (t:\"y\"))")
      << "a conjunction spans the fields: each side may match in another";
  EXPECT_EQ(fts5_to_lucene("NEAR(x y, 1)", {{"t", 3.0}}), "((t:\"x y\"~1^3) OR (t:\"y x\"~1^3))");
}

TEST(Fts5ToLucene, AQueryOverTheClauseCapLosesItsLastAlternatives) {
  const std::vector<LuceneField> two = {{"a", 1.0}, {"b", 1.0}};
  EXPECT_EQ(fts5_to_lucene("x OR y OR z", two, 4), "((a:\"x\" OR b:\"x\") OR (a:\"y\" OR b:\"y\"))");
  EXPECT_EQ(fts5_to_lucene("x OR y OR z", {}, 1), "\"x\"");
  EXPECT_EQ(fts5_to_lucene("g AND (x OR y OR z)", {}, 3), "(\"g\" AND (\"x\" OR \"y\"))");
  EXPECT_EQ(fts5_to_lucene("x OR y OR z", {}, 3), "(\"x\" OR \"y\" OR \"z\")") << "at the cap";
  EXPECT_THROW(fts5_to_lucene("x AND y AND z", {}, 2), UsageError) << "a conjunction cannot be cut";
  EXPECT_THROW(fts5_to_lucene("g NOT (x OR y)", {}, 2), UsageError) << "nor a negated disjunction";
  EXPECT_THROW(fts5_to_lucene("x OR y", two, 1), UsageError) << "nor its first operand";
}

TEST(Fts5ToLucene, SyntaxOutsideTheSubsetIsRefusedWithWhatToDo) {
  for (const char* bad : {"heading_path: \"x\"", "{a b}: x", "- a: x", "\"pre\"*", "pre*", "^start", "\"open",
                          "(a OR b", "a OR", "AND a", "a )", "NEAR(a b, x)", "NEAR(a b", "NEAR()", "\"\"",
                          "a , b", "a = b"}) {
    try {
      fts5_to_lucene(bad);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const UsageError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(bad), std::string::npos) << m;
      EXPECT_NE(m.find("without --graph neo4j"), std::string::npos) << m;
    }
  }
}

}  // namespace
}  // namespace mmkg::graph
