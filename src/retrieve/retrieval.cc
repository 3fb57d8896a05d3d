#include "retrieve/retrieval.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <optional>
#include <set>
#include <unordered_map>

#include "index/fusion.h"
#include "retrieve/context_budget.h"
#include "retrieve/fusion_weights.h"
#include "retrieve/rerank.h"
#include "store/store.h"
#include "text/definition.h"
#include "text/query_terms.h"

namespace mmkg {

namespace {

// printf-style line to `log` (nothing when there is no log).
void logf(const LogFn& log, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void logf(const LogFn& log, const char* fmt, ...) {
  if (!log) return;
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  log(buf);
}


std::optional<SearchHit> hit_for_chunk(Store& store, const std::string& id) {
  auto sc = store.chunk(id);
  if (!sc) return std::nullopt;  // the graph may name a chunk deleted since (rebuilt on ingest)
  return hit_from_chunk(*sc, 0);
}

// Adds the lists' chunks to the candidates (fetching those not seen yet), by weighted RRF.
void add_ranked_lists(Store& store, const std::vector<RankedList>& extra, size_t first_tag, size_t k,
                      std::unordered_map<std::string, size_t>& index, std::vector<Candidate>& all, const LogFn& log) {
  for (size_t l = 0; l < extra.size(); ++l) {
    const int tag = static_cast<int>(first_tag + l);
    size_t used = 0;
    for (size_t r = 0; r < extra[l].chunk_ids.size(); ++r) {
      const std::string& id = extra[l].chunk_ids[r];
      auto it = index.find(id);
      if (it == index.end()) {
        auto h = hit_for_chunk(store, id);
        if (!h) continue;
        it = index.emplace(id, all.size()).first;
        all.push_back(Candidate{.hit = std::move(*h)});
      }
      Candidate& c = all[it->second];
      c.subqueries.push_back(tag);
      ++used;
      if (extra[l].retriever) {  // fused like a sub-query's hits, within the cut
        if (c.best_rank == 0 || r + 1 < c.best_rank) c.best_rank = r + 1;
        if (r < k) c.fused += extra[l].weight / (kRrfK + static_cast<double>(r + 1)), c.retrieved = true;
        continue;
      }
      c.graph += extra[l].weight / (kRrfK + static_cast<double>(r + 1));
      if (c.graph_rank == 0 || r + 1 < c.graph_rank) c.graph_rank = r + 1;
      if (r == 0 && extra[l].vouched) c.vouched = true;
      if (r == 0 && extra[l].confirms) c.heads = true;
    }
    logf(log, "mmkg: retrieve: %zu chunks from %s", used, extra[l].name.c_str());
  }
}

// Orders candidates: those the sub-queries (tags < n_main) found in their first `k` hits by
// `fused`, with up to `slots` of the graph's candidates after the first `keep` of them. A graph
// candidate is a chunk that heads a graph list that confirms (Candidate::heads,
// RankedList::confirms) and that the sub-queries found only below their cut (best_rank > k): the
// graph confirms what a retriever ranked a little too low, it does not bring chunks no retriever
// found, unless the chunk heads a vouched list
// (RankedList::vouched; after the confirmed ones). The rest follow: the sub-queries' deeper hits,
// then the graph-only chunks (by `graph`).
std::vector<Candidate> reserve_order(std::vector<Candidate> all, size_t n_main, size_t k, size_t keep, size_t slots) {
  std::vector<Candidate> main, deep, graph_only;
  for (auto& c : all) {
    bool from_main = false;
    for (int t : c.subqueries) from_main = from_main || static_cast<size_t>(t) < n_main;
    from_main = from_main || c.retrieved;
    (!from_main ? graph_only : c.best_rank <= k ? main : deep).push_back(std::move(c));
  }
  auto by_fused = [](const Candidate& a, const Candidate& b) { return a.fused > b.fused; };
  auto by_graph = [](const Candidate& a, const Candidate& b) { return a.graph > b.graph; };
  std::stable_sort(main.begin(), main.end(), by_fused);
  std::stable_sort(deep.begin(), deep.end(), by_graph);
  std::stable_sort(graph_only.begin(), graph_only.end(), by_graph);
  std::vector<Candidate> confirmed, rest, unvouched;
  for (auto& c : deep) (confirmed.size() < slots && c.heads ? confirmed : rest).push_back(std::move(c));
  std::stable_sort(rest.begin(), rest.end(), by_fused);
  for (auto& c : graph_only) (confirmed.size() < slots && c.vouched ? confirmed : unvouched).push_back(std::move(c));
  graph_only = std::move(unvouched);
  // The confirmed chunks take the places of hits among the last 2 x slots of the first
  // keep + slots: each time, the weakest hit of the document with the most hits there. A graph
  // slot should cost one more passage of a document the context already has plenty of, not the
  // one or two passages of another (a multi-hop question's second document is often found
  // just above the cut, below a run of hits from the first).
  const size_t window = std::min(main.size(), keep + slots);
  const size_t from = std::max<size_t>(keep > slots ? keep - slots : 0, 1);  // never the first hit
  std::vector<bool> out_of_window(main.size(), false);
  size_t to_drop = std::min(confirmed.size(), window > keep ? window - keep : 0);
  auto doc_count = [&](const std::string& doc) {
    size_t n = 0;
    for (size_t i = 0; i < window; ++i) n += !out_of_window[i] && main[i].hit.doc == doc;
    return n;
  };
  for (; to_drop > 0; --to_drop) {
    size_t victim = window, most = 0;
    for (size_t i = window; i-- > from;)
      if (!out_of_window[i] && doc_count(main[i].hit.doc) > most) victim = i, most = doc_count(main[i].hit.doc);
    if (victim == window) break;
    out_of_window[victim] = true;
  }
  std::vector<Candidate> out, dropped;
  for (size_t m = 0; m < window; ++m) (out_of_window[m] ? dropped : out).push_back(std::move(main[m]));
  for (auto& c : confirmed) out.push_back(std::move(c));
  for (auto& c : dropped) out.push_back(std::move(c));
  for (size_t m = window; m < main.size(); ++m) out.push_back(std::move(main[m]));
  for (auto& c : rest) out.push_back(std::move(c));
  for (auto& c : graph_only) out.push_back(std::move(c));
  return out;
}

// Moves the chunks of pinned lists to the front, in list order (RankedList::pin).
std::vector<Candidate> pin_first(std::vector<Candidate> all, const std::vector<RankedList>& extra) {
  std::vector<std::string> pinned;
  std::unordered_map<std::string, std::vector<std::string>> where;
  for (const auto& l : extra)
    if (l.pin)
      for (const auto& id : l.chunk_ids) {
        if (std::find(pinned.begin(), pinned.end(), id) == pinned.end()) pinned.push_back(id);
        where[id].insert(where[id].end(), l.where.begin(), l.where.end());
      }
  if (pinned.empty()) return all;
  std::vector<Candidate> out;
  for (const auto& id : pinned)
    for (auto& c : all)
      if (!c.hit.chunk_id.empty() && c.hit.chunk_id == id) {
        c.where = where[id];
        out.push_back(std::move(c));
        c.hit.chunk_id.clear();  // moved: skipped below
        break;
      }
  for (auto& c : all)
    if (!c.hit.chunk_id.empty()) out.push_back(std::move(c));
  return out;
}

// The sub-queries as one batch of searches: the question itself decomposed (QueryPlan::subqueries),
// a definition sub-query as a wide BM25 candidate set (re-ranked by definition_first).
std::vector<SearchQuery> search_batch(const QueryPlan& plan, const RetrieveOptions& opt) {
  const bool def_query = !plan.definiendum.empty();
  std::vector<SearchQuery> batch;
  for (size_t q = 0; q < plan.subqueries.size(); ++q) {
    bool raw = q < plan.matches.size() && !plan.matches[q].empty();
    SearchQuery sq{.text = plan.subqueries[q], .match = raw ? plan.matches[q] : std::string()};
    if (q == 0 && !raw) sq.parts = plan.parts;
    if (raw && def_query) sq.lexical_only = true, sq.k = std::max(opt.k_per_query * 10, 50);
    batch.push_back(std::move(sq));
  }
  return batch;
}

// How each sub-query is searched. With the graph's lists (`guesses`), each sub-query also reports
// its hits just below the cut (down to 2 k_per_query): the graph may confirm one of them
// (reserve_order). The lexical reranker scores each passage's proximity to the question: the
// fusion leaves it out so that it counts once (unless the caller fixed the fusion,
// RetrieveOptions::fusion: then each sub-query is ranked as search() ranks it). Unless a fusion is
// chosen, the sub-queries fuse by relative scores, and search by z-scores (docs/EVAL.md: what
// `--fusion auto` means). The planner's sub-queries are a decomposition of their own.
SearchOptions subquery_options(const Searcher& searcher, const RetrieveOptions& opt, bool guesses) {
  SearchOptions so;
  so.mode = opt.mode;
  so.k = guesses ? opt.k_per_query * 2 : opt.k_per_query;
  so.proximity_list = opt.fusion || !(opt.reranker && opt.reranker->scores_proximity());
  so.fold_model = opt.fold_model;
  so.cancel = opt.cancel;
  if (opt.fusion) so.fusion = opt.fusion;
  else if (!searcher.fusion_chosen()) so.fusion = Fusion::Relative;
  return so;
}

// A definition sub-query's hits re-ranked by how well each one's best sentence reads as a
// definition of `definiendum`, keeping BM25 order among equals; those with none dropped; at most k.
std::vector<SearchHit> definition_first(std::vector<SearchHit> hits, const std::string& definiendum, size_t k) {
  const Definiendum x(definiendum);
  std::vector<std::pair<double, size_t>> order;
  for (size_t i = 0; i < hits.size(); ++i) order.emplace_back(best_definition_grade(x, hits[i].text), i);
  std::stable_sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.first > b.first; });
  std::vector<SearchHit> top;
  for (size_t i = 0; i < order.size() && top.size() < k; ++i)
    if (order[i].first > 0) top.push_back(std::move(hits[order[i].second]));
  return top;
}

// The sub-queries' hits fused by reciprocal rank (the question itself weighs more than the
// phrases cut from it); hits below the cut k are kept for the graph to confirm, unfused.
struct Fused {
  std::vector<Candidate> all;
  std::unordered_map<std::string, size_t> index;  ///< chunk id -> place in all
  std::vector<std::string> first_hit;             ///< each sub-query's best chunk
  std::vector<std::string> question_first;        ///< the question's hits within the cut
};

void fuse_subquery(Fused& f, size_t q, std::vector<SearchHit> hits, size_t k, const std::string& subquery,
                   const LogFn& log) {
  if (!hits.empty()) f.first_hit[q] = hits[0].chunk_id;
  std::set<std::string> docs;
  const double w = q == 0 ? kFusionWeights.question : kFusionWeights.subquery;
  for (size_t r = 0; r < hits.size(); ++r) {
    auto [it, fresh] = f.index.try_emplace(hits[r].chunk_id, f.all.size());
    if (fresh) f.all.push_back(Candidate{.hit = std::move(hits[r])});
    Candidate& c = f.all[it->second];
    if (c.best_rank == 0 || r + 1 < c.best_rank) c.best_rank = r + 1;
    c.subqueries.push_back(static_cast<int>(q));
    if (r >= k) continue;  // below the cut: only the graph can bring it in
    if (q == 0) f.question_first.push_back(c.hit.chunk_id);
    docs.insert(c.hit.doc);
    c.fused += w / (kRrfK + static_cast<double>(r + 1));
  }
  std::string dl;
  for (auto& d : docs) dl += (dl.empty() ? "" : ", ") + d;
  logf(log, "mmkg: retrieve: %zu chunks for sub-query '%s' (%s)", std::min(hits.size(), k), subquery.c_str(),
       dl.empty() ? "none" : dl.c_str());
}

// Lists that start from the retrievers' first hits (RankedList::from_hits) filled from the
// sub-queries' first k hits in fused order.
void fill_from_hits(std::vector<RankedList>& lists, const Fused& f) {
  if (!std::any_of(lists.begin(), lists.end(), [](const RankedList& l) { return bool(l.from_hits); })) return;
  std::vector<const Candidate*> head;
  for (const auto& c : f.all)
    if (c.fused > 0) head.push_back(&c);
  std::stable_sort(head.begin(), head.end(), [](const Candidate* a, const Candidate* b) { return a->fused > b->fused; });
  std::vector<std::string> first;
  for (const auto* c : head) first.push_back(c->hit.chunk_id);
  for (auto& l : lists)
    if (l.from_hits) l.chunk_ids = l.from_hits(l.question_hits ? f.question_first : first);
}

// A follow-up round's sub-queries look for what the last answer lacked, and a definition
// sub-query for the passage that defines X: the best hit of each takes a place among the first
// max_chunks (the weakest other candidates make room).
std::vector<Candidate> promote_first_hits(std::vector<Candidate> all, const Fused& f, const QueryPlan& plan,
                                          const std::vector<SearchQuery>& batch, size_t max_chunks) {
  std::vector<std::string> promoted;
  for (size_t q = 0; q < plan.subqueries.size() && promoted.size() < max_chunks; ++q) {
    if (f.first_hit[q].empty() || (q < plan.followup_from && !batch[q].lexical_only)) continue;
    if (std::find(promoted.begin(), promoted.end(), f.first_hit[q]) == promoted.end()) promoted.push_back(f.first_hit[q]);
  }
  if (promoted.empty()) return all;
  std::vector<Candidate> lead, chosen, rest;
  const size_t room = max_chunks - promoted.size();
  for (auto& c : all) {
    const bool is_promoted = std::find(promoted.begin(), promoted.end(), c.hit.chunk_id) != promoted.end();
    if (is_promoted) chosen.push_back(std::move(c));
    else if (lead.size() < room) lead.push_back(std::move(c));
    else rest.push_back(std::move(c));
  }
  for (auto& c : chosen) lead.push_back(std::move(c));
  for (auto& c : rest) lead.push_back(std::move(c));
  return lead;
}

}  // namespace

