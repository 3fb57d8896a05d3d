#include "text/common_words.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>


namespace mmkg::graph::rules {
namespace {

std::string write_fixture() {
  auto path = std::filesystem::temp_directory_path() / "mmkg_common_words_test_cntlist.rev";
  std::ofstream out(path);
  // lemma%sense_key sense_number tag_count; senses of one lemma are summed
  out << "result%1:19:00:: 1 150\nresult%1:10:00:: 2 65\napproach%1:04:02:: 1 113\n"
         "transformer%1:06:00:: 1 1\nmulti_head%1:06:00:: 1 500\nbad line\n";
  return path.string();
}

TEST(CommonWords, SumsSensesAndFindsPluralLemmas) {
  CommonWords cw(write_fixture());
  ASSERT_TRUE(cw.loaded());
  EXPECT_EQ(cw.count("result"), 215);
  EXPECT_EQ(cw.count("results"), 215);  // the plural finds its lemma
  EXPECT_EQ(cw.count("multi_head"), 0);  // multi-word lemmas are not single words
  EXPECT_EQ(cw.count("attention"), 0);
  // fewer lemmas than kCommonRank: every listed word is among the most frequent
  EXPECT_TRUE(cw.common("approach"));
  EXPECT_TRUE(cw.common("transformer"));
  EXPECT_FALSE(cw.common("flashattention"));
}

TEST(CommonWords, DomainWordsAreThoseGeneralEnglishDoesNotUse) {
  const CommonWords& cw = CommonWords::get();
  if (!cw.loaded()) GTEST_SKIP() << "wordnet-base not installed";
  for (const char* w : {"softmax", "mgcv", "eigenvalues", "heteroscedastic"}) EXPECT_TRUE(cw.domain(w)) << w;
  for (const char* w : {"results", "reasoned", "leaving", "theoretical", "innovative"})
    EXPECT_FALSE(cw.domain(w)) << w << " " << cw.count(w);
}

TEST(CommonWords, MissingFileFiltersNothing) {
  CommonWords cw("/nonexistent/cntlist.rev");
  EXPECT_FALSE(cw.loaded());
  EXPECT_FALSE(cw.common("results"));
  EXPECT_FALSE(cw.domain("softmax"));
  EXPECT_EQ(cw.count("results"), 0);
}

// The installed WordNet list (wordnet-base): words of any academic text are common, domain terms
// are not. Skipped when the package is absent.
TEST(CommonWords, InstalledListSeparatesAcademicEnglishFromDomainTerms) {
  const CommonWords& cw = CommonWords::get();
  if (!cw.loaded()) GTEST_SKIP() << "wordnet-base not installed";
  for (const char* w : {"results", "approach", "performance", "information", "methods", "model", "ability"})
    EXPECT_TRUE(cw.common(w)) << w;
  for (const char* w : {"transformer", "embedding", "regression", "variance", "encoder", "tokenizer", "heteroscedasticity"})
    EXPECT_FALSE(cw.common(w)) << w;
}

}  // namespace
}  // namespace mmkg::graph::rules
