#include "agents/quote.h"

#include <gtest/gtest.h>

namespace mmkg {
namespace {

Citation passage() {
  Citation c;
  c.text = "Attention weighs inputs.  It was proposed in 2014.\nLater work scaled it. Transformers use it everywhere.";
  return c;
}

TEST(Quote, AdjacentSentencesStayOneVerbatimSpan) {
  Citation c = passage();
  add_quote(c, "Attention weighs inputs.");
  add_quote(c, "It was proposed in 2014.");
  EXPECT_EQ(c.quote, "Attention weighs inputs. It was proposed in 2014.");
}

TEST(Quote, SentencesApartAreJoinedWithAnEllipsisAndEachPartIsVerbatim) {
  Citation c = passage();
  add_quote(c, "Attention weighs inputs.");
  add_quote(c, "Transformers use it everywhere.");
  EXPECT_EQ(c.quote, "Attention weighs inputs. … Transformers use it everywhere.");
  // One before the last part in the chunk does not continue it either.
  add_quote(c, "Later work scaled it.");
  EXPECT_EQ(c.quote, "Attention weighs inputs. … Transformers use it everywhere. … Later work scaled it.");
}

TEST(Quote, ContinuesTheLastPartWhenAdjacentToIt) {
  Citation c = passage();
  add_quote(c, "Attention weighs inputs.");
  add_quote(c, "Later work scaled it.");
  add_quote(c, "Transformers use it everywhere.");
  EXPECT_EQ(c.quote, "Attention weighs inputs. … Later work scaled it. Transformers use it everywhere.");
}

TEST(Quote, RepeatsAndEmptySentencesAreNotAdded) {
  Citation c = passage();
  add_quote(c, "");
  EXPECT_EQ(c.quote, "");
  add_quote(c, "It was  proposed in 2014.");
  add_quote(c, "It was proposed in 2014.");
  EXPECT_EQ(c.quote, "It was proposed in 2014.");
}

}  // namespace
}  // namespace mmkg
