// The question analysed once (agents/question.h): every field the agents read.
#include "agents/question.h"

#include <gtest/gtest.h>

namespace mmkg {
namespace {

TEST(Question, OneAnalysisHoldsThePartsKindsAndWhatTheQuestionAsks) {
  const Question q = analyse_question("Which package fits quantile regression, and why does it use the simplex method?");
  EXPECT_EQ(q.asked, q.standalone);
  EXPECT_EQ(q.searched, q.standalone);
  ASSERT_EQ(q.parts.size(), 2u);
  EXPECT_TRUE(q.two_parts());
  EXPECT_EQ(q.parts[0].kind, AnswerKind::Name);
  EXPECT_EQ(q.parts[1].kind, AnswerKind::Reason);
  ASSERT_EQ(q.search_parts.size(), 2u);
  EXPECT_EQ(q.search_parts[0].text, q.parts[0].text);
  EXPECT_FALSE(q.search_parts[0].refers_back);
  EXPECT_TRUE(q.search_parts[1].refers_back);  // "it"
  EXPECT_TRUE(q.definiendum.empty());
  EXPECT_TRUE(q.entities.empty());  // the graph step links them
}

TEST(Question, DefinitionFiguresAndFactsAreReadOnce) {
  const Question d = analyse_question("what is attention?");
  EXPECT_EQ(d.definiendum, "attention");
  EXPECT_EQ(d.search_definiendum, "attention");
  EXPECT_FALSE(d.two_parts());
  const Question f = analyse_question("What does Figure 3 of the survival paper show?");
  EXPECT_EQ(f.figure_keys, std::vector<std::string>{"f:3"});
  const Question l = analyse_question("When did Lothair II's mother die?");
  EXPECT_EQ(l.fact.form, AskedFact::Form::Lookup);
  EXPECT_EQ(l.fact.chain, std::vector<std::string>{"mother"});
  const Question c = analyse_question("How do the packages in this collection divide up the work?");
  EXPECT_TRUE(c.across);
  EXPECT_FALSE(c.broad);
}

TEST(Question, AFollowUpIsReadStandaloneAndSearchedWithItsAcronyms) {
  const ExpandFn expand = [](const std::string& s) {
    std::string out = s;
    const std::string at = "multi-head attention";
    if (auto i = out.find(at); i != std::string::npos) out.insert(i + at.size(), " (MHA)");
    return out;
  };
  const Question q = analyse_question("and what is it?", "what is multi-head attention, and why is it used?", expand);
  EXPECT_EQ(q.asked, "and what is it?");
  EXPECT_EQ(q.standalone, "what is multi-head attention, and why is it used?");
  EXPECT_EQ(q.searched, "what is multi-head attention (MHA), and why is it used?");
  EXPECT_EQ(q.definiendum, "multi head attention");  // as asked: what the synthesizer defines
  EXPECT_NE(q.search_definiendum.find("mha"), std::string::npos) << q.search_definiendum;  // what the planner searches
  ASSERT_EQ(q.search_parts.size(), 2u);
  EXPECT_NE(q.search_parts[0].text.find("(MHA)"), std::string::npos);  // what the searcher reads
  EXPECT_EQ(q.parts[0].text.find("(MHA)"), std::string::npos);
}

}  // namespace
}  // namespace mmkg
