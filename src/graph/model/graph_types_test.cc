#include "graph/model/graph_types.h"

#include <gtest/gtest.h>

#include "text/lexicon.h"

namespace mmkg::graph {
namespace {

TEST(NameKey, FoldsCaseHyphensSpacingPluralsAndAccents) {
  EXPECT_EQ(name_key("Multi-Head Attention"), "multi head attention");
  EXPECT_EQ(name_key("multi-head  attentions"), "multi head attention");
  EXPECT_EQ(name_key("Multi_Head/Attention"), "multi head attention");
  EXPECT_EQ(name_key("LLMs"), "llm");
  EXPECT_EQ(name_key("Transformers"), "transformer");
  EXPECT_EQ(name_key("queries"), "query");
  EXPECT_EQ(name_key("Vaswani's"), "vaswani");
  EXPECT_EQ(name_key("Vaswani’s model"), "vaswani model");
  EXPECT_EQ(name_key("Café Théorie"), "cafe theorie");
  EXPECT_EQ(name_key("  "), "");
  // not plurals
  EXPECT_EQ(name_key("attention bias"), "attention bias");
  EXPECT_EQ(name_key("corpus"), "corpus");
  EXPECT_EQ(name_key("analysis"), "analysis");
  // distinct things keep distinct keys
  EXPECT_NE(name_key("attention"), name_key("attention sink"));
}

TEST(SectionHeading, DropsSectionNumbersNotNumbersThatStartATitle) {
  EXPECT_EQ(section_heading("Commands > 3.2 set terminal"), "set terminal");
  EXPECT_EQ(section_heading("Commands > 3 set terminal"), "set terminal");
  EXPECT_EQ(section_heading("4. Results"), "Results");
  EXPECT_EQ(section_heading("2.1.3  Linear   models"), "Linear models");
  EXPECT_EQ(section_heading("3 Dots"), "3 Dots");
  EXPECT_EQ(section_heading("45 Calibre Echo"), "45 Calibre Echo");
  EXPECT_EQ(section_heading("1984"), "1984");
  EXPECT_EQ(section_heading(""), "");
}

TEST(Lexicon, WordNetIsInstalledAndAnswers) {
  const Lexicon& lex = Lexicon::get();
  ASSERT_TRUE(lex.loaded()) << "WordNet not found in /usr/share/wordnet; run `make setup` (wordnet-base)";
  EXPECT_TRUE(lex.is_noun("attention"));
  EXPECT_TRUE(lex.is_noun("neural network"));
  EXPECT_TRUE(lex.is_verb("compute"));
  EXPECT_TRUE(lex.is_adj("scalable"));
  EXPECT_EQ(lex.singular("matrices"), "matrix");
  EXPECT_EQ(lex.singular("series"), "series");
  EXPECT_EQ(lex.singular("heads"), "head");
  EXPECT_EQ(lex.singular("boxes"), "box");
}

}  // namespace
}  // namespace mmkg::graph
