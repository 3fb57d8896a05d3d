// Planner: turns a question into sub-queries (rules, or a language model with a JSON schema).
#pragma once

#include <string>
#include <vector>

#include "agents/messages.h"
#include "agents/question.h"

namespace mmkg {

class TermStats;


class ChatModel;


/// Rule-based plan: the question as searched plus up to `max_phrases` key phrases (maximal runs
/// of content words, ranked by their summed IDF in the collection), and a definition sub-query
/// when it asks "what is X?".
Plan plan_rules(const Question& question, TermStats& stats, size_t max_phrases = 3);

/// LLM plan: the model proposes 2-4 sub-queries (shown two worked plans first), as JSON matching a schema
/// (structured output, with the client's fallbacks). The question stays the first sub-query and
/// the rule plan's definition sub-query is kept. Falls back to plan_rules (and says why in
/// `fallback`) when the model fails or answers nothing usable.
Plan plan_llm(ChatModel& model, const Question& question, TermStats& stats, std::string* fallback = nullptr);

/// A follow-up plan for the orchestrator's next round: `previous` plus, for each of up to two
/// `gaps` (question words the answer's sources do not mention), the question's key phrase that
/// holds it, searched as "the gap word AND any of the question's words".
Plan plan_followup(const Plan& previous, const Question& question, const std::vector<std::string>& gaps);

}  // namespace mmkg