std::vector<SearchHit> fuse_with_list(Store& store, std::vector<SearchHit> hits, const RankedList& list, size_t k) {
  if (list.chunk_ids.empty()) {
    if (hits.size() > k) hits.resize(k);
    return hits;
  }
  std::unordered_map<std::string, size_t> at;
  std::vector<std::pair<double, SearchHit>> all;
  for (size_t r = 0; r < hits.size(); ++r) {
    at.emplace(hits[r].chunk_id, all.size());
    all.emplace_back(1.0 / (kRrfK + static_cast<double>(r + 1)), std::move(hits[r]));
  }
  for (size_t r = 0; r < list.chunk_ids.size(); ++r) {
    const std::string& id = list.chunk_ids[r];
    auto it = at.find(id);
    if (it == at.end()) {
      auto h = hit_for_chunk(store, id);
      if (!h) continue;
      it = at.emplace(id, all.size()).first;
      all.emplace_back(0.0, std::move(*h));
    }
    all[it->second].first += list.weight / (kRrfK + static_cast<double>(r + 1));
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<SearchHit> out;
  for (auto& [score, h] : all) {
    if (out.size() >= k) break;
    h.score = score;
    out.push_back(std::move(h));
  }
  return out;
}

std::vector<Candidate> rank_candidates(Store& store, Searcher& searcher, const QueryPlan& plan,
                                       const RetrieveOptions& opt, const std::vector<RankedList>& extra,
                                       const LogFn& log, RerankReport* report) {
  const auto& subqueries = plan.subqueries;
  // Every sub-query at once: one batched embedding call, the searches on parallel threads.
  const std::vector<SearchQuery> batch = search_batch(plan, opt);
  const bool guesses = std::any_of(extra.begin(), extra.end(), [](const RankedList& l) { return !l.pin; });
  const size_t k = static_cast<size_t>(opt.k_per_query);
  std::vector<std::vector<SearchHit>> results =
      searcher.search_many(batch, subquery_options(searcher, opt, guesses), opt.parallel);
  Fused f;
  f.first_hit.resize(subqueries.size());
  for (size_t q = 0; q < subqueries.size(); ++q)
    fuse_subquery(f, q, batch[q].lexical_only ? definition_first(std::move(results[q]), plan.definiendum, k)
                                              : std::move(results[q]),
                  k, subqueries[q], log);
  std::vector<RankedList> lists = extra;
  fill_from_hits(lists, f);
  std::vector<Candidate> all = std::move(f.all);
  add_ranked_lists(store, lists, subqueries.size(), k, f.index, all, log);
  if (opt.exclude)
    all.erase(std::remove_if(all.begin(), all.end(), [&](const Candidate& c) { return opt.exclude(c.hit); }), all.end());
  const size_t slots = guesses ? std::min(opt.graph_slots, opt.max_chunks) : 0;
  all = reserve_order(std::move(all), subqueries.size(), k, opt.max_chunks - slots, slots);
  all = promote_first_hits(std::move(all), f, plan, batch, opt.max_chunks);
  // Rerank the best candidates (rerank.h).
  if (opt.reranker && !subqueries.empty()) {
    RerankReport rr = rerank(*opt.reranker, subqueries[0], all, opt.rerank_top_n, opt.rerank_weight);
    if (rr.fallback.empty())
      logf(log, "mmkg: retrieve: reranked %zu candidates with %s in %.0f ms (%zu moved)", rr.scored,
           rr.reranker.c_str(), rr.ms, rr.moved);
    else
      logf(log, "mmkg: retrieve: reranker %s failed (%s); fused order kept", rr.reranker.c_str(), rr.fallback.c_str());
    if (report) *report = std::move(rr);
  }
  return pin_first(std::move(all), lists);
}

Retrieval retrieve(Store& store, Searcher& searcher, const QueryPlan& plan, const RetrieveOptions& opt,
                   const std::vector<RankedList>& extra, const LogFn& log) {
  Retrieval r;
  std::vector<Candidate> all = rank_candidates(store, searcher, plan, opt, extra, log, &r.rerank);
  r.unique_chunks = all.size();
  // Pack the ranked candidates into the token budget (context_budget.h).
  const auto& subqueries = plan.subqueries;
  TermStats stats(store);
  pack_context(std::move(all), query_terms(subqueries, stats), {opt.max_chunks, opt.max_context_tokens, opt.tokens}, r);
  return r;
}

}  // namespace mmkg
