// Follow-up questions in a conversation: "and how do I renew it?" after "how do I create a GPG
// key?" is rewritten into the standalone question the retrieval and the answer need ("how do I
// renew a GPG key?"). With a chat model the model rewrites it (its output is checked, and rules
// take over when it fails the checks); without one, rules do: pronouns (it, its, they, them,
// their, this/that as pronouns) become the previous question's topic, and an elliptical turn
// ("what about an SSH key?", "and its default?") takes the previous question's frame.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace mmkg {

class ChatModel;

/// One earlier message of the conversation.
struct ChatTurn {
  std::string role;  ///< "user" or "assistant" (others are ignored)
  std::string text;
};

struct Rewrite {
  std::string asked;     ///< the question as the user wrote it
  std::string question;  ///< the standalone question answered (== asked when not a follow-up)
  std::string method;    ///< "none" (standalone already), "rules" or "llm"
  std::string previous;  ///< the previous user question, standalone ("" without history)
  std::string topic;     ///< what the follow-up refers to (rules), taken from `previous`
  std::string fallback;  ///< why the model's rewrite was not used
};

/// The topic of a standalone question: what a pronoun in the next turn most likely refers to.
/// "How do I create a GPG key?" -> "GPG key"; "What is Multi-Head Attention?" -> "Multi-Head
/// Attention"; "what does git rebase do?" -> "git rebase". Empty when nothing is left.
std::string question_topic(const std::string& question);

/// Whether `question` leans on an earlier turn: a pronoun standing for something said before,
/// or an elliptical opening ("what about ...", "and ...").
bool is_follow_up(const std::string& question);

/// The rules' rewrite of `question` against the previous standalone question. `topic`: what a
/// pronoun stands for; empty: question_topic(previous).
Rewrite rewrite_with_rules(const std::string& question, const std::string& previous, const std::string& topic = "");

/// Rewrites `question` (the last user turn) into a standalone question, given the earlier
/// `history`. Earlier user turns are made standalone first (in order, by the rules), so a chain
/// of follow-ups keeps its topic: the topic of the last question that was not a follow-up.
/// `model` may be nullptr (rules only).
Rewrite rewrite_follow_up(const std::string& question, const std::vector<ChatTurn>& history, ChatModel* model);

}  // namespace mmkg
