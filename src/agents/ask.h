// The Query agent: plan → retrieve per sub-query → de-duplicate → synthesize, every step traced.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "agents/followup.h"
#include "agents/graph_retriever.h"
#include "agents/llm_synthesizer.h"
#include "agents/messages.h"
#include "agents/synthesizer.h"
#include "agents/trace.h"
#include "agents/verifier.h"
#include "retrieve/retrieval.h"

namespace mmkg {

class Store;

struct AskOptions {
  RetrieveOptions retrieve;
  SynthOptions synth;
  size_t max_phrases = 3;  ///< key-phrase sub-queries added to the question
  bool verbose = false;    ///< human step log on stderr
  /// The knowledge graph (nullptr: no graph step). Its chunks are fused with the hybrid results.
  GraphContext* graph = nullptr;
  GraphRetrieveOptions graph_retrieve;
  /// Fuse the graph's ranked chunk lists (graph_lists: PPR, relation evidence, communities, the
  /// bridge and cross-reference hops) into retrieval. Off (the default), the graph still links
  /// the question's entities and gives their facts (AskResult::entities, facts), and retrieval
  /// fuses only its passages (graph_passages) with the hybrid search's hits.
  bool graph_lists = false;
  /// The language model (nullptr: --llm none, extractive answers).
  ChatModel* chat = nullptr;
  LlmSynthOptions llm;
  /// Verification thresholds; its embed function defaults to the searcher's embedder and its
  /// judge to `chat` (see `judge`).
  VerifyOptions verify;
  /// The LLM judge in the verifier when a model is configured (VerifyOptions::judge_scope).
  JudgeScope judge = JudgeScope::Borderline;
  /// Orchestrator rounds: when the verifier finds gaps (question words the answer's sources do
  /// not mention), up to max_rounds - 1 follow-up rounds re-plan, retrieve and answer again.
  int max_rounds = 2;
  /// The question as retrieval should read it (Session: the corpus's acronyms written in,
  /// graph/resolve/acronym_expand.h); the answer is still written for the question as asked.
  /// Empty: the question as asked.
  std::function<std::string(const std::string&)> expand;
  /// Called with every finished step, as it finishes (the server streams them); may be empty.
  std::function<void(const StepRecord&)> on_step;
  /// Set (from any thread) to stop the ask: no step starts after it, the sub-query searches not
  /// yet begun are skipped, the model call under way is abandoned and no other is made; ask()
  /// then throws Cancelled. nullptr: never stopped. Not owned.
  const std::atomic<bool>* cancel = nullptr;
  /// The conversation before the question (oldest first). Not empty: a follow-up question is
  /// rewritten into a standalone one first (agents/followup.h, the "rewrite" step), by `chat`
  /// when there is one and its rewrite passes the checks, else by rules.
  std::vector<ChatTurn> history;
};

struct AskResult {
  std::string question;  ///< the question answered: as asked, or the follow-up made standalone
  std::string answer;
  std::vector<Citation> citations;
  std::vector<std::string> subqueries;
  std::vector<graph::EntityLink> entities;  ///< linked in the knowledge graph
  std::vector<GraphFact> facts;             ///< graph facts about them (with evidence chunks)
  bool found = false;
  /// The one-line direct answer and the walk that found it (agents/direct_answer.h).
  DirectAnswer direct;
  /// The answerability model's features and score for the kept answer (agents/answerable.h).
  std::vector<double> answerability;
  double answerability_score = 0;
  /// The kept answer's candidate sentences with their selection features (SynthOptions::sentence_rows).
  std::vector<SentenceRow> sentence_rows;
  size_t context_chunks = 0;
  size_t context_chars = 0;
  int rounds = 1;                 ///< orchestrator rounds run
  std::vector<std::string> gaps;  ///< question words the final answer's sources do not mention
  size_t context_tokens = 0;  ///< the context's tokens as the budget counted them
  std::vector<Candidate> context;  ///< the passages the answer was written from (budgeted)
  /// The retrieval report of the round whose answer was kept (sizes of the context, with and
  /// without the budget; the reranker's work).
  RetrieveStep retrieval;
  int answer_round = 1;
  std::vector<StepRecord> trace;  ///< every step, timed (trace_json() renders the contract's JSON)
};

/// Whether a follow-up round's answer replaces the last one: it is found where the last was not;
/// or, found alike, it has fewer gaps (question words its cited passages lack) and its own
/// sentences say one of the words the last answer lacked (as a word, singular or plural). An
/// answer that only cites more passages mentions more words, whatever it quotes from them.
bool follow_up_is_better(const Verified& last, const Verified& next);

/// Answers `question` from `store` through `searcher` (which holds the embedder and fusion).
AskResult ask(Store& store, Searcher& searcher, const std::string& question, const AskOptions& opt);

}  // namespace mmkg
