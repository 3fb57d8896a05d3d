// Retrieval (and optionally answer) evaluation over a QA file (JSON lines).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agents/ask.h"
#include "agents/rag.h"
#include "index/searcher.h"

namespace mmkg {

class Store;
class GraphContext;
class ChatModel;

struct Evidence {
  std::string doc;
  std::string quote;
};

struct QaItem {
  std::string id, type, question;
  std::vector<std::string> answer_keywords;
  std::vector<Evidence> evidence;
};

/// Reads QA items; throws UsageError naming the line of a malformed record.
std::vector<QaItem> load_qa(const std::string& path);

/// True when `chunk_text` contains the evidence quote after whitespace is collapsed, or (for a
/// quote cut by a chunk boundary) its first or last 60 characters.
bool evidence_in(const std::string& chunk_text, const std::string& quote);

struct EvalOptions {
  bool answers = false;  ///< also run `ask` and score answers
  /// Search modes to score; the last available one is the primary (top-level) result.
  std::vector<SearchMode> modes = {SearchMode::Bm25, SearchMode::Dense, SearchMode::Hybrid};
  std::string embedder = "native";
  std::string fusion = "relative";  ///< hybrid fusion: relative or rrf
  /// When set, also scores "<primary>+graph": the primary mode's hits fused with the graph's
  /// ranked lists (PPR, relation evidence, communities) as `ask` fuses them. Not the primary.
  GraphContext* graph = nullptr;
  /// The language model for --answers (nullptr: extractive answers).
  ChatModel* chat = nullptr;
  /// The rest of `ask`'s options for --answers (orchestrator rounds, judge, ...); the fields
  /// above (embedder, fusion, graph, chat, the primary mode) override theirs.
  AskOptions ask;
  /// Retrieval for --answers: token budget, reranker (its mode is the primary one). A reranker
  /// set here is also scored as "<primary>+rerank": the primary mode's top rerank_top_n hits for
  /// the question, reranked as `ask` reranks them, cut to 10.
  RetrieveOptions retrieve;
};

/// Runs the evaluation; returns the JSON object of the CLI contract
/// {"questions", "mode", "recall_at_k": {"5","10"}, "mrr", "answer_accuracy", "by_type",
///  "modes": {mode: {...same per mode...}}, "items"}, and with --answers "context": mean sizes of
/// the context per question (tokens, chars, the same without the budget, trimmed chunks) and
/// its evidence recall.
nlohmann::json evaluate(Store& store, const std::vector<QaItem>& items, const EvalOptions& opt);
/// The same with the caller's Searcher (whose embedder the caller may share, e.g. with the
/// graph's entity index); opt.embedder and opt.fusion are then the searcher's.
nlohmann::json evaluate(Store& store, Searcher& searcher, const std::vector<QaItem>& items, const EvalOptions& opt);

}  // namespace mmkg
