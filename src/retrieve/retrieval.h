// The retrieval pipeline `ask` and `eval` share: search per sub-query, de-duplicate, fuse ranks
// (with the graph's ranked lists), rerank (rerank.h), cut to a token budget (context_budget.h).
#pragma once

#include <algorithm>
#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include <functional>
#include <optional>
#include "index/lexical.h"
#include "index/searcher.h"

namespace mmkg {

class Store;
class Reranker;
class TokenCounter;

/// What to search for: the question first, then the planner's sub-queries.
struct QueryPlan {
  std::vector<std::string> subqueries;  ///< the question itself first, then key phrases
  /// FTS5 expressions parallel to `subqueries`; empty means "derive from the text" (fts_query).
  std::vector<std::string> matches;
  std::string definiendum;              ///< X of "what is X?" questions, else empty
  /// The question's parts (the caller's analysis, agents/question.h): with two or more,
  /// sub-query 0 is searched part by part too (Searcher::search).
  std::vector<QueryPart> parts;
  /// Sub-queries from this index on are a follow-up round's (aimed at gaps): the best hit of
  /// each is guaranteed a place in the context. Equal to subqueries.size() when there are none.
  size_t followup_from = static_cast<size_t>(-1);
};

/// A line of the human step log (-v); may be empty (no log).
using LogFn = std::function<void(const std::string&)>;

struct RetrieveOptions {
  int k_per_query = 5;               ///< hits per sub-query
  size_t max_chunks = 8;             ///< chunks kept for the context
  /// Token budget of the context handed to synthesis: the passages as the model sees them
  /// ("[n] (doc)" line included), counted by `tokens`. 0: no token limit (max_chunks only).
  /// 1500 holds about 7 chunks of prose whole (a 1,000-character chunk is about 210 tokens) and
  /// trims the mathematics-heavy ones that made the seed's contexts balloon; it leaves a
  /// 4,096-token model (the local SmolLM2 server's window) ample room for instructions, question
  /// and answer.
  size_t max_context_tokens = 1500;
  const TokenCounter* tokens = nullptr;  ///< nullptr: default_token_counter() ("estimate")
  /// Reorders the fused candidates before packing (nullptr: fused order; `mmkg ask` and `mmkg eval`
  /// pass "lexical" unless --rerank says otherwise). Not owned.
  Reranker* reranker = nullptr;
  size_t rerank_top_n = 20;          ///< candidates the reranker sees (the rest keep their order)
  /// Share of the reranker's order in the blend with the fused order (rerank()); 1: its order alone.
  double rerank_weight = 0.5;
  SearchMode mode = SearchMode::Hybrid;  ///< retrieval per sub-query
  /// Context slots the graph may take, after the best max_chunks - graph_slots chunks of the
  /// sub-queries, for chunks that head a graph list and that the sub-queries found just below
  /// their cut (ranks k_per_query+1 .. 2 k_per_query): two retrievers agreeing on a chunk the
  /// first one ranked low. Each slot costs the weakest hit, among the last 2 x graph_slots of the
  /// first max_chunks, of the document with the most hits there. Chunks only the graph found take
  /// a slot only when they head a vouched list (RankedList::vouched).
  size_t graph_slots = 2;
  /// Threads for the sub-queries' searches (0 = one per core; 1 = one after another, each
  /// query embedded alone: the sequential baseline).
  int parallel = 0;
  /// Set (from any thread): the sub-query searches not yet begun are skipped and retrieval throws
  /// Cancelled (SearchOptions::cancel). nullptr: never stopped. Not owned.
  const std::atomic<bool>* cancel = nullptr;
  /// The sub-queries' hybrid fusion. Set: each sub-query ranked exactly as Searcher::search
  /// ranks it with this fusion (z-score's proximity list kept even before a lexical reranker);
  /// eval's +graph and +rerank rows set the hybrid row's, so that they add to that ranking.
  /// Unset: the searcher's when the user chose one (--fusion), else relative.
  std::optional<Fusion> fusion;
  /// Candidates for which this returns true are left out (eval --features: an answerable
  /// question asked again without its evidence passages, a hard "not in the documents" example
  /// for the answerability model). Empty: none.
  std::function<bool(const SearchHit&)> exclude{};
  /// The fitted ranker's model for the sub-queries' pools (SearchOptions::fold_model: eval --cv's
  /// fold of the question); nullptr: the ranker file's full model. Not owned.
  const LinearModel* fold_model = nullptr;
};

/// The hits each sub-query retrieves for a context of opt.max_chunks passages: k_per_query, and at
/// least half the context, so that a larger context draws on deeper lists.
inline int sub_query_depth(const RetrieveOptions& opt) {
  return std::max(opt.k_per_query, static_cast<int>((opt.max_chunks + 1) / 2));
}

/// A chunk chosen for the context.
struct Candidate {
  SearchHit hit;                 ///< the chunk (hit.text: all of it; citations point here)
  double fused = 0;              ///< reciprocal-rank-fusion score over sub-queries
  double graph = 0;              ///< the same over the graph's lists (RankedList)
  /// Best place (1-based) among the sub-queries' hits and among the graph's lists; 0: in none.
  size_t best_rank = 0, graph_rank = 0;
  bool vouched = false;          ///< heads a vouched graph list (RankedList::vouched)
  bool retrieved = false;        ///< a retriever list ranked it within the cut (RankedList::retriever)
  bool heads = false;            ///< heads a graph list that confirms (RankedList::confirms)
  std::vector<int> subqueries{}; ///< indices of the sub-queries that retrieved it
  double rerank = 0;             ///< the reranker's score (0 when not reranked)
  /// What the context shows of the chunk: hit.text, or (trimmed to fit the budget) its best
  /// sentences in document order with "…" where text was left out. Set by the budget.
  std::string text{};
  /// Trimmed: the byte ranges of hit.text shown (sentences, document order). Empty: all of it.
  std::vector<std::pair<size_t, size_t>> shown{};
  size_t tokens = 0;             ///< tokens of the passage as the model sees it
  /// Stems the question used to name this chunk (RankedList::where): "figure 3", "survival".
  std::vector<std::string> where{};
  bool trimmed() const { return !shown.empty(); }
};

/// What the reranker did (RetrieveOptions::reranker).
struct RerankReport {
  std::string reranker;   ///< its name; empty when none ran
  size_t scored = 0;      ///< candidates it scored
  size_t moved = 0;       ///< of those, how many changed place
  double ms = 0;          ///< wall time
  std::string fallback;   ///< why the fused order was kept, if it was (a failed LLM call)
};

/// What a retrieval reports about the context it packed (the trace's retrieve step is this
/// report plus what the step adds).
struct ContextReport {
  size_t unique_chunks = 0;        ///< after de-duplication, before the budget
  size_t context_chars = 0;        ///< bytes of the passages' text (Candidate::text)
  size_t context_tokens = 0;       ///< tokens of the passages as the model sees them (the budget's count)
  size_t trimmed_chunks = 0;       ///< chunks cut to their best sentences to fit
  size_t skipped_chunks = 0;       ///< candidates left out because not even their best sentence fit
  /// The same sizes for the best max_chunks candidates whole: the context without a token budget.
  size_t unbudgeted_chars = 0;
  size_t unbudgeted_tokens = 0;
  RerankReport rerank;
};

struct Retrieval : ContextReport {
  std::vector<Candidate> context;  ///< best first, within the budget
};

/// A ranked list of chunk ids from another retriever (graph PPR, relation evidence). Lists are
/// fused among themselves by reciprocal rank with `weight`; see RetrieveOptions::graph_slots.
struct RankedList {
  std::string name;  ///< for the log: "graph: personalised PageRank"
  std::vector<std::string> chunk_ids;
  double weight = 0.5;
  /// The chunks lead the candidates, in this order, whatever the fusion and the reranker say:
  /// what the question names outright (named_figures.h), not what a retriever guessed.
  bool pin = false;
  /// Pinned lists: stems that locate the chunks (the label and document name the question used
  /// to name them); they count as said by the chunk when the answer's coverage is measured.
  std::vector<std::string> where = {};
  /// A list that depends on what the retrievers found (the graph's bridge-entity hop): called
  /// once the sub-queries have run, with their first hits (fused order, best first); what it
  /// returns becomes chunk_ids. Empty: chunk_ids as given.
  std::function<std::vector<std::string>(const std::vector<std::string>& first_hits)> from_hits = {};
  /// Its head may take a graph slot even when no sub-query found it (RetrieveOptions::graph_slots):
  /// the list's own construction confirms it (the graph's cross references between two documents
  /// the sub-queries found). Off: the head needs a sub-query's hit just below the cut.
  bool vouched = false;
  /// Its head may take a graph slot when a sub-query found it just below the cut
  /// (RetrieveOptions::graph_slots). Off: the list only adds candidates after the retrievers'.
  bool confirms = true;
  /// from_hits gets the question's own first hits (sub-query 0, its order) instead of every
  /// sub-query's: the documents the question itself reaches, not those a key phrase cut from it
  /// ("implement") strays into.
  bool question_hits = false;
  /// A retriever of its own (the graph's passages for a question that names its entities,
  /// graph_passages): its first k_per_query chunks are fused with the sub-queries' hits by
  /// weighted reciprocal rank (Candidate::fused), as a sub-query's are, with no graph slot.
  bool retriever = false;
};

/// `hits` (a retriever's, best first) fused with `list` by weighted reciprocal rank (kRrfK; each
/// hit weighs 1, each of the list's chunks RankedList::weight): the first `k`. Chunks only the
/// list has are read from `store` (a chunk deleted since is skipped). An empty list: the first k
/// hits as they are.
std::vector<SearchHit> fuse_with_list(Store& store, std::vector<SearchHit> hits, const RankedList& list, size_t k);

/// The ranked candidates `retrieve` packs into the context: every sub-query searched (one batch),
/// fused by weighted reciprocal rank with the `extra` lists (RetrieveOptions::graph_slots), a
/// follow-up round's best hits promoted, then reranked (RetrieveOptions::reranker; its report in
/// `report`). Eval scores these lists at k, so that its figures come from the code `ask` runs.
std::vector<Candidate> rank_candidates(Store& store, Searcher& searcher, const QueryPlan& plan,
                                       const RetrieveOptions& opt, const std::vector<RankedList>& extra = {},
                                       const LogFn& log = {}, RerankReport* report = nullptr);

/// Runs every sub-query of `plan` (its FTS expression when given) and fuses in `extra` lists.
/// `log` receives the step log's lines (one per sub-query, list and rerank).
Retrieval retrieve(Store& store, Searcher& searcher, const QueryPlan& plan, const RetrieveOptions& opt,
                   const std::vector<RankedList>& extra = {}, const LogFn& log = {});

}  // namespace mmkg
