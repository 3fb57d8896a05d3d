#include "agents/rag.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "agents/definition.h"
#include "agents/trace.h"
#include "store/store.h"

namespace mmkg {

Retrieval retrieve(Store& store, Searcher& searcher, const Plan& plan, const RetrieveOptions& opt, Trace& trace) {
  const auto& subqueries = plan.subqueries;
  // Reciprocal rank fusion (Cormack et al. 2009, k = 60); the question itself weighs more than
  // the phrases cut from it.
  constexpr double kRrf = 60.0;
  std::unordered_map<std::string, size_t> index;
  std::vector<Candidate> all;
  LexicalOptions lo;
  lo.k = opt.k_per_query;
  for (size_t q = 0; q < subqueries.size(); ++q) {
    bool raw = q < plan.matches.size() && !plan.matches[q].empty();
    std::vector<SearchHit> hits;
    if (raw && !plan.definiendum.empty()) {
      // Definition sub-query: take a wide BM25 candidate set and re-rank it by how well its best
      // sentence reads as a definition, keeping BM25 order among equals.
      LexicalOptions wide = lo;
      wide.k = std::max(lo.k * 10, 50);
      hits = bm25_match(store, plan.matches[q], wide);
      auto x = definiendum_stems(plan.definiendum);
      std::vector<std::pair<double, size_t>> order;
      for (size_t i = 0; i < hits.size(); ++i) order.emplace_back(best_definition_strength(x, hits[i].text), i);
      std::stable_sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.first > b.first; });
      std::vector<SearchHit> top;
      for (size_t i = 0; i < order.size() && top.size() < static_cast<size_t>(lo.k); ++i)
        if (order[i].first > 0) top.push_back(std::move(hits[order[i].second]));
      hits = std::move(top);
    } else {
      SearchOptions so;
      so.mode = opt.mode;
      so.k = opt.k_per_query;
      hits = raw ? searcher.search_match(plan.matches[q], subqueries[q], so) : searcher.search(subqueries[q], so);
    }
    std::set<std::string> docs;
    double w = q == 0 ? 1.0 : 0.7;
    for (size_t r = 0; r < hits.size(); ++r) {
      docs.insert(hits[r].doc);
      auto [it, fresh] = index.try_emplace(hits[r].chunk_id, all.size());
      if (fresh) all.push_back(Candidate{std::move(hits[r]), 0, {}});
      Candidate& c = all[it->second];
      c.fused += w / (kRrf + static_cast<double>(r + 1));
      c.subqueries.push_back(static_cast<int>(q));
    }
    std::string dl;
    for (auto& d : docs) dl += (dl.empty() ? "" : ", ") + d;
    trace.log("mmkg: retrieve: %zu chunks for sub-query '%s' (%s)", hits.size(), subqueries[q].c_str(),
              dl.empty() ? "none" : dl.c_str());
  }
  std::stable_sort(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) { return a.fused > b.fused; });
  Retrieval r;
  r.unique_chunks = all.size();
  for (auto& c : all) {
    if (r.context.size() >= opt.max_chunks) break;
    if (!r.context.empty() && r.context_chars + c.hit.text.size() > opt.max_context_chars) continue;
    r.context_chars += c.hit.text.size();
    r.context.push_back(std::move(c));
  }
  return r;
}

}  // namespace mmkg
