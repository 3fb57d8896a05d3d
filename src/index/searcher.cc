#include "index/searcher.h"

#include <algorithm>
#include <cmath>
#include <atomic>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "core/error.h"
#include "text/proximity.h"
#include "text/words.h"
#include "embed/embedder.h"
#include "embed/sentence_vectors.h"
#include "index/lexical_backend.h"
#include "index/ranker.h"
#include "index/vector_backend.h"
#include "index/vector_store.h"
#include "index/xapian_lexical.h"
#include "store/store.h"

namespace mmkg {

namespace {

// The hits of several ranked lists, each hit once (by row id), and each list as (index into
// `hits`, its score there): what the fusions take.
struct HitPool {
  std::unordered_map<int64_t, size_t> at;
  std::vector<SearchHit> hits;

  FusionList add(std::vector<SearchHit> ranked) {
    FusionList list;
    for (auto& h : ranked) {
      auto [it, fresh] = at.try_emplace(h.rowid, hits.size());
      list.emplace_back(it->second, h.score);
      if (fresh) hits.push_back(std::move(h));
    }
    return list;
  }
  /// The pooled hits in `order`, each with its fused score.
  std::vector<SearchHit> take(const std::vector<size_t>& order, const std::vector<double>& scores) {
    std::vector<SearchHit> out;
    for (size_t i : order) {
      hits[i].score = scores[i];
      out.push_back(std::move(hits[i]));
    }
    return out;
  }
};

// The order of all keys by score, best first (stable).
std::vector<size_t> keys_by_score(const std::vector<double>& scores) {
  std::vector<size_t> order(scores.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  return order;
}

// Fusions whose scores are on a z scale (decomposition and neighbour smoothing read them).
bool z_scaled(Fusion f) { return f == Fusion::Zscore || f == Fusion::Fitted; }

}  // namespace

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

Searcher::Searcher(Store& store, LazyEmbedder& embedder, SearcherSetup setup)
    : store_(store),
      source_(embedder),
      fusion_(setup.fusion),
      ranker_(setup.ranker || setup.ranker_file ? std::move(setup.ranker) : load_ranker()),
      ranker_file_(std::move(setup.ranker_file)),
      graph_signals_(std::move(setup.graph_signals)),
      remote_(setup.vectors),
      lexical_remote_(setup.lexical),
      allow_stale_(setup.allow_stale_index) {}

Searcher::~Searcher() = default;

std::string Searcher::dense_backend() const { return remote_ ? remote_->name() : "faiss"; }

std::string Searcher::lexical_backend() {
  if (lexical_remote_) return lexical_remote_->name();
  if (!last_lexical_.empty()) return last_lexical_;
  // No query yet: who would answer one.
  XapianLexical* x = lexical_options(store_).index;
  return x && x->generation() == store_.generation() ? "xapian" : "fts5";
}

std::vector<SearchHit> Searcher::stored_hits(const std::vector<std::pair<std::string, double>>& ranked) {
  std::vector<SearchHit> out;
  for (const auto& [id, score] : ranked) {
    auto c = store_.chunk(id);
    if (!c) continue;  // the backend is ahead of this store: skip
    out.push_back(hit_from_chunk(*c, score));
  }
  return out;
}

std::vector<SearchHit> Searcher::lexical(Store& store, const std::string& match, int k, bool defer_snippets) {
  if (match.empty() || k <= 0) return {};
  if (lexical_remote_) return stored_hits(lexical_remote_->text_search(match, k));
  LexicalOptions lo = lexical_options(store);
  lo.k = k;
  lo.defer_snippets = defer_snippets;
  std::string served;
  auto hits = bm25_match(store, match, lo, &served);
  if (&store == &store_) last_lexical_ = served;  // the calling thread's connection only
  return hits;
}

bool Searcher::ensure_dense() {
  if (tried_) return index_ != nullptr || (remote_ && embedder_);
  tried_ = true;
  embedder_ = source_.get();
  if (!embedder_) {
    why_not_ = source_.unavailable_reason();
    return false;
  }
  sentences_ = std::make_unique<SentenceVectors>(*embedder_);
  try {
    if (remote_) return true;
    VectorIndexStatus st;
    index_ = open_vector_index(store_, embedder_->id(), embedder_->dim(), {}, &st, allow_stale_);
    stale_ = st.stale;
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
  return embedder_;
}

std::vector<SearchHit> Searcher::dense(std::string_view text, int k) {
  std::vector<float> q = embedder_->embed({std::string(text)}, EmbedKind::Query);
  if (remote_) return stored_hits(remote_->vector_search(q, k));  // Neo4j's index: chunk ids with cosines
  return dense_vec(store_, q.data(), k);
}

std::vector<SearchHit> Searcher::dense_vec(Store& store, const float* q, int k) {
  auto res = index_->search(q, k);
  std::vector<int64_t> ids;
  for (auto& [id, score] : res) ids.push_back(id);
  auto chunks = store.chunks_by_rowid(ids);
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

bool Searcher::decomposes(const SearchOptions& opt) {
  return opt.mode == SearchMode::Hybrid && opt.decompose && z_scaled(opt.fusion.value_or(fusion())) &&
         ensure_dense();
}

std::vector<SearchHit> Searcher::search(std::string_view query, const SearchOptions& opt,
                                        const std::vector<QueryPart>& parts) {
  // Question decomposition (z-score fusion only): a question that asks two things ("which X
  // ..., and why Y?") often has its evidence in two passages, and one query for the whole ranks
  // first the passages about its general topic, or about the part with the rarer words. Each
  // part (the caller's, agents/question.h) is searched on its own as well, and the pools are summed
  // (fuse_parts): a passage that answers one part well rises, one that only shares the topic
  // does not. Z-sum scores are on one scale across queries (standard deviations above each
  // query's own candidates), which the min-max scores of relative fusion are not, so only
  // z-scaled fusions decompose (decomposes()).
  if (parts.size() >= 2 && decomposes(opt)) return search_parts(query, parts, opt);
  return search_match(fts_query(query), query, opt);
}

std::vector<SearchHit> Searcher::search_match(const std::string& match, std::string_view text,
                                              const SearchOptions& opt) {
  if (opt.mode == SearchMode::Bm25 || (opt.mode == SearchMode::Hybrid && !ensure_dense()))
    return lexical(store_, match, opt.k);
  if (!ensure_dense()) throw UsageError("dense search is not available: " + why_not_);
  if (opt.mode == SearchMode::Dense) return dense(text, opt.k);

  // Hybrid: fusion of both candidate lists.
  auto hits = finish(store_, pool(store_, text, lexical(store_, match, opt.candidates, true), dense(text, opt.candidates), opt),
                     opt);
  fill_snippets(store_, match, hits);
  return hits;
}

std::vector<SearchHit> Searcher::fuse(Store& store, std::string_view text, std::vector<SearchHit> lex,
                                      std::vector<SearchHit> den, const SearchOptions& opt, size_t parts) {
  return drop_near_duplicates(store, pool(store, text, std::move(lex), std::move(den), opt, parts), opt);
}

std::vector<SearchHit> Searcher::pool(Store& store, std::string_view text, std::vector<SearchHit> lex,
                                      std::vector<SearchHit> den, const SearchOptions& opt, size_t parts) {
  HitPool pool;
  std::vector<FusionList> lists;
  lists.push_back(pool.add(std::move(lex)));
  lists.push_back(pool.add(std::move(den)));
  const std::vector<SearchHit>& all = pool.hits;
  const Fusion method = opt.fusion.value_or(fusion());
  if (method == Fusion::Zscore && opt.proximity_list) {  // (Fitted computes proximity among its features)
    // The third list: every candidate's proximity to the question (text/proximity.h), what
    // neither BM25 (words anywhere in the chunk) nor the chunk vector (its whole meaning) sees.
    TermStats stats(store, lexical_options(store).index);
    const ProximityScorer proximity(text, stats);
    FusionList& near = lists.emplace_back();
    for (size_t i = 0; i < all.size(); ++i) near.emplace_back(i, proximity.score(all[i].text, all[i].doc, all[i].heading_path));
    std::stable_sort(near.begin(), near.end(), [](auto& a, auto& b) { return a.second > b.second; });
  }
  std::vector<double> fused;
  if (method == Fusion::Fitted) {
    TermStats stats(store, lexical_options(store).index);
    fused = fitted_scores(text, parts, opt, all, lists, ProximityScorer(text, stats));
  }
  const std::vector<size_t> order =
      method == Fusion::Fitted ? keys_by_score(fused) : fuse_lists(lists, all.size(), method, opt.fusion_params, fused);
  return pool.take(order, fused);
}

bool Searcher::weighs_graph(const SearchOptions& opt) const {
  const auto ranker = this->ranker();
  const LinearModel& model = opt.fold_model ? *opt.fold_model : ranker->full();
  for (RankFeature f : {RankFeature::GraphLink, RankFeature::GraphPpr, RankFeature::GraphBridge}) {
    const size_t i = static_cast<size_t>(f);
    if (i < model.weights.size() && model.weights[i] != 0.0) return true;
  }
  return false;
}

std::vector<double> Searcher::fitted_scores(std::string_view text, size_t parts, const SearchOptions& opt,
                                            const std::vector<SearchHit>& all,
                                            const std::vector<FusionList>& lists, const ProximityScorer& proximity) {
  PoolSignals sig;
  const size_t n = all.size();
  sig.bm25.assign(n, std::nan(""));
  sig.dense.assign(n, std::nan(""));
  sig.bm25_rank.assign(n, 0);
  sig.dense_rank.assign(n, 0);
  for (size_t r = 0; r < lists[0].size(); ++r) sig.bm25[lists[0][r].first] = lists[0][r].second, sig.bm25_rank[lists[0][r].first] = r + 1;
  for (size_t r = 0; r < lists[1].size(); ++r) sig.dense[lists[1][r].first] = lists[1][r].second, sig.dense_rank[lists[1][r].first] = r + 1;
  sig.figure_question = asks_about_figure(text);
  for (const auto& h : all) {
    sig.prox.push_back(proximity.score(h.text, h.doc, h.heading_path));
    sig.title_cov.push_back(proximity.coverage(h.doc.substr(0, std::min(h.doc.size(), h.doc.rfind('.')))));
    sig.heading_cov.push_back(proximity.coverage(h.heading_path));
    sig.figure.push_back(!h.figure_id.empty());
    sig.chars.push_back(h.text.size());
  }
  const auto ranker = this->ranker();
  const LinearModel& model = opt.fold_model ? *opt.fold_model : ranker->full();
  auto weighs = [&](RankFeature f) {
    const size_t i = static_cast<size_t>(f);
    return i < model.weights.size() && model.weights[i] != 0.0;
  };
  const PoolCapture& capture = opt.capture;
  // Sentence vectors cost an embedding per new sentence: only when the model weighs them, or
  // when the pool's rows are recorded for training.
  if (sentences_ && (capture || weighs(RankFeature::SentCos) || weighs(RankFeature::SentZ))) {
    std::vector<const std::string*> texts;
    for (const auto& h : all) texts.push_back(&h.text);
    sig.sent = sentences_->best_cosines(embedder_->embed({std::string(text)}, EmbedKind::Query), texts);
  }
  if (graph_signals_ && (capture || weighs_graph(opt))) graph_signals_(text, parts, all, sig);
  const std::vector<FeatureRow> rows = rank_features(sig);
  if (capture) capture(all, rows);
  return pool_scores(model, rows);
}

std::vector<SearchHit> Searcher::finish(Store& store, std::vector<SearchHit> ranked, const SearchOptions& opt) {
  const bool smooth = opt.neighbours && z_scaled(opt.fusion.value_or(fusion()));
  if (!smooth) return drop_near_duplicates(store, std::move(ranked), opt);
  // Smoothing reads the list as deep as its candidates (its lowest score is the floor); the
  // cut runs again after it, since a fetched neighbour may repeat a hit already kept.
  SearchOptions deep = opt;
  deep.k = std::max(opt.k, opt.candidates);
  return drop_near_duplicates(store, with_neighbours(store, drop_near_duplicates(store, std::move(ranked), deep), opt),
                              opt);
}

std::vector<SearchHit> Searcher::with_neighbours(Store& store, std::vector<SearchHit> ranked,
                                                 const SearchOptions& opt) {
  // Keys: the list's hits by rank, then the neighbours it lacks (fetched here).
  std::unordered_map<int64_t, size_t> key;
  for (size_t i = 0; i < ranked.size(); ++i) key.emplace(ranked[i].rowid, i);
  std::vector<double> scores;
  for (const auto& h : ranked) scores.push_back(h.score);
  std::vector<std::pair<size_t, size_t>> adjacent;
  std::vector<int64_t> missing;
  for (size_t head = 0; head < std::min(opt.neighbour_params.heads, ranked.size()); ++head)
    for (int64_t id : store.adjacent_rowids(ranked[head].rowid)) {
      auto [it, fresh] = key.try_emplace(id, ranked.size() + missing.size());
      if (fresh) missing.push_back(id);
      adjacent.emplace_back(head, it->second);
    }
  if (adjacent.empty()) return ranked;
  std::vector<SearchHit> all = std::move(ranked);
  std::vector<SearchHit> fetched(missing.size());
  for (auto& c : store.chunks_by_rowid(missing)) fetched[key[c.rowid] - all.size()] = hit_from_chunk(c, 0.0);
  for (auto& h : fetched) all.push_back(std::move(h));  // a row gone meanwhile stays empty: dropped below
  std::vector<double> smoothed;
  const std::vector<size_t> order = smooth_neighbours(scores, all.size(), adjacent, opt.neighbour_params, smoothed);
  std::vector<SearchHit> out;
  for (size_t k : order) {
    if (all[k].chunk_id.empty()) continue;
    all[k].score = smoothed[k];
    out.push_back(std::move(all[k]));
  }
  return out;
}

std::vector<SearchHit> Searcher::drop_near_duplicates(Store& store, std::vector<SearchHit> ranked,
                                                      const SearchOptions& opt) {
  // Near-duplicate removal (MMR with a hard redundancy cut-off): walking down the fused list,
  // drop a hit whose embedding is nearly identical to one already kept (overlapping chunks,
  // the same passage in two documents).
  std::vector<int64_t> ids;
  for (const auto& h : ranked) ids.push_back(h.rowid);
  std::unordered_map<int64_t, std::vector<float>> vec;
  store.for_each_vector(embedder_->id(), [&](int64_t id, const float* v, size_t d) {
    vec[id].assign(v, v + d);
  }, &ids);
  std::vector<SearchHit> out;
  std::vector<const std::vector<float>*> kept;
  for (auto& h : ranked) {
    if (out.size() >= static_cast<size_t>(opt.k)) break;
    auto it = vec.find(h.rowid);
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
    out.push_back(std::move(h));
  }
  return out;
}

std::vector<SearchHit> Searcher::search_parts(std::string_view question, const std::vector<QueryPart>& parts,
                                              const SearchOptions& opt) {
  // One fused list per query (the question, then each part), near-duplicates removed.
  HitPool pool;
  std::vector<FusionList> lists;
  lists.push_back(pool.add(fused_list(std::string(question), opt, nullptr, parts.size())));
  // A part that refers back ("Which package is that, and what does its vignette say?", "where
  // do that procedure's p values come from?") asks about what the text before it found. Alone,
  // its few words ("what does its residual panel suggest?") match passages anywhere in the
  // store; the passage that answers it is mostly in the document where its antecedent is, a
  // few chunks from the question's own best hits, beyond the reach of neighbour smoothing. So
  // such a part is searched only within the documents of the question's first
  // opt.antecedent_hits hits (a crude resolution of the reference: by place, not by words).
  std::set<std::string> docs;
  for (size_t i = 0; i < lists[0].size() && i < opt.antecedent_hits; ++i) docs.insert(pool.hits[lists[0][i].first].doc_id);
  SearchOptions part_opt = opt;  // a part's pool is not the question's: not captured
  part_opt.capture = nullptr;
  for (const auto& p : parts)
    lists.push_back(pool.add(fused_list(p.text, part_opt, !docs.empty() && p.refers_back ? &docs : nullptr)));
  std::vector<double> score;
  const std::vector<FusionList> part_lists(lists.begin() + 1, lists.end());
  const std::vector<size_t> order = fuse_parts(lists[0], part_lists, pool.hits.size(), score);
  auto hits = finish(store_, pool.take(order, score), opt);
  fill_snippets(store_, fts_query(question), hits);
  return hits;
}

std::vector<SearchHit> Searcher::fused_list(const std::string& text, const SearchOptions& opt,
                                            const std::set<std::string>* docs, size_t parts) {
  SearchOptions deep = opt;  // the list as search() would give it, as deep as its candidates
  deep.k = opt.candidates;
  const int depth = docs ? opt.candidates * 8 : opt.candidates;
  auto within = [&](std::vector<SearchHit> hits) {
    if (!docs) return hits;
    std::vector<SearchHit> out;
    for (auto& h : hits)
      if (docs->count(h.doc_id) && out.size() < static_cast<size_t>(opt.candidates)) out.push_back(std::move(h));
    return out;
  };
  return fuse(store_, text, within(lexical(store_, fts_query(text), depth, true)), within(dense(text, depth)), deep,
              parts);
}

Store& Searcher::reader(size_t i) {
  if (i == 0) return store_;
  // Only the calling thread (before search_many starts its threads) grows these: the threads
  // then index them, never resize them (a resize from two threads at once corrupted the vector:
  // an ask through `mmkg serve` failed with std::bad_alloc).
  while (readers_.size() < i) readers_.push_back(Store::open(store_.dir(), false));
  if (lexical_.size() < readers_.size() + 1) lexical_.resize(readers_.size() + 1);
  return *readers_[i - 1];
}

LexicalOptions Searcher::lexical_options(Store& s) {
  // The slot of this connection (0: the main store): each thread of search_many uses only its
  // own, and reader() sizes the vector before the threads start.
  size_t i = 0;
  while (i < readers_.size() && readers_[i].get() != &s) ++i;
  const size_t slot = &s == &store_ ? 0 : i + 1;
  if (slot >= lexical_.size()) {
    if (slot > 0) throw std::logic_error("Searcher: a reader connection was used before reader() opened it");
    lexical_.resize(1);  // the main store, on the calling thread
  }
  // A store without the index may get one from a later ingest (mmkg serve): look again. A handle
  // behind the store may be on files another process has since replaced (a rebuild renames a new
  // index into place, and an open handle keeps reading the old one): open the index afresh, once
  // per store generation, so a stale handle never outlives the write that made it stale.
  LexicalSlot& ls = lexical_[slot];
  const int64_t gen = s.generation();
  if (!ls.handle || (ls.opened_at != gen && ls.handle->generation() != gen)) {
    ls.handle = XapianLexical::open(store_.dir());
    ls.opened_at = gen;
  }
  LexicalOptions lo;
  lo.index = ls.handle.get();
  return lo;
}

Searcher::QueryVectors Searcher::query_vectors(const std::vector<SearchQuery>& queries, const std::vector<bool>& skip,
                                               int depth) {
  QueryVectors v;
  const size_t n = queries.size();
  v.of.assign(n, nullptr);
  v.remote.resize(n);
  std::vector<size_t> dense_q;
  for (size_t i = 0; i < n; ++i)
    if (!queries[i].lexical_only && !skip[i]) dense_q.push_back(i);
  if (dense_q.empty()) return v;
  const size_t dim = static_cast<size_t>(embedder_->dim());
  std::vector<std::string> texts;
  for (size_t i : dense_q) texts.push_back(queries[i].text);
  v.data = embedder_->embed(texts, EmbedKind::Query);
  if (v.data.size() != texts.size() * dim)
    throw Error("the embedder returned " + std::to_string(v.data.size()) + " values for " +
                std::to_string(texts.size()) + " queries of dimension " + std::to_string(dim));
  for (size_t j = 0; j < dense_q.size(); ++j) {
    v.of[dense_q[j]] = v.data.data() + j * dim;
    if (remote_) {
      std::vector<float> q(v.data.begin() + static_cast<long>(j * dim), v.data.begin() + static_cast<long>((j + 1) * dim));
      v.remote[dense_q[j]] = stored_hits(remote_->vector_search(q, depth));
    }
  }
  return v;
}

void Searcher::on_readers(size_t n, size_t threads, const std::function<void(Store&, size_t)>& one) {
  if (threads <= 1) {
    for (size_t i = 0; i < n; ++i) one(store_, i);
    return;
  }
  for (size_t t = 1; t < threads; ++t) reader(t);  // open the connections before the threads start
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::exception_ptr failure;
  auto work = [&](size_t t) {
    Store& s = reader(t);
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        one(s, i);
      } catch (...) {
        std::lock_guard<std::mutex> g(mu);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  if (failure) std::rethrow_exception(failure);
}

std::vector<std::vector<SearchHit>> Searcher::search_many(const std::vector<SearchQuery>& queries,
                                                          const SearchOptions& batch_opt, int parallel) {
  SearchOptions opt = batch_opt;  // a batch's pools are not captured (SearchOptions::capture)
  opt.capture = nullptr;
  const size_t n = queries.size();
  auto stopped = [&] { return opt.cancel && opt.cancel->load(std::memory_order_relaxed); };
  auto check_stop = [&] {
    if (stopped()) throw Cancelled("stopped by the caller during the sub-query searches");
  };
  check_stop();
  std::vector<std::vector<SearchHit>> out(n);
  auto match_of = [](const SearchQuery& q) { return q.match.empty() ? fts_query(q.text) : q.match; };
  auto lex = [&](Store& s, const SearchQuery& q, int k, bool defer = false) {
    return lexical(s, match_of(q), q.k > 0 ? q.k : k, defer);
  };
  // A question to decompose is searched as search() does it (its parts embedded one by one),
  // here on this thread; the batch below skips it.
  std::vector<bool> done(n, false);
  for (size_t i = 0; i < n; ++i)
    if (queries[i].parts.size() >= 2 && queries[i].match.empty() && !queries[i].lexical_only && decomposes(opt))
      out[i] = search(queries[i].text, opt, queries[i].parts), done[i] = true;
  if (parallel == 1) {  // the sequential baseline: one query at a time, each embedded alone
    for (size_t i = 0; i < n; ++i) {
      check_stop();
      if (!done[i])
        out[i] = queries[i].lexical_only ? lex(store_, queries[i], opt.k)
                                         : search_match(match_of(queries[i]), queries[i].text, opt);
    }
    return out;
  }
  const bool use_dense = opt.mode != SearchMode::Bm25 && ensure_dense();
  if (opt.mode == SearchMode::Dense && !use_dense) throw UsageError("dense search is not available: " + why_not_);
  const int depth = opt.mode == SearchMode::Hybrid ? opt.candidates : opt.k;
  // The dense side of every query: one batched embedding call; the remote vector index (Neo4j)
  // is asked here, from this thread (its client is not shared across threads).
  std::vector<bool> no_dense = done;
  if (!use_dense) no_dense.assign(n, true);
  QueryVectors qv = query_vectors(queries, no_dense, depth);
  // The lexical backend (Neo4j), if any, is asked here too, from this thread: each query's list
  // as deep as the work below takes it (the query's own k or opt.k alone, the candidates fused).
  std::vector<std::vector<SearchHit>> remote_lex(n);
  auto alone = [&](size_t i) { return queries[i].lexical_only || !qv.of[i]; };
  if (lexical_remote_)
    for (size_t i = 0; i < n; ++i)
      if (!done[i] && (alone(i) || opt.mode == SearchMode::Hybrid))
        remote_lex[i] = lex(store_, queries[i], alone(i) ? opt.k : opt.candidates);
  auto lex_of = [&](Store& s, size_t i, int k, bool defer = false) {
    return lexical_remote_ ? std::move(remote_lex[i]) : lex(s, queries[i], k, defer);
  };

  // The per-query work, on up to `parallel` threads with a store connection each.
  auto one = [&](Store& s, size_t i) {
    const SearchQuery& q = queries[i];
    if (done[i] || stopped()) return;
    if (alone(i)) {
      out[i] = lex_of(s, i, opt.k);
      return;
    }
    std::vector<SearchHit> den = remote_ ? std::move(qv.remote[i]) : dense_vec(s, qv.of[i], depth);
    if (opt.mode == SearchMode::Dense) {
      if (den.size() > static_cast<size_t>(opt.k)) den.resize(static_cast<size_t>(opt.k));
      out[i] = std::move(den);
      return;
    }
    out[i] = finish(s, pool(s, q.text, lex_of(s, i, opt.candidates, true), std::move(den), opt), opt);
    fill_snippets(s, match_of(q), out[i]);
  };
  size_t threads = parallel > 0 ? static_cast<size_t>(parallel)
                                : std::max<size_t>(1, std::thread::hardware_concurrency());
  threads = std::min(threads, n);
  // The graph's signals read the main store (the entity linker's cached name vectors): a Fitted
  // ranker that weighs them scores its pools on this thread, one query after another.
  if (opt.mode == SearchMode::Hybrid && opt.fusion.value_or(fusion()) == Fusion::Fitted && graph_signals_ &&
      weighs_graph(opt))
    threads = 1;
  on_readers(n, threads, one);
  check_stop();
  return out;
}

}  // namespace mmkg
