// The query team: each agent has one input and one output and runs through run_agent()
// (agent.h). The orchestrator (ask.cc) chains them and loops when the verifier finds gaps.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agents/agent.h"
#include "agents/graph_retriever.h"
#include "agents/llm_synthesizer.h"
#include "agents/planner.h"
#include "agents/question.h"
#include "retrieve/retrieval.h"
#include "agents/verifier.h"

namespace mmkg {

class Store;
class Searcher;
class TermStats;
class ChatModel;


/// Planner: sub-queries and tools (the model with a JSON schema, else rules); in follow-up rounds
/// the previous plan plus sub-queries aimed at the gaps.
class PlannerAgent : public Agent<PlanInput, Plan> {
 public:
  PlannerAgent(TermStats& stats, ChatModel* chat, size_t max_phrases)
      : stats_(stats), chat_(chat), max_phrases_(max_phrases) {}
  std::string name() const override { return "plan"; }
  Plan run(const PlanInput& in, AgentStep& step) override;

 private:
  TermStats& stats_;
  ChatModel* chat_;
  size_t max_phrases_;
};

/// A retriever beside the sub-queries' search (RagAgent): the question in, ranked chunk lists
/// out, which retrieval fuses with the sub-queries' hits by weighted reciprocal rank (one
/// fusion, rank_candidates; each list's weight from retrieve/fusion_weights.h). The graph's and
/// the named figures' are the two; `ask`, `search` and `eval` run them alike.
using Retriever = Agent<Question, std::vector<RankedList>>;

/// Graph retriever: entity linking, facts, personalised PageRank, community summaries; its
/// lists are the graph's passages (graph_passages) and, with `hop_lists`, graph_lists.
class GraphAgent : public Retriever {
 public:
  /// `hop_lists`: graph_lists join the passages (AskOptions::graph_lists); the step reports how many.
  GraphAgent(GraphContext& graph, GraphRetrieveOptions opt, bool hop_lists = true)
      : graph_(graph), opt_(opt), hop_lists_(hop_lists) {}
  std::string name() const override { return "graph"; }
  std::vector<RankedList> run(const Question& question, AgentStep& step) override;
  /// What the last run linked and found (entities, facts, PPR), for the answer.
  GraphRetrieval& found() { return found_; }

 private:
  GraphContext& graph_;
  GraphRetrieveOptions opt_;
  bool hop_lists_;
  GraphRetrieval found_;
};


/// Figure finder: the figures and tables the question names by label ("Figure 3 of the
/// survival paper"), whose chunks lead the context (named_figures.h).
class FigureAgent : public Retriever {
 public:
  explicit FigureAgent(Store& store) : store_(store) {}
  std::string name() const override { return "figures"; }
  std::vector<RankedList> run(const Question& question, AgentStep& step) override;

 private:
  Store& store_;
};

/// RAG retriever: every sub-query searched in parallel, de-duplicated, fused, cut to the budget.
class RagAgent : public Agent<RagInput, Retrieval> {
 public:
  RagAgent(Store& store, Searcher& searcher, RetrieveOptions opt) : store_(store), searcher_(searcher), opt_(opt) {}
  std::string name() const override { return "retrieve"; }
  Retrieval run(const RagInput& in, AgentStep& step) override;

 private:
  Store& store_;
  Searcher& searcher_;
  RetrieveOptions opt_;
};


/// Synthesizer: a drafted answer with [n] citations (the model's, else extractive sentences).
class SynthesizerAgent : public Agent<SynthInput, Draft> {
 public:
  SynthesizerAgent(TermStats& stats, ChatModel* chat, SynthOptions opt, LlmSynthOptions lopt)
      : stats_(stats), chat_(chat), opt_(opt), lopt_(lopt) {}
  std::string name() const override { return "synthesize"; }
  Draft run(const SynthInput& in, AgentStep& step) override;

 private:
  TermStats& stats_;
  ChatModel* chat_;
  SynthOptions opt_;
  LlmSynthOptions lopt_;
};



/// Verifier: each cited sentence against its passage (lexical, embedding, LLM judge); every
/// citation must resolve to a stored chunk; the gaps for the orchestrator.
class VerifierAgent : public Agent<VerifyInput, Verified> {
 public:
  VerifierAgent(Store& store, TermStats& stats, VerifyOptions opt) : store_(store), stats_(stats), opt_(opt) {}
  std::string name() const override { return "verify"; }
  Verified run(const VerifyInput& in, AgentStep& step) override;

 private:
  Store& store_;
  TermStats& stats_;
  VerifyOptions opt_;
  std::optional<std::set<std::string>> doc_words_;  ///< document-name stems, read on first use
};

}  // namespace mmkg
