#include "index/searcher.h"

#include "graph/graph_store.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/error.h"
#include "core/text.h"
#include "embed/embedder.h"
#include "index/vector_store.h"
#include "store/store.h"

namespace mmkg {

SearchMode parse_search_mode(const std::string& s) {
  if (s == "bm25") return SearchMode::Bm25;
  if (s == "dense") return SearchMode::Dense;
  if (s == "hybrid") return SearchMode::Hybrid;
  throw UsageError("unknown search mode '" + s + "'; use bm25, dense or hybrid");
}

const char* search_mode_name(SearchMode m) {
  switch (m) {
    case SearchMode::Bm25: return "bm25";
    case SearchMode::Dense: return "dense";
    case SearchMode::Hybrid: return "hybrid";
  }
  return "hybrid";
}

Searcher::Searcher(Store& store, std::string spec, std::string fusion)
    : store_(store), spec_(std::move(spec)), fusion_(std::move(fusion)) {
  if (fusion_ != "relative" && fusion_ != "rrf")
    throw UsageError("unknown fusion '" + fusion_ + "'; use relative or rrf");
}
Searcher::~Searcher() = default;

void Searcher::set_vector_backend(graph::GraphStore* backend) {
  remote_ = backend && backend->supports_vector_search() ? backend : nullptr;
}

std::string Searcher::dense_backend() const { return remote_ ? remote_->backend() : "faiss"; }

bool Searcher::ensure_dense() {
  if (tried_) return index_ != nullptr || (remote_ && embedder_);
  tried_ = true;
  if (spec_ == "none") {
    why_not_ = "no embedder configured (--embedder none)";
    return false;
  }
  try {
    embedder_ = make_embedder(spec_);
    if (remote_) return true;
    index_ = open_vector_index(store_, embedder_->id(), embedder_->dim());
    if (index_->size() == 0) {
      why_not_ = "the store has no embeddings for " + embedder_->id() + "; run `mmkg ingest` again to compute them";
      index_.reset();
    }
  } catch (const Error& e) {
    why_not_ = e.what();
    index_.reset();
  }
  return index_ != nullptr;
}

std::string Searcher::dense_unavailable_reason() {
  ensure_dense();
  return why_not_;
}

Embedder* Searcher::embedder() {
  ensure_dense();
  return embedder_.get();
}

std::vector<SearchHit> Searcher::dense(std::string_view text, int k) {
  std::vector<float> q = embedder_->embed({std::string(text)}, EmbedKind::Query);
  if (remote_) {  // the graph store's vector index (Neo4j): chunk ids with cosines
    std::vector<SearchHit> out;
    for (const auto& [id, score] : remote_->vector_search(q, k)) {
      auto c = store_.chunk(id);
      if (!c) continue;  // the graph store is ahead of this store: skip
      out.push_back(hit_from_chunk(*c, score));
    }
    return out;
  }
  auto res = index_->search(q.data(), k);
  std::vector<int64_t> ids;
  for (auto& [id, score] : res) ids.push_back(id);
  auto chunks = store_.chunks_by_rowid(ids);
  std::unordered_map<int64_t, size_t> pos;
  for (size_t i = 0; i < chunks.size(); ++i) pos[chunks[i].rowid] = i;
  std::vector<SearchHit> out;
  for (auto& [id, score] : res) {
    auto it = pos.find(id);
    if (it == pos.end()) continue;  // index ahead of the store: skip
    out.push_back(hit_from_chunk(chunks[it->second], score));
  }
  return out;
}

std::vector<SearchHit> Searcher::search(std::string_view query, const SearchOptions& opt) {
  return search_match(fts_query(query), query, opt);
}

std::vector<SearchHit> Searcher::search_match(const std::string& match, std::string_view text,
                                              const SearchOptions& opt) {
  LexicalOptions lo;
  if (opt.mode == SearchMode::Bm25 || (opt.mode == SearchMode::Hybrid && !ensure_dense())) {
    lo.k = opt.k;
    return bm25_match(store_, match, lo);
  }
  if (!ensure_dense()) throw UsageError("dense search is not available: " + why_not_);
  if (opt.mode == SearchMode::Dense) return dense(text, opt.k);

  // Hybrid: reciprocal-rank fusion of both candidate lists.
  lo.k = opt.candidates;
  auto lex = bm25_match(store_, match, lo);
  auto den = dense(text, opt.candidates);
  std::unordered_map<int64_t, size_t> at;
  std::vector<SearchHit> all;
  std::vector<double> fused;
  const bool rrf = (opt.fusion.empty() ? fusion_ : opt.fusion) == "rrf";
  auto add = [&](std::vector<SearchHit>& hits, double weight) {
    double hi = -1e300, lo = 1e300;
    for (auto& h : hits) hi = std::max(hi, h.score), lo = std::min(lo, h.score);
    for (size_t r = 0; r < hits.size(); ++r) {
      double contrib = rrf ? 1.0 / (opt.rrf_k + static_cast<double>(r + 1))
                           : weight * (hi > lo ? (hits[r].score - lo) / (hi - lo) : 1.0);
      auto [it, fresh] = at.try_emplace(hits[r].rowid, all.size());
      if (fresh) {
        all.push_back(std::move(hits[r]));
        fused.push_back(0);
      }
      fused[it->second] += contrib;
    }
  };
  add(lex, 1.0 - opt.alpha);
  add(den, opt.alpha);
  std::vector<size_t> order(all.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return fused[a] > fused[b]; });

  // Near-duplicate removal (MMR with a hard redundancy cut-off): walking down the fused list,
  // drop a hit whose embedding is nearly identical to one already kept (overlapping chunks,
  // the same passage in two documents).
  std::vector<int64_t> ids;
  for (size_t i : order) ids.push_back(all[i].rowid);
  std::unordered_map<int64_t, std::vector<float>> vec;
  store_.for_each_vector(embedder_->id(), [&](int64_t id, const float* v, size_t d) {
    vec[id].assign(v, v + d);
  }, &ids);
  std::vector<SearchHit> out;
  std::vector<const std::vector<float>*> kept;
  for (size_t i : order) {
    if (out.size() >= static_cast<size_t>(opt.k)) break;
    auto it = vec.find(all[i].rowid);
    const std::vector<float>* v = it == vec.end() ? nullptr : &it->second;
    bool dup = false;
    if (v)
      for (auto* u : kept) {
        if (u->size() != v->size()) continue;
        double dot = 0;
        for (size_t d = 0; d < v->size(); ++d) dot += (*u)[d] * (*v)[d];
        if (dot > opt.duplicate_cosine) {
          dup = true;
          break;
        }
      }
    if (dup) continue;
    if (v) kept.push_back(v);
    all[i].score = fused[i];
    out.push_back(std::move(all[i]));
  }
  return out;
}

}  // namespace mmkg
