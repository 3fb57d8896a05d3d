#include "agents/rag.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "agents/trace.h"
#include "store/store.h"

namespace mmkg {

Retrieval retrieve(Store& store, const std::vector<std::string>& subqueries, const RetrieveOptions& opt,
                   Trace& trace) {
  // Reciprocal rank fusion (Cormack et al. 2009, k = 60); the question itself weighs more than
  // the phrases cut from it.
  constexpr double kRrf = 60.0;
  std::unordered_map<std::string, size_t> index;
  std::vector<Candidate> all;
  LexicalOptions lo;
  lo.k = opt.k_per_query;
  for (size_t q = 0; q < subqueries.size(); ++q) {
    auto hits = bm25_search(store, subqueries[q], lo);
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
