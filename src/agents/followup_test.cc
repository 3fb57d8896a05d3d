#include "agents/followup.h"

#include <gtest/gtest.h>

namespace mmkg {
namespace {

TEST(FollowUp, TopicOfAQuestion) {
  EXPECT_EQ(question_topic("How do I create a GPG key?"), "a GPG key");
  EXPECT_EQ(question_topic("What is Multi-Head Attention?"), "Multi-Head Attention");
  EXPECT_EQ(question_topic("what does git rebase do?"), "git rebase");
  EXPECT_EQ(question_topic("What is the default editor, and can I change it?"), "the default editor");
  EXPECT_EQ(question_topic("Explain this scheduler"), "scheduler");
  EXPECT_EQ(question_topic("where do quokkas live?"), "quokkas");
  EXPECT_EQ(question_topic("Why does git pull fail?"), "git pull");
  EXPECT_EQ(question_topic("?"), "");
}

TEST(FollowUp, StandaloneQuestionsAreNotFollowUps) {
  for (const char* q : {"How do I create a GPG key?", "What is attention?", "Is it possible to rebase onto a tag?",
                        "How do I delete a branch and its history?", "How do users change their password?",
                        "How do I make git ignore a file that is already tracked?"})
    EXPECT_FALSE(is_follow_up(q)) << q;
  for (const char* q : {"and how do I renew it?", "what about its default?", "What does that mean?",
                        "how do I undo that?", "And the default?", "What about an SSH key?", "How do I configure them?"})
    EXPECT_TRUE(is_follow_up(q)) << q;
}

// A scripted dialogue, turn by turn, with the rules alone (no model).
TEST(FollowUp, ScriptedDialogueWithRules) {
  std::vector<ChatTurn> h = {{"user", "How do I create a GPG key?"}, {"assistant", "Run gpg --full-generate-key [1]."}};
  Rewrite r = rewrite_follow_up("and how do I renew it?", h, nullptr);
  EXPECT_EQ(r.method, "rules");
  EXPECT_EQ(r.topic, "a GPG key");
  EXPECT_EQ(r.question, "How do I renew a GPG key?");

  h.push_back({"user", "and how do I renew it?"});
  h.push_back({"assistant", "Use gpg --quick-set-expire [2]."});
  r = rewrite_follow_up("what about its default expiry?", h, nullptr);
  // The chain keeps its topic: turn 2 was made standalone before turn 3 was read.
  EXPECT_EQ(r.previous, "How do I renew a GPG key?");
  EXPECT_EQ(r.question, "What is GPG key's default expiry?");

  r = rewrite_follow_up("What about an SSH key?", h, nullptr);
  EXPECT_EQ(r.question, "How do I renew an SSH key?");

  r = rewrite_follow_up("And the passphrase?", h, nullptr);
  EXPECT_EQ(r.question, "What is the passphrase of a GPG key?");

  r = rewrite_follow_up("What is Multi-Head Attention?", h, nullptr);  // a new topic: as asked
  EXPECT_EQ(r.method, "none");
  EXPECT_EQ(r.question, "What is Multi-Head Attention?");
}

TEST(FollowUp, AChainKeepsTheTopicOfItsFirstQuestion) {
  std::vector<ChatTurn> h = {{"user", "What is SpiLiFormer?"}, {"assistant", "A spiking Transformer [1]."},
                             {"user", "Which brain mechanism inspired it?"}, {"assistant", "Lateral inhibition [1]."}};
  Rewrite r = rewrite_follow_up("and what problem is it meant to fix?", h, nullptr);
  EXPECT_EQ(r.previous, "Which brain mechanism inspired SpiLiFormer?");
  EXPECT_EQ(r.topic, "SpiLiFormer");
  EXPECT_EQ(r.question, "What problem is SpiLiFormer meant to fix?");
}

TEST(FollowUp, NoHistoryOrNoTopicLeavesTheQuestion) {
  Rewrite r = rewrite_follow_up("and how do I renew it?", {}, nullptr);
  EXPECT_EQ(r.method, "none");
  EXPECT_EQ(r.question, "and how do I renew it?");
  r = rewrite_follow_up("and how do I renew it?", {{"assistant", "Hello"}, {"system", "be brief"}}, nullptr);
  EXPECT_EQ(r.method, "none");
  r = rewrite_follow_up("what does it mean?", {{"user", "?"}}, nullptr);
  EXPECT_EQ(r.method, "none");
}

}  // namespace
}  // namespace mmkg
