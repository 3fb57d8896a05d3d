#include "text/definition.h"

#include <gtest/gtest.h>

namespace mmkg {
namespace {

TEST(Definition, RecognisesDefinitionQuestions) {
  EXPECT_EQ(definition_target("what is attention?"), "attention");
  EXPECT_EQ(definition_target("What are the attention sinks?"), "attention sinks");
  EXPECT_EQ(definition_target("Define multi-head attention"), "multi head attention");
  EXPECT_EQ(definition_target("What does MHA stand for?"), "mha");
  EXPECT_EQ(definition_target("What is meant by an attention head?"), "attention head");
  EXPECT_EQ(definition_target("How does attention work?"), "");
  EXPECT_EQ(definition_target("What is the point of applying dropout to the attention weight matrix after the softmax?"), "")
      << "a long clause is not a term to define";
}

TEST(Definition, ScoresDefiningSentences) {
  auto x = definiendum_stems("attention");
  EXPECT_EQ(definition_strength(x, "Attention is a method that weighs inputs."), 1.0);
  EXPECT_EQ(definition_strength(x, "The attention mechanism is a neural network component."), 1.0);
  EXPECT_EQ(definition_strength(x, "In machine learning, attention is a method."), 0.3);
  EXPECT_EQ(definition_strength(x, "A dynamic attention module is proposed."), 0.3);
  EXPECT_EQ(definition_strength(x, "We study recurrent networks."), 0.0);
  EXPECT_EQ(best_definition_strength(x, "# Attention is a heading\n\nNothing here. Attention is all you need."), 1.0);
}

}  // namespace
}  // namespace mmkg
