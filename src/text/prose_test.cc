#include "text/prose.h"

#include <gtest/gtest.h>

namespace mmkg {
namespace {

TEST(Prose, CodeIsNotProse) {
  EXPECT_TRUE(looks_like_code("R> fit <- lm(dist ~ speed, data = cars)"));
  EXPECT_TRUE(looks_like_code("$ make install PREFIX=/usr"));
  EXPECT_TRUE(looks_like_code(">>> model.fit(x, y)"));
  EXPECT_TRUE(looks_like_code("x = f(a[i], b[j]); y = g(x);"));
  EXPECT_TRUE(looks_like_code("summary(fit) <- update(fit, . ~ . - x)"));
}

TEST(Prose, ProseThatMentionsCodeIsProse) {
  EXPECT_FALSE(looks_like_code("The function coeftest() computes z tests for the coefficients of a fitted model."));
  EXPECT_FALSE(looks_like_code("The lid is held by twelve bolts (see Figure 2)."));
  EXPECT_FALSE(looks_like_code("A ratio of 2.4 means the risk more than doubles."));
}

TEST(Prose, TitlesAndEquationFragmentsAreNotStatements) {
  EXPECT_TRUE(not_a_statement("6.5.1 FP16/FP32 Mixed Precision 32"));
  EXPECT_TRUE(not_a_statement("where \\mathbf{S} is the scaled score matrix."));
  EXPECT_TRUE(not_a_statement("where S is the scaled score matrix."));
  EXPECT_FALSE(not_a_statement("The loss is multiplied by a constant such as 1024 before the backward pass."));
  EXPECT_FALSE(not_a_statement("Where the lid is loose, tighten it."));
}

}  // namespace
}  // namespace mmkg
