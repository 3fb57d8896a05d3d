// Session: search, ask and evaluate.
#include <algorithm>
#include <fstream>

#include "agents/answerable.h"
#include "agents/sentence_select.h"
#include "agents/graph_retriever.h"
#include "agents/team.h"
#include "core/error.h"
#include "app/session.h"
#include "embed/embedder.h"
#include "index/lexical.h"
#include "index/searcher.h"
#include "llm/chat_model.h"
#include "retrieve/context_budget.h"
#include "retrieve/rerank.h"

namespace mmkg {

namespace {

// Sizes the context to the language model (AskRequest::fit_context): nothing without one.
void fit_context_to(ChatModel* model, RetrieveOptions& r) {
  if (!model) return;
  const ContextSize c = context_for_model(model->context_window());
  r.max_context_tokens = c.tokens;
  r.max_chunks = c.chunks;
}

// The --rerank spec with what its backends need; embed needs the searcher's embedder.
std::unique_ptr<Reranker> open_reranker(const RerankSpec& spec, TermStats& stats, Searcher& searcher,
                                        ChatModel* chat) {
  RerankDeps deps;
  deps.stats = &stats;
  deps.chat = chat;
  if (spec.uses(RerankerKind::Embed)) deps.embedder = searcher.embedder();
  return make_reranker(spec, deps);
}

}  // namespace

SearchReport Session::search(const SearchRequest& req) {
  SearchReport rep;
  rep.query = req.query;
  Searcher& s = searcher();
  SearchOptions so;
  so.mode = req.mode;
  so.k = req.k;
  rep.mode = req.mode;
  if (req.mode == SearchMode::Hybrid) {
    std::string why = s.dense_unavailable_reason();
    if (!why.empty()) {
      rep.mode = SearchMode::Bm25;
      warn("dense retrieval unavailable (" + why + "); searching with BM25 only");
    }
  }
  // Hybrid search of a question that names a specific entity with a home passage: the graph's
  // passages fused in as a retriever of their own (graph_passages).
  const Question q = analyse_question(req.query, {}, [this](const std::string& x) { return expand_query(x); });
  RankedList passages;
  if (rep.mode == SearchMode::Hybrid)
    if (GraphContext* g = graph_context()) {
      GraphAgent agent(*g, {}, /*hop_lists=*/false);
      Trace quiet(false);
      if (auto lists = run_agent(agent, q, quiet); !lists.empty()) passages = std::move(lists.front());
    }
  if (passages.chunk_ids.empty()) {
    rep.hits = s.search(q.searched, so, q.search_parts);
  } else {
    so.k = std::max(req.k, GraphRetrieveOptions{}.ppr_chunks);
    rep.hits = fuse_with_list(store(), s.search(q.searched, so, q.search_parts), passages, static_cast<size_t>(req.k));
    rep.graph_passages = passages.chunk_ids.size();
  }
  // Page boxes for the page view: one lookup by primary key per hit.
  for (SearchHit& h : rep.hits)
    if (h.page_start > 0) h.boxes = h.rowid > 0 ? store().chunk_boxes(h.rowid) : store().chunk_boxes(h.chunk_id);
  if (rep.mode != SearchMode::Bm25) rep.dense_backend = s.dense_backend();
  if (rep.mode != SearchMode::Dense) rep.lexical_backend = s.lexical_backend();
  return rep;
}

AskResult Session::ask(const AskRequest& req) {
  ChatModel* model = chat();
  Searcher& s = searcher();
  GraphContext* g = graph_context();
  TermStats stats(store());
  auto reranker = open_reranker(req.rerank, stats, s, model);
  AskOptions o = req.options;
  if (req.fit_context) fit_context_to(model, o.retrieve);
  o.retrieve.k_per_query = sub_query_depth(o.retrieve);
  o.verbose = o.verbose || cfg_.verbose;
  o.graph = g;
  o.chat = model;
  o.retrieve.reranker = reranker.get();
  o.expand = [this](const std::string& q) { return expand_query(q); };
  const auto answerable = answerable_file_.get();  // held for this ask (a reload may replace it)
  if (answerable) o.synth.answerable = &answerable->full();
  const auto selector = selector_file_.get();
  if (selector) o.synth.selector = &selector->full();
  AskResult r = mmkg::ask(store(), s, req.question, o);
  for (Citation& c : r.citations)
    if (c.page > 0) c.boxes = store().chunk_boxes(c.chunk_id);
  return r;
}

EvalReport Session::evaluate(const EvalRequest& req) {
  // The model answers with --answers; --rerank llm needs it for retrieval alone too.
  ChatModel* model = req.answers || req.rerank.uses(RerankerKind::Llm) ? chat() : nullptr;
  Searcher& s = searcher();
  EvalOptions eo;
  eo.answers = req.answers;
  eo.modes = req.modes;
  eo.graph = graph_context();
  eo.chat = model;
  eo.ask = req.ask;
  TermStats stats(store());
  auto reranker = open_reranker(req.rerank, stats, s, model);
  eo.retrieve = req.ask.retrieve;
  if (req.fit_context && req.answers) fit_context_to(model, eo.retrieve);
  eo.retrieve.k_per_query = sub_query_depth(eo.retrieve);
  eo.retrieve.reranker = reranker.get();
  eo.expand = [this](const std::string& q) { return expand_query(q); };
  eo.cv = req.cv;
  std::ofstream features;
  if (!req.features.empty()) {
    if (s.fusion() != Fusion::Fitted && !req.answers)
      throw UsageError("--features records the fitted ranker's candidates (add --fusion fitted) and the "
                       "answerability model's inputs (add --answers); it has neither to record");
    if (std::string why = s.dense_unavailable_reason(); s.fusion() == Fusion::Fitted && !why.empty())
      throw UsageError("--features needs hybrid search for the ranker's rows, and dense retrieval is unavailable (" +
                       why + ")");
    features.open(req.features, std::ios::binary | std::ios::trunc);
    if (!features) throw UsageError("cannot write " + req.features + " (--features); check the folder exists");
    eo.features = &features;
  }
  if (req.cv && s.fusion() == Fusion::Fitted && s.ranker()->folds() == 0)
    throw UsageError("--cv: the ranker model " + s.ranker()->source() +
                     " has no cross-validation folds; pass one scripts/train_ranker.py wrote (--ranker FILE)");
  eo.answerable = answerable_file_.get();
  if (req.cv && req.answers && eo.answerable && eo.answerable->folds() == 0)
    throw UsageError("--cv: the answerability model " + eo.answerable->source() +
                     " has no cross-validation folds; pass one scripts/train_answerable.py wrote (--answerable FILE)");
  eo.selector = selector_file_.get();
  if (req.cv && req.answers && eo.selector && eo.selector->folds() == 0)
    throw UsageError("--cv: the sentence selector " + eo.selector->source() +
                     " has no cross-validation folds; pass one scripts/train_selector.py wrote (--selector FILE)");
  return mmkg::evaluate(store(), s, req.items, eo);
}

}  // namespace mmkg
