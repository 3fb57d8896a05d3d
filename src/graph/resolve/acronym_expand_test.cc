// The corpus's undefined acronyms written into a question: which phrases spell an acronym, where
// the note goes, and what is left alone.
#include "graph/resolve/acronym_expand.h"

#include <gtest/gtest.h>

namespace mmkg::graph {
namespace {

Entity acronym_entity(std::vector<std::string> aliases) {
  Entity e;
  e.name = aliases.front();
  e.aliases = std::move(aliases);
  return e;
}

TEST(SpelledByPrefixes, EachWordGivesAPrefixOfItself) {
  EXPECT_TRUE(spelled_by_prefixes("CUSUM", {"cumulative", "sum"}));
  EXPECT_TRUE(spelled_by_prefixes("CUSUM", {"cumulative", "sums"}));
  EXPECT_TRUE(spelled_by_prefixes("MOSUM", {"moving", "sums"}));
  EXPECT_TRUE(spelled_by_prefixes("ANOVA", {"analysis", "of", "variance"}));
  EXPECT_TRUE(spelled_by_prefixes("OLS", {"ordinary", "least", "squares"}));
  // Every word gives a letter, and every letter is used.
  EXPECT_FALSE(spelled_by_prefixes("CUSUM", {"cumulative"}));
  EXPECT_FALSE(spelled_by_prefixes("CUSUM", {"cumulative", "sum", "tests"}));
  EXPECT_FALSE(spelled_by_prefixes("CUSUM", {"cumulative", "total"}));
  // The second S of SAS would have to open a prefix of "analysis".
  EXPECT_FALSE(spelled_by_prefixes("SAS", {"survival", "analysis"}));
  // Under five letters, initials only: "sa" + "s", "ma" + "s" + "s" spell by chance.
  EXPECT_FALSE(spelled_by_prefixes("SAS", {"sandwich", "standard"}));
  EXPECT_FALSE(spelled_by_prefixes("MASS", {"maximum", "statistic", "shading"}));
  // A phrase neither opens nor ends with a function word.
  EXPECT_FALSE(spelled_by_prefixes("USA", {"us", "a"}));
  EXPECT_FALSE(spelled_by_prefixes("TOLS", {"the", "ordinary", "least", "squares"}));
}

TEST(AcronymExpander, WritesAnUndefinedAcronymAfterThePhraseThatSpellsIt) {
  AcronymExpander x({acronym_entity({"CUSUM test", "CUSUM tests"}), acronym_entity({"CUSUM"}),
                     acronym_entity({"MOSUM"}), acronym_entity({"cumulative incidence"})});
  EXPECT_EQ(x.undefined(), 2u);  // CUSUM and MOSUM; "CUSUM test" is not an acronym
  EXPECT_EQ(x.expand("Why do cumulative-sum tests use linear boundaries?"),
            "Why do cumulative-sum (CUSUM) tests use linear boundaries?");
  EXPECT_EQ(x.expand("what is a cumulative sum?"), "what is a cumulative sum (CUSUM)?");
  EXPECT_EQ(x.expand("Compare cumulative sums and moving sums."),
            "Compare cumulative sums (CUSUM) and moving sums (MOSUM).");
  // Already there, or nothing spells it: unchanged.
  EXPECT_EQ(x.expand("What does the CUSUM test of cumulative sums show?"),
            "What does the CUSUM test of cumulative sums show?");
  EXPECT_EQ(x.expand("What is the cumulative incidence?"), "What is the cumulative incidence?");
  EXPECT_EQ(AcronymExpander().expand("cumulative sum"), "cumulative sum");
}

TEST(AcronymExpander, LeavesDefinedAndShortAcronymsAlone) {
  // HAC is defined in the text (an alias it abbreviates); OLS is too short to infer.
  AcronymExpander x({acronym_entity({"heteroskedasticity and autocorrelation consistent", "HAC"}),
                     acronym_entity({"OLS"}), acronym_entity({"HAC"})});
  EXPECT_TRUE(x.empty());
  EXPECT_EQ(x.expand("Which HAC estimators use ordinary least squares?"),
            "Which HAC estimators use ordinary least squares?");
  EXPECT_EQ(x.expand("heteroskedasticity and autocorrelation consistent covariances"),
            "heteroskedasticity and autocorrelation consistent covariances");
}

}  // namespace
}  // namespace mmkg::graph
