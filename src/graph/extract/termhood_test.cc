// Termhood (rank_terms) with the installed list of common English words (text/common_words.h):
// common heads and one-off phrases of common words are not terms.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "support/extract_fixtures.h"
#include "graph/extract/rules.h"
#include "text/common_words.h"

namespace mmkg::graph::rules {
namespace {

// The name keys rank_terms keeps of a document of these chunks (every word's idf high).
std::set<std::string> kept_keys(const std::vector<std::string>& chunks) {
  return mmkg::testing::kept_term_keys(chunks, [](const std::string&) { return 3.0; });
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
