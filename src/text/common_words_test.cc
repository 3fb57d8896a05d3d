#include "text/common_words.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "graph/model/extractor.h"
#include "graph/model/graph_types.h"
#include "support/extract_fixtures.h"

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

// The name keys rank_terms keeps of a document of these chunks (every word's idf high).
std::set<std::string> kept_keys(const std::vector<std::string>& chunks) {
  return testing::kept_term_keys(chunks, [](const std::string&) { return 3.0; });
}

// Termhood: a common word heading many kept phrases ("experimental results", "simulation
// results" ...) is still no entity alone; a common word the text defines and builds on
// ("attention") is; a domain word is kept as before.
TEST(CommonWords, RankTermsDropsCommonHeadsUnlessDefined) {
  if (!CommonWords::get().loaded()) GTEST_SKIP() << "wordnet-base not installed";
  const std::vector<std::string> chunks = {
      "Attention is a mechanism that weights the tokens of a sequence. Sparse attention and linear attention "
      "reduce its cost. The results show it. Experimental results and simulation results agree.",
      "Multi-head attention runs attention in parallel. The results of the benchmark results table hold. "
      "Empirical results confirm the results. Heteroscedasticity affects the variance estimates.",
      "Sparse attention and linear attention use attention. Multi-head attention helps. The results improve. "
      "Heteroscedasticity is handled by weighted least squares. Heteroscedasticity remains.",
  };
  std::set<std::string> kept = kept_keys(chunks);
  EXPECT_FALSE(kept.count("result"));
  EXPECT_TRUE(kept.count("attention"));  // defined, and heads sparse/linear/multi-head attention
  EXPECT_TRUE(kept.count("sparse attention"));
  EXPECT_TRUE(kept.count("heteroscedasticity"));
}

// A phrase of common words seen once is a free combination, not a term; seen again, or with a
// domain word, it stays.
TEST(CommonWords, RankTermsDropsOneOffPhrasesOfCommonWords) {
  if (!CommonWords::get().loaded()) GTEST_SKIP() << "wordnet-base not installed";
  const std::vector<std::string> chunks = {
      "The available resources limit the heteroscedastic regression. The time frame is short.",
      "We report the time frame of the heteroscedastic regression, a mathematical analogue.",
  };
  std::set<std::string> kept = kept_keys(chunks);
  EXPECT_FALSE(kept.count("available resource"));
  EXPECT_FALSE(kept.count("mathematical analogue"));  // seen once, no domain word (not all common)
  std::string all;
  for (const auto& k : kept) all += k + "; ";
  EXPECT_TRUE(CommonWords::get().common("time") && CommonWords::get().common("frame"));
  EXPECT_TRUE(kept.count("time frame")) << all;  // common words, but used twice
  EXPECT_TRUE(kept.count("heteroscedastic regression"));
}

}  // namespace
}  // namespace mmkg::graph::rules
