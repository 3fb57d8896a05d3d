// The messages the query team passes: each agent's input and output (agent.h: one input, one
// output), in one header so that no agent header chains through another's.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "agents/direct_answer.h"
#include "core/types.h"
#include "graph/model/graph_types.h"
#include "graph/resolve/resolve.h"
#include "llm/chat_model.h"
#include "retrieve/retrieval.h"

namespace mmkg {

class GraphContext;

// ---- planner

/// Who wrote a plan: the rules, the model, or the orchestrator's follow-up round.
enum class PlannerKind { Rules, Llm, Followup };
/// "rules", "llm", "followup" (the trace's `planner`).
const char* planner_kind_name(PlannerKind k);

/// The plan: what to search for (QueryPlan, retrieval.h) and how it was made.
struct Plan : QueryPlan {
  std::vector<std::string> tools;       ///< tools the planner chose ("rag", "graph"); empty = all
  PlannerKind planner = PlannerKind::Rules;
  std::string fallback;                 ///< why the model's plan was not used (rules instead)
  /// Follow-up rounds: the gaps the plan aims at.
  std::vector<std::string> gaps;
};

struct Question;

struct PlanInput {
  const Question* question = nullptr;
  /// Follow-up rounds: the previous plan and the gaps the verifier found (else null / empty).
  const Plan* previous = nullptr;
  std::vector<std::string> gaps;
};

// ---- graph retriever

struct GraphFact {
  std::string text;      ///< "Multi-Head Attention uses scaled dot-product attention"
  std::string relation;  ///< relation type
  std::string chunk_id;  ///< evidence chunk
  std::string sentence;  ///< evidence sentence
  double weight = 0;
};

struct GraphRetrieval {
  std::vector<graph::EntityLink> entities;                 ///< linked, best first
  std::vector<GraphFact> facts;                            ///< typed relations first, then strongest
  std::vector<std::pair<std::string, double>> ppr_chunks;  ///< chunk id → PPR mass, best first
  /// The linked entities the question names as written (an exact or alias match that is no
  /// common phrase, kCommonPhraseWeight) and that have a home passage: the things the question is
  /// about and the collection has a passage on. PPR's ranking is fused only when there is one.
  std::vector<std::string> anchors;
  /// The most specific anchor's specificity, log(C / df) / log(C) over the C chunks with
  /// mentions (1: named in one chunk; near 0: named in almost every chunk); 0 without anchors.
  double anchor_specificity = 0;
  std::vector<graph::Community> communities;               ///< for broad questions
  bool broad = false;                                      ///< the question asks for a list/overview
  /// The question asks two things (Question::two_parts): the second may need a hop from the
  /// retrievers' best passages through a shared entity (graph_lists, rank_chunks_by_bridge).
  bool two_parts = false;
  /// The question ranges over several documents of the collection (Question::across).
  bool across = false;
  /// The graph the hop lists read (its snapshot, entity statistics and document layer), set for
  /// two-part and `across` questions; null: no hop list. Not owned (it outlives the lists).
  const GraphContext* hops = nullptr;
};

// ---- RAG retriever

struct RagInput {
  const Plan* plan = nullptr;
  const std::vector<RankedList>* extra = nullptr;  ///< the graph's ranked chunk lists (may be null)
};

// ---- synthesizer

struct SynthInput {
  const Question* question = nullptr;
  const Retrieval* retrieval = nullptr;
};

struct Citation {
  int n = 0;                 ///< the [n] marker in the answer
  std::string doc;           ///< document file name
  std::string doc_id;
  std::string chunk_id;
  int page = 0;              ///< first page of the chunk; 0 when the document has no pages
  int page_end = 0;
  std::string heading_path;
  std::string text;          ///< the cited chunk's text
  std::string quote;         ///< the sentence(s) of the chunk used in the answer
  std::string figure_id;     ///< the cited chunk is a figure's or table's: its id
  std::string figure_label;  ///< "Figure 2" (empty when uncaptioned)
  FigureKind figure_kind = FigureKind::Figure;  ///< when figure_id is set
  /// Where the cited chunk lies on its PDF pages (Chunk::boxes); filled by Session::ask only.
  std::vector<PageBox> boxes;
};

/// One candidate sentence of an extractive answer for one part of the question, with its
/// selection features (agents/sentence_select.h): the training rows of `eval --features`.
struct SentenceRow {
  size_t cand = 0;  ///< its passage: an index into Retrieval::context
  size_t part = 0;  ///< the part of the question it is scored for
  std::string text;
  std::vector<double> x;
};

struct Answer {
  std::string text;
  std::vector<Citation> citations;
  bool found = false;        ///< false: the answer says the documents do not contain it
  double coverage = 0;       ///< best passage coverage of the question's content words
  /// The answerability model's features and score (agents/answerable.h; extractive judgement).
  std::vector<double> answerability{};
  double answerability_score = 0;
  /// Every candidate sentence's selection features per part (SynthOptions::sentence_rows).
  std::vector<SentenceRow> sentence_rows{};
  /// The one-line direct answer read off the passages (agents/direct_answer.h); when found, the
  /// answer's text opens with it and cites the sentences of its walk.
  DirectAnswer direct{};
};

/// One sentence of a model's draft: the text without its [n] markers and the passages it cites
/// (indices into Retrieval::context; empty = none cited).
struct DraftSentence {
  std::string text;
  std::set<size_t> cited;
};

/// What drafting with a model cost and gave (the trace's synthesize step is this report plus
/// what the step adds).
struct DraftReport {
  size_t passages = 0;                   ///< context passages the model was shown ([1]..[passages])
  size_t images = 0;                     ///< figure images sent with them (a vision model)
  std::string fallback;                  ///< why there is no model draft
  Usage usage;
  double model_ms = 0;
  bool cached = false;
};

/// A drafted answer, before verification.
struct Draft : DraftReport {
  Answer extractive;                     ///< always made: the found decision and the fallback
  std::vector<DraftSentence> sentences;  ///< the model's sentences; empty when there is no model draft
  bool from_model() const { return !sentences.empty(); }
};

// ---- verifier

struct VerifyInput {
  const Question* question = nullptr;
  const Retrieval* retrieval = nullptr;
  const Draft* draft = nullptr;
};

struct VerifyReport {
  bool used_model = false;       ///< the verified model answer is the answer
  size_t model_sentences = 0;
  size_t kept_sentences = 0;     ///< verified (revised ones included)
  size_t kept_by_embedding = 0;  ///< of those, kept on embedding overlap
  size_t kept_by_judge = 0;      ///< of those, kept on the judge's word
  size_t revised = 0;            ///< replaced by the passage's own sentence
  size_t dropped = 0;            ///< unsupported or repeated
  size_t judged = 0;             ///< sentences the judge was asked about
  size_t judge_answered = 0;     ///< of those, the ones it gave a verdict on (the rest: the embedding decides)
  size_t judge_vetoes = 0;       ///< lexically supported sentences the judge rejected
  Usage judge_usage;
  double judge_ms = 0;
  std::string judge_error;       ///< the judge failed; the other checks decided
  std::string fallback;          ///< why the extractive answer was used, if it was
};

struct Verified {
  Answer answer;
  VerifyReport report;
  std::vector<std::string> gaps;  ///< question words the answer's sources do not mention
};

}  // namespace mmkg
