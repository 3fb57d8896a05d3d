// The Query agent: plan → retrieve per sub-query → de-duplicate → synthesize, every step traced.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agents/graph_retriever.h"
#include "agents/llm_synthesizer.h"
#include "agents/rag.h"
#include "agents/synthesizer.h"

namespace mmkg {

class Store;

struct AskOptions {
  RetrieveOptions retrieve;
  SynthOptions synth;
  size_t max_phrases = 3;  ///< key-phrase sub-queries added to the question
  bool verbose = false;    ///< human step log on stderr
  std::string embedder = "native";  ///< embedder spec for dense/hybrid retrieval ("none": BM25)
  std::string fusion = "relative";  ///< hybrid fusion: relative or rrf
  /// The knowledge graph (nullptr: no graph step). Its chunks are fused with the hybrid results.
  GraphContext* graph = nullptr;
  GraphRetrieveOptions graph_retrieve;
  /// The language model (nullptr: --llm none, extractive answers).
  ChatModel* chat = nullptr;
  LlmSynthOptions llm;
  /// Verification thresholds; its embed function defaults to the searcher's embedder and its
  /// judge to `chat` (see `judge`).
  VerifyOptions verify;
  /// The LLM judge in the verifier when a model is configured: "none", "borderline" or "all"
  /// (VerifyOptions::judge_scope).
  std::string judge = "borderline";
  /// Orchestrator rounds: when the verifier finds gaps (question words the answer's sources do
  /// not mention), up to max_rounds - 1 follow-up rounds re-plan, retrieve and answer again.
  int max_rounds = 2;
};

struct AskResult {
  std::string answer;
  std::vector<Citation> citations;
  std::vector<std::string> subqueries;
  std::vector<graph::EntityLink> entities;  ///< linked in the knowledge graph
  std::vector<GraphFact> facts;             ///< graph facts about them (with evidence chunks)
  bool found = false;
  size_t context_chunks = 0;
  size_t context_chars = 0;
  int rounds = 1;                 ///< orchestrator rounds run
  std::vector<std::string> gaps;  ///< question words the final answer's sources do not mention
  size_t context_tokens = 0;  ///< the context's tokens as the budget counted them
  std::vector<Candidate> context;  ///< the passages the answer was written from (budgeted)
  nlohmann::json trace;  ///< [{"step": ..., "ms": ..., ...}]
};

AskResult ask(Store& store, Searcher& searcher, const std::string& question, const AskOptions& opt);
/// Convenience: a Searcher with opt.embedder for one question.
AskResult ask(Store& store, const std::string& question, const AskOptions& opt);

}  // namespace mmkg
