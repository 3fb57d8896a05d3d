// Retrieval (and optionally answer) evaluation over a QA file (JSON lines). The search modes are
// scored through Searcher::search (what `mmkg search` runs); "<mode>+graph" and "<mode>+rerank"
// through rank_candidates (what `mmkg ask` runs before its budget); answers through ask().
#pragma once

#include <map>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

#include "agents/ask.h"
#include "index/searcher.h"
#include "retrieve/retrieval.h"

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
  std::string subtype{};  ///< a finer type where the QA file gives one (2Wiki: "compositional", ...)
  std::string answer{};   ///< the gold answer where the QA file gives one (exact match and F1)
  std::vector<std::string> answer_keywords;
  std::vector<Evidence> evidence;
};

/// Reads QA items; throws UsageError naming the line of a malformed record.
std::vector<QaItem> load_qa(const std::string& path);

/// True when `chunk_text` contains the evidence quote after whitespace is collapsed, or (for a
/// quote cut by a chunk boundary) its first or last 60 characters.
bool evidence_in(const std::string& chunk_text, const std::string& quote);

/// Exact match of a predicted answer with the gold one after SQuAD's normalisation (lower case,
/// punctuation and the articles a, an, the dropped): 1 or 0.
double answer_exact_match(const std::string& predicted, const std::string& gold);
/// Token F1 of a predicted answer against the gold one, normalised as above (HotpotQA/2Wiki's).
double answer_token_f1(const std::string& predicted, const std::string& gold);

struct EvalOptions {
  bool answers = false;  ///< also run `ask` and score answers
  /// Search modes to score; the last available one is the primary (top-level) result.
  std::vector<SearchMode> modes = {SearchMode::Bm25, SearchMode::Dense, SearchMode::Hybrid};
  /// When set, also scores "<primary>+graph": the primary mode's hits fused with the graph's
  /// ranked lists (PPR, relation evidence, communities) as `ask` fuses them. Not the primary.
  GraphContext* graph = nullptr;
  /// The language model for --answers (nullptr: extractive answers).
  ChatModel* chat = nullptr;
  /// `ask`'s options for --answers (orchestrator rounds, judge, ...); graph, chat and the
  /// retrieval mode are set from the fields above and the primary mode.
  AskOptions ask;
  /// Retrieval for --answers and "<primary>+rerank": token budget, reranker. A reranker set here
  /// is also scored as "<primary>+rerank": the primary mode's top rerank_top_n hits for the
  /// question, reranked as `ask` reranks them, cut to 10.
  RetrieveOptions retrieve;
  /// The question as retrieval reads it (AskOptions::expand), for every mode and for answers.
  std::function<std::string(const std::string&)> expand;
  /// Training rows of the fitted models, JSON lines: with Fitted fusion (index/ranker.h), each
  /// question's hybrid pool with its feature rows and which evidence quotes each candidate holds
  /// ("kind": "ranker"; scripts/train_ranker.py); with `answers`, each answer's answerability
  /// features ("kind": "answerable"; scripts/train_answerable.py) and its candidate sentences'
  /// selection features ("kind": "selector"; scripts/train_selector.py). nullptr: none.
  std::ostream* features = nullptr;
  /// Score every question (every mode, and its answer) with the fitted models (the Searcher's
  /// ranker, `answerable`) of the cross-validation fold that held it out (FittedModel::fold_for),
  /// not the full models.
  bool cv = false;
  /// A fitted answerability model (agents/answerable.h, --answerable FILE); nullptr: the rule.
  std::shared_ptr<const FittedModel> answerable;
  /// A fitted answer-sentence selector (agents/sentence_select.h, --selector FILE); nullptr: the
  /// hand-set score.
  std::shared_ptr<const FittedModel> selector;
};

/// Recall and MRR of one question group.
struct RecallScore {
  int questions = 0;  ///< with evidence
  double recall_at_2 = 0, recall_at_5 = 0, recall_at_10 = 0, mrr = 0;
};

/// The scores of one mode ("bm25", "hybrid+graph", ...).
struct ModeScore {
  std::string unavailable;  ///< non-empty: the mode could not run (why)
  RecallScore all{};
  std::map<std::string, RecallScore> by_type{};
  std::map<std::string, RecallScore> by_subtype{};  ///< items with a subtype only
  // "<primary>+rerank" only:
  std::string reranker{};
  size_t rerank_top_n = 0;
  double rerank_weight = 0, rerank_ms_per_question = 0;
  std::string last_fallback{};
};

/// One question's results.
struct ItemScore {
  std::string id, type;
  std::string subtype{};
  std::map<std::string, double> recall_at_2{};       ///< per mode
  std::map<std::string, double> recall_at_5{};       ///< per mode
  std::map<std::string, double> recall_at_10{};      ///< per mode
  std::map<std::string, std::optional<int>> first_rank{};  ///< per mode: rank of the first evidence hit
  // --answers only:
  bool answered = false;
  bool answer_correct = false;
  bool found = false;  ///< the answer says the documents answer it (AskResult::found)
  std::string answer{};
  std::string direct{};  ///< the answer's direct line (AskResult::direct); empty: none
  std::string direct_why{};  ///< a factoid question without a direct line: what was missing
  /// Items with a gold answer: exact match and token F1 of the direct line against it (SQuAD's
  /// normalisation: lower case, no punctuation or articles); no direct line scores 0.
  std::optional<double> direct_em{}, direct_f1{};
  int cited = 0, cited_with_evidence = 0;  ///< citations, and those holding an evidence quote
  size_t context_tokens = 0;
  std::optional<double> context_evidence{};     ///< share of evidence quotes in the context
  std::optional<size_t> context_first_evidence{};  ///< place of the first passage holding one
};

/// Means per question of the context the answers were written from (--answers).
struct ContextScore {
  size_t max_context_tokens = 0;
  double tokens = 0, chars = 0, chunks = 0, trimmed_chunks = 0, unbudgeted_tokens = 0, unbudgeted_chars = 0;
  double evidence_recall = 0, evidence_mrr = 0, rerank_ms = 0;
};

struct EvalReport {
  size_t questions = 0;
  std::string primary;                    ///< the primary mode; empty when none ran
  std::map<std::string, ModeScore> modes;  ///< by name (the JSON and the CLI list them sorted)
  std::optional<double> answer_accuracy;  ///< --answers
  std::optional<double> citation_precision;
  /// --answers, over the items with a gold answer: the direct line's exact match and token F1,
  /// and the share of those items that got a direct line at all.
  std::optional<double> direct_em{}, direct_f1{}, direct_answered{};
  std::optional<ContextScore> context;    ///< --answers
  std::string llm;                        ///< the model's id; empty: extractive
  std::string reranker;                   ///< empty: none
  std::string fusion;                     ///< hybrid's fusion ("fitted", "zscore", ...)
  /// --cv: questions scored by a fold's model, and those no fold held out (full model).
  std::optional<size_t> cv_folded, cv_unfolded;
  std::vector<ItemScore> items;
};

/// Runs the evaluation with the caller's Searcher (its embedder and fusion).
EvalReport evaluate(Store& store, Searcher& searcher, const std::vector<QaItem>& items, const EvalOptions& opt);

}  // namespace mmkg
