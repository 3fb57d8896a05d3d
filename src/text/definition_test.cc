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

TEST(Definition, TargetOfHedgedAndTrailedQuestions) {
  EXPECT_EQ(definition_target("What exactly is a torque wrench?"), "torque wrench");
  EXPECT_EQ(definition_target("What is the Rankine cycle, in a nutshell?"), "rankine cycle");
}

TEST(Definition, DefiniendumMatchesByItsHead) {
  Definiendum d("the rankine cycle for steam turbines");
  EXPECT_GT(d.grade("The Rankine cycle is a model that describes steam engines."), 0.8);
  EXPECT_EQ(Definiendum("").grade("The Rankine cycle is a model."), 0.0);
  EXPECT_TRUE(Definiendum("").empty());
}

TEST(Definition, BestGradeOfAPassage) {
  Definiendum d("torque");
  EXPECT_DOUBLE_EQ(best_definition_grade(d, "# Torque is a heading\n\nTorque is a twisting force that turns a shaft."), 1.0);
  EXPECT_LT(best_definition_grade(d, "Torque is a central quantity behind engines. Torque matters."), 1.0);
  EXPECT_EQ(best_definition_grade(d, "# Torque is a heading"), 0.0);
}

TEST(Definition, GradesTheFormOfTheDefinition) {
  auto x = definiendum_stems("torque");
  const double full = definition_grade(x, "Torque is a rotational force that turns a shaft about its axis.");
  const double genus = definition_grade(x, "Torque is a central quantity behind every engine design.");
  const double about = definition_grade(x, "Torque is seen in every engine and gearbox.");
  const double later = definition_grade(x, "Engineers say that high torque is a sign of a strong engine.");
  EXPECT_DOUBLE_EQ(full, 1.0) << "copula, genus and a relative clause";
  EXPECT_GT(full, genus);
  EXPECT_GT(genus, about) << "where X is seen is not what X is";
  EXPECT_GT(genus, later) << "X as the subject defines it";
  EXPECT_GT(definition_grade(x, "Torque refers to the twisting force on a shaft."), about);
  EXPECT_GT(definition_grade(x, "Torque, a twisting force, drives the wheels."), about);
  EXPECT_GT(definition_grade(x, "In mechanics, torque is a twisting force."), later);
  EXPECT_GT(definition_grade(definiendum_stems("torque"), "The torque vector is a quantity that gives rotation."),
            genus)
      << "X may carry one head noun";
  EXPECT_LT(definition_grade(x, "Torque is a quantity that we measure in our lab."), full) << "first person";
  EXPECT_EQ(definition_grade(x, "Gears turn shafts."), 0.0);
  EXPECT_DOUBLE_EQ(definition_grade(x, "Torque (Archimedes 250 BC) is basically a force that turns a shaft."), 1.0)
      << "an aside in parentheses and a hedge do not hide the definition";
}

TEST(Definition, TheGistOfAMethodDefinesIt) {
  const auto x = definiendum_stems("kalman filter");
  const double gist = definition_grade(x, "The main idea of the Kalman filter is to blend a prediction with a noisy measurement.");
  const double about = definition_grade(x, "The Kalman filter is used in every navigation system.");
  EXPECT_GT(gist, about);
  EXPECT_GE(gist, 0.8);
  EXPECT_GT(definition_grade(x, "The idea behind the Kalman filter is to weigh two estimates."), about);
  EXPECT_LT(definition_grade(x, "We had the idea of the Kalman filter is wrong."), gist) << "not at the opening";
}

TEST(Definition, ANamedModelIsDefinedUnderAnyKindWord) {
  Definiendum d("the rankine model");
  const double other_kind = d.grade("The primary idea of the Rankine approach is to track steam through four stages.");
  EXPECT_GE(other_kind, 0.7);
  EXPECT_GT(other_kind, d.grade("The Rankine model is used in power plants."));
  EXPECT_GT(Definiendum("the rankine model").grade("Rankine is a cycle that converts heat into work."), 0.5);
  EXPECT_EQ(Definiendum("the steam cycle").grade("Steam is a gas that drives turbines."), 0.0)
      << "only a kind word (model, method, test ...) may be dropped";
}

TEST(Definition, QuotedTermsAndAWhoseOfPhraseStillDefine) {
  Definiendum d("meat");
  EXPECT_GE(d.grade("The \xE2\x80\x9Cmeat\xE2\x80\x9D is the variance of the estimating function."), 0.8)
      << "curly quotes are punctuation";
  EXPECT_GE(d.grade("The meat of the sandwich M(1) is the variance of the estimating function."), 0.8)
      << "a short 'of' phrase between X and the copula";
  EXPECT_LT(d.grade("The meat of the sandwich that the cook made on Sunday is the best."), 0.8)
      << "a long phrase: the copula is not X's";
}

}  // namespace
}  // namespace mmkg
