#include "text/question_shape.h"

#include <gtest/gtest.h>

namespace mmkg {
namespace {

std::vector<std::string> part_texts(const std::vector<QuestionPart>& ps) {
  std::vector<std::string> out;
  for (auto& p : ps) out.push_back(p.text);
  return out;
}

TEST(QuestionShape, OneClauseIsOnePart) {
  auto ps = question_parts("How do pumps keep the boiler from overheating?");
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].text, "How do pumps keep the boiler from overheating?");
  EXPECT_TRUE(question_parts("  ").empty());
  // A list of nouns joined by "and" is not a second question.
  EXPECT_EQ(question_parts("Which valve, gasket and seal do I need?").size(), 1u);
}

TEST(QuestionShape, SplitsAtConjunctionsThatOpenANewQuestion) {
  EXPECT_EQ(part_texts(question_parts("Which pump does the manual recommend, and why?")),
            (std::vector<std::string>{"Which pump does the manual recommend", "why?"}));
  EXPECT_EQ(part_texts(question_parts("What is meant by the crown and what by the root?")),
            (std::vector<std::string>{"What is meant by the crown", "what by the root?"}));
  EXPECT_EQ(part_texts(question_parts("Can the gauge read negative values, or is an adapter needed?")),
            (std::vector<std::string>{"Can the gauge read negative values", "is an adapter needed?"}));
  EXPECT_EQ(part_texts(question_parts("How fast is the spindle and by what factor does the belt slow it?")),
            (std::vector<std::string>{"How fast is the spindle", "by what factor does the belt slow it?"}));
}

TEST(QuestionShape, ASceneSettingStatementIsNotAPart) {
  auto ps = question_parts("The handbook describes two valves. Which one closes first?");
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].text, "Which one closes first?");
  // Without any question the whole text is the one part.
  EXPECT_EQ(question_parts("valve pressure limits").size(), 1u);
}

TEST(QuestionShape, APartThatRefersBackByPronounOrDemonstrative) {
  EXPECT_TRUE(refers_to_antecedent("what does it offer instead?"));
  EXPECT_TRUE(refers_to_antecedent("what does its residual panel suggest?"));
  EXPECT_TRUE(refers_to_antecedent("how are they computed"));
  EXPECT_TRUE(refers_to_antecedent("Which package and function is that"));
  EXPECT_TRUE(refers_to_antecedent("where do that procedure's p values come from"));
  EXPECT_TRUE(refers_to_antecedent("what is the purpose of that"));
  // "that" opening a clause, and parts that name their subject, do not refer back.
  EXPECT_FALSE(refers_to_antecedent("Which paper argues that alignment is more robust?"));
  EXPECT_FALSE(refers_to_antecedent("what must a developer implement so that a new model works?"));
  EXPECT_FALSE(refers_to_antecedent("which kernels does the plot show?"));
}

TEST(QuestionShape, DetectsTheKindOfAnswer) {
  EXPECT_EQ(answer_kind("How many bolts hold the lid?"), AnswerKind::Number);
  EXPECT_EQ(answer_kind("Which firmware version fixed the bug?"), AnswerKind::Number);
  EXPECT_EQ(answer_kind("by what factor does it grow"), AnswerKind::Number);
  EXPECT_EQ(answer_kind("in which month was the fault logged?"), AnswerKind::Number);
  EXPECT_EQ(answer_kind("Who designed the bridge?"), AnswerKind::Name);
  EXPECT_EQ(answer_kind("Which library parses the files?"), AnswerKind::Name);
  EXPECT_EQ(answer_kind("what is that scheme called?"), AnswerKind::Name);
  EXPECT_EQ(answer_kind("Why is the lid vented?"), AnswerKind::Reason);
  EXPECT_EQ(answer_kind("What is the reasoning behind the default limit?"), AnswerKind::Reason);
  EXPECT_EQ(answer_kind("How does the lid close?"), AnswerKind::Any);
  auto ps = question_parts("Which tool reads the log, and how many lines does it keep?");
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_EQ(ps[0].kind, AnswerKind::Name);
  EXPECT_EQ(ps[1].kind, AnswerKind::Number);
}

TEST(QuestionShape, NumbersTheQuestionDoesNotHold) {
  EXPECT_TRUE(holds_new_number("The lid is held by 12 bolts.", "How many bolts hold the lid?"));
  EXPECT_TRUE(holds_new_number("About 5% of the heads matter.", "What fraction of heads?"));
  EXPECT_FALSE(holds_new_number("Three woodlands were surveyed.", "How many numbats?")) << "descriptive";
  EXPECT_TRUE(holds_new_number("Half of the bolts hold it.", "What fraction of the bolts?"));
  EXPECT_FALSE(holds_new_number("The lid is held by bolts.", "How many bolts hold the lid?"));
  EXPECT_FALSE(holds_new_number("In 1986 the lid changed.", "What happened after 1986?"));
  EXPECT_FALSE(holds_new_number("Figure 3 shows the lid.", "How many bolts?")) << "a label is not a quantity";
}

TEST(QuestionShape, APartAfterASceneSettingStatementIsMarked) {
  auto ps = question_parts("The wiki describes attention weights. Which paper argues otherwise, and why?");
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_TRUE(ps[0].after_scene);
  EXPECT_TRUE(ps[1].after_scene);
  auto one = question_parts("Which paper argues otherwise?");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_FALSE(one[0].after_scene);
  // A statement after the question is not a scene set before it.
  auto late = question_parts("Which paper argues otherwise? The wiki describes attention weights.");
  ASSERT_EQ(late.size(), 1u);
  EXPECT_FALSE(late[0].after_scene);
}

// "How many <things>" is answered by a number that counts things, not by a span of time or a
// value that happens to be a number.
TEST(QuestionShape, AHowManyOfThingsWantsANumberThatCountsThings) {
  const char* q = "How many patients are in the trial, and how many get dropped?";
  EXPECT_TRUE(holds_new_number("The trial followed 228 patients with lung cancer.", q));
  EXPECT_TRUE(holds_new_number("We excluded 14 subjects with missing values.", q));
  EXPECT_TRUE(holds_new_number("It measured 158 fetuses.", q)) << "fetuses: plural less -es";
  EXPECT_TRUE(holds_new_number("n = 214, number of events = 152", q)) << "a sample size";
  EXPECT_TRUE(holds_new_number("| Rottnest Island | 12000 | 2019 |", "How many quokkas are on Rottnest Island?"))
      << "a table cell: its header says what it counts";
  EXPECT_FALSE(holds_new_number("The effect is gone after 6 months.", q)) << "a span of time";
  EXPECT_FALSE(holds_new_number("The effect is essentially 0 there.", q));
  EXPECT_FALSE(holds_new_number("The line has a coefficient of 1.", q));
  // Asked for a span of time, or not a count: any number still does.
  EXPECT_TRUE(holds_new_number("The effect is gone after 6 months.", "How many months until the effect is gone?"));
  EXPECT_TRUE(holds_new_number("The effect is essentially 0 there.", "What is the effect there?"));
}

TEST(QuestionShape, APartThatAsksWhichFigureOrTable) {
  auto parts = question_parts("Which figure shows the price series, and what does its residual panel suggest?");
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_TRUE(parts[0].figure);
  EXPECT_FALSE(parts[1].figure);
  EXPECT_TRUE(question_parts("What table lists the estimators?")[0].figure);
  EXPECT_FALSE(question_parts("What does Figure 2 show?")[0].figure) << "it names the figure, it does not ask which";
}

TEST(QuestionShape, SentencesThatStateAReason) {
  EXPECT_TRUE(gives_reason("The boundaries are linear, because a closed form solution is known."));
  EXPECT_TRUE(gives_reason("Valves are opened slowly so that the pipes do not hammer."));
  EXPECT_TRUE(gives_reason("The rationale is that a death must come after the last visit."));
  EXPECT_TRUE(gives_reason("Hydrogen is used due to its low density."));
  EXPECT_FALSE(gives_reason("It would seem natural to use boundaries proportional to the deviation."));
  EXPECT_FALSE(gives_reason("The towers are built from reinforced concrete."));
}

TEST(QuestionShape, NamesTheQuestionDoesNotHold) {
  EXPECT_TRUE(holds_new_name("The parser was written by Knuth in the seventies.", "Who wrote the parser?"));
  EXPECT_TRUE(holds_new_name("Use readLog() for this.", "Which function reads the log?"));
  EXPECT_TRUE(holds_new_name("It runs on the XR7 board.", "Which board does it run on?"));
  EXPECT_TRUE(holds_new_name("This is the \"cold start\" problem.", "What is the problem called?"));
  EXPECT_FALSE(holds_new_name("Parsers read the files line by line.", "Who wrote the parser?"))
      << "a capital that opens the sentence is grammar, not a name";
  EXPECT_FALSE(holds_new_name("The parser of Knuth is fast.", "Did Knuth write the parser?"));
  // A name given in words, in lower case: after "known as", "called", "referred to as".
  EXPECT_TRUE(holds_new_name("In reliability work it is also known as the mean cumulative function.",
                             "What do engineers call it?"));
  EXPECT_TRUE(holds_new_name("Such data are referred to as panel data.", "What are these data called?"));
  EXPECT_FALSE(holds_new_name("The function is called the hazard by everyone.", "Why is the hazard function called that?"))
      << "the name after the verb is the question's own";
  EXPECT_FALSE(holds_new_name("It is known as it was written.", "What is it called?"));
}

TEST(QuestionShape, NamesInTheQuestion) {
  auto ns = question_names("Which GPU was Lightning Attention-2 benchmarked on, and does Stata run there?");
  ASSERT_EQ(ns.size(), 3u);
  EXPECT_EQ(ns[0], (std::vector<std::string>{"gpu"}));
  EXPECT_EQ(ns[1], (std::vector<std::string>{"lightning", "attention", "2"}));
  EXPECT_EQ(ns[2], (std::vector<std::string>{"stata"}));
  EXPECT_TRUE(question_names("What is a valve?").empty());
}

}  // namespace
}  // namespace mmkg
