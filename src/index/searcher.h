// Search modes over a store: BM25, dense (embeddings + FAISS) and hybrid (fusion of both,
// index/fusion.h, then near-duplicate removal). Loads the embedder and the vector index lazily.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "index/fusion.h"
#include "index/lexical.h"
#include "index/model_file.h"
#include "index/ranker.h"

namespace mmkg {

class Store;
class Embedder;
class LazyEmbedder;
class LexicalBackend;
class VectorBackend;
class VectorIndex;
class ProximityScorer;
class SentenceVectors;

enum class SearchMode { Bm25, Dense, Hybrid };

/// "bm25" | "dense" | "hybrid"; throws UsageError otherwise.
SearchMode parse_search_mode(const std::string& s);
const char* search_mode_name(SearchMode m);


struct SearchOptions {
  SearchMode mode = SearchMode::Hybrid;
  int k = 10;
  int candidates = 50;          ///< per-retriever depth fed to fusion
  /// How hybrid mode fuses the two lists; unset: the Searcher's default (its constructor argument).
  std::optional<Fusion> fusion;
  FusionParams fusion_params;    ///< relative fusion's weight, RRF's constant, z-score's floor
  double duplicate_cosine = 0.95;  ///< a hit this similar to a better one is dropped (MMR cut-off)
  /// Z-score fusion's third list, the question's proximity (text/proximity.h). Off when a lexical
  /// reranker scores the same proximity afterwards (ask's default), so that it is counted once.
  bool proximity_list = true;
  /// Hybrid search() with z-score fusion: a multi-part question's parts are searched too and
  /// their pools summed with the question's (Searcher::search, fuse_parts). Off: one query.
  bool decompose = true;
  /// Decomposed questions: a part that refers back to the text before it ("..., and what does
  /// its residual panel suggest?", text/question_shape.h refers_to_antecedent) is searched only
  /// within the documents of the whole question's first `antecedent_hits` hits (Searcher::
  /// search_parts). 0 (the default): every part searched over the whole store, since a part may
  /// refer to another document than the question's first hits (docs/EVAL.md, "What is known
  /// not to work").
  size_t antecedent_hits = 0;
  /// Hybrid search with z-score fusion: the chunks next to the first hits are lifted
  /// (smooth_neighbours, index/fusion.h). Off: the fused order as it is.
  bool neighbours = true;
  NeighbourParams neighbour_params;
  /// Fitted pools scored by this model instead of the ranker file's full model (eval --cv: the
  /// question's fold model); nullptr: the full model. Not owned.
  const LinearModel* fold_model = nullptr;
  /// search() with Fusion::Fitted: the whole query's pool is handed to this with its feature rows
  /// (eval --features); its parts' pools and search_many's are not. Empty: none.
  using PoolCapture = std::function<void(const std::vector<SearchHit>& pool, const std::vector<FeatureRow>& rows)>;
  PoolCapture capture{};
  /// search_many: set (from any thread), the queries not yet begun are skipped and it throws
  /// Cancelled. nullptr: never stopped. Not owned.
  const std::atomic<bool>* cancel = nullptr;
};

/// One part of a question that asks several things, as the caller's analysis gives it
/// (agents/question.h; the index layer reads no English): searched on its own as well.
struct QueryPart {
  std::string text;
  /// The part names what it asks about by referring back to the text before it ("what does its
  /// vignette say?", text/question_shape.h refers_to_antecedent): see SearchOptions::antecedent_hits.
  bool refers_back = false;
};

/// One query of a batch (search_many).
struct SearchQuery {
  std::string text;   ///< free text: the dense side embeds it
  std::string match{};  ///< FTS5 expression for the lexical side; empty = fts_query(text)
  /// BM25 only, whatever the mode (a definition sub-query's wide candidate set), with this k
  /// (0 = the options' k).
  bool lexical_only = false;
  int k = 0;
  /// The question itself (no `match`): its parts, searched as search() does, when the fusion
  /// is z-score (SearchOptions::decompose). Fewer than two: one query.
  std::vector<QueryPart> parts{};
};

class XapianLexical;

/// What a Searcher is built with, fixed for its life.
struct SearcherSetup {
  /// The default hybrid fusion; unset: z-score (Searcher::fusion()), and callers that rank for a
  /// later step may pick their own (Searcher::fusion_chosen()).
  std::optional<Fusion> fusion{};
  /// The fitted ranker's model (Fusion::Fitted); nullptr: the built-in one.
  std::shared_ptr<const FittedModel> ranker{};
  /// The fitted ranker's model file, read again when it changes (index/model_file.h); set, it is
  /// used instead of `ranker`.
  std::shared_ptr<ModelFile> ranker_file{};
  /// The graph's signals of a Fitted pool (its Graph* features, index/ranker.h): fills
  /// sig.graph_* for the pool of a query of `parts` parts (the caller's; a part's own pool: 1).
  /// Called only when the model weighs a graph feature or the pool is captured, on the calling
  /// thread (search_many runs such pools one at a time: the callee reads the main store). Empty:
  /// those features are 0. The Session sets it (agents/graph_signals.h) when the store has a graph.
  using GraphSignals = std::function<void(std::string_view query, size_t parts, const std::vector<SearchHit>& pool,
                                          PoolSignals& sig)>;
  GraphSignals graph_signals{};
  /// Serve the dense side from another vector index (Neo4j's) instead of the store's FAISS
  /// index; nullptr: FAISS. Not owned.
  VectorBackend* vectors = nullptr;
  /// Serve the lexical side from another full-text index (Neo4j's) instead of the store's FTS5
  /// index: every BM25 list comes from it, its chunk ids read from the store (ids the store
  /// lacks are skipped); nullptr: FTS5. Not owned.
  LexicalBackend* lexical = nullptr;
  /// Use an older generation's vector index file as it is instead of rebuilding it (see
  /// open_vector_index): for readers while a writer is about to save the index.
  bool allow_stale_index = false;
};

class Searcher {
 public:
  /// `embedder`: the session's embedder, loaded on the first dense search (not owned; its spec
  /// "none" means BM25 only). `setup`: the fusion, ranker, graph signals and backends, fixed for
  /// the searcher's life.
  Searcher(Store& store, LazyEmbedder& embedder, SearcherSetup setup = {});
  ~Searcher();

  /// The fitted ranker in use (as its file now holds it, SearcherSetup::ranker_file; else
  /// SearcherSetup::ranker, else the built-in one). Hold it while using its folds.
  std::shared_ptr<const FittedModel> ranker() const { return ranker_file_ ? ranker_file_->get() : ranker_; }
  using PoolCapture = SearchOptions::PoolCapture;
  using GraphSignals = SearcherSetup::GraphSignals;

  /// The bi-encoder's sentence vectors (embed/sentence_vectors.h), shared with its callers;
  /// nullptr when dense retrieval is unavailable.
  SentenceVectors* sentence_vectors() { return ensure_dense() ? sentences_.get() : nullptr; }

  /// The default hybrid fusion: the constructor's, else z-score.
  Fusion fusion() const { return fusion_.value_or(Fusion::Zscore); }
  /// True when the constructor was given a fusion (the user's --fusion).
  bool fusion_chosen() const { return fusion_.has_value(); }

  /// Ranked hits for a free-text query. With z-score fusion and two or more `parts` (the
  /// question's, agents/question.h), each part is searched too: SearchOptions::decompose. Hybrid
  /// falls back to BM25 when no embedder or no vectors are available (see
  /// dense_unavailable_reason()); dense mode throws instead.
  std::vector<SearchHit> search(std::string_view query, const SearchOptions& opt,
                                const std::vector<QueryPart>& parts = {});
  /// As search(), with a ready FTS5 expression for the lexical side and `text` for the dense side.
  std::vector<SearchHit> search_match(const std::string& match, std::string_view text, const SearchOptions& opt);

  /// Several queries at once, one hit list per query, as search_match() would give each. The
  /// dense side embeds all query texts in one batch; the per-query work (BM25, vector search,
  /// fusion) runs on up to `parallel` threads (0 = one per core), each with its own read
  /// connection to the store. `parallel` 1 runs the queries one after another, each embedded
  /// alone (the sequential baseline the speed-up is measured against).
  std::vector<std::vector<SearchHit>> search_many(const std::vector<SearchQuery>& queries, const SearchOptions& opt,
                                                  int parallel = 0);

  /// Empty when dense search works; otherwise why not (model missing, no vectors).
  std::string dense_unavailable_reason();
  /// The embedder (loaded on first use); nullptr when unavailable.
  Embedder* embedder();
  /// "faiss" or the backend serving dense search ("neo4j").
  std::string dense_backend() const;
  /// The backend serving lexical search ("neo4j"), else who answered the last BM25 query through
  /// the main connection: "xapian" (the store's fresh Xapian index) or "fts5".
  std::string lexical_backend();
  /// The loaded vector index is an older generation's (SearcherSetup::allow_stale_index): read it
  /// again later.
  bool index_stale() const { return stale_; }

 private:
  std::vector<SearchHit> dense(std::string_view text, int k);
  /// The lexical list of an FTS5 expression, k deep: from the lexical backend when one is set
  /// (this thread only, its hits read through the main store), else BM25 through `store`.
  /// `defer_snippets`: a candidate list for fusion (LexicalOptions::defer_snippets).
  std::vector<SearchHit> lexical(Store& store, const std::string& match, int k, bool defer_snippets = false);
  /// The hits of a backend's (chunk id, score) list, read from the main store; ids it lacks
  /// (the backend is ahead of this store) are skipped.
  std::vector<SearchHit> stored_hits(const std::vector<std::pair<std::string, double>>& ranked);
  /// The FAISS neighbours of a ready query vector, read through `store`.
  std::vector<SearchHit> dense_vec(Store& store, const float* q, int k);
  /// Hybrid fusion of two candidate lists for the question `text` + near-duplicate removal
  /// (vectors and term statistics read through `store`).
  std::vector<SearchHit> fuse(Store& store, std::string_view text, std::vector<SearchHit> lex,
                              std::vector<SearchHit> den, const SearchOptions& opt, size_t parts = 1);
  /// The fused candidates of both lists, best first, each scored by the fusion (no cut).
  /// `parts`: how many parts the query asks (the graph signals' bridge hop needs two).
  std::vector<SearchHit> pool(Store& store, std::string_view text, std::vector<SearchHit> lex,
                              std::vector<SearchHit> den, const SearchOptions& opt, size_t parts = 1);
  /// True when the fitted model in use (the fold's or the file's) weighs a graph feature.
  bool weighs_graph(const SearchOptions& opt) const;
  /// The fitted model's scores of a pool (Fusion::Fitted), z-scaled; hands the pool to a capture.
  std::vector<double> fitted_scores(std::string_view text, size_t parts, const SearchOptions& opt,
                                    const std::vector<SearchHit>& all,
                                    const std::vector<FusionList>& lists, const ProximityScorer& proximity);
  /// The final cut of a fused pool (best first): near-duplicates dropped, then with z-score
  /// fusion the neighbours of the first hits lifted (with_neighbours) and near-duplicates
  /// dropped again; the first opt.k.
  std::vector<SearchHit> finish(Store& store, std::vector<SearchHit> ranked, const SearchOptions& opt);
  /// Neighbour smoothing of a ranked list (smooth_neighbours): the chunks next to its first hits
  /// in their documents, fetched from `store` when the list lacks them, lifted.
  std::vector<SearchHit> with_neighbours(Store& store, std::vector<SearchHit> ranked, const SearchOptions& opt);
  /// The first opt.k hits of `ranked` that are not near-duplicates of a better one.
  std::vector<SearchHit> drop_near_duplicates(Store& store, std::vector<SearchHit> ranked, const SearchOptions& opt);
  /// Hybrid search of `question` and of its `parts`, pools summed (fuse_parts).
  std::vector<SearchHit> search_parts(std::string_view question, const std::vector<QueryPart>& parts,
                                      const SearchOptions& opt);
  /// One query's fused list (near-duplicates removed, opt.candidates deep); with `docs`, only
  /// chunks of those documents (doc ids), read from lists 8 times as deep.
  std::vector<SearchHit> fused_list(const std::string& text, const SearchOptions& opt,
                                    const std::set<std::string>* docs = nullptr, size_t parts = 1);
  /// Whether search(opt) decomposes a multi-part question: hybrid, z-score fusion, dense available.
  bool decomposes(const SearchOptions& opt);
  bool ensure_dense();
  /// The query vectors of a batch (one embedding call) for the queries not `skip`ped and not
  /// lexical_only, and with a remote vector index their hits `depth` deep (asked from this thread).
  struct QueryVectors {
    std::vector<float> data;
    std::vector<const float*> of;                ///< per query: its vector, or nullptr
    std::vector<std::vector<SearchHit>> remote;  ///< per query: the remote index's hits
  };
  QueryVectors query_vectors(const std::vector<SearchQuery>& queries, const std::vector<bool>& skip, int depth);
  /// one(store, i) for i < n on up to `threads` threads, each with its own read connection; the
  /// first exception is rethrown after all have finished.
  void on_readers(size_t n, size_t threads, const std::function<void(Store&, size_t)>& one);
  Store& reader(size_t i);  ///< i = 0: the main store; else a pooled read connection
  /// Lexical options for a query through `s` (the main store or a reader()): its Xapian index.
  LexicalOptions lexical_options(Store& s);

  Store& store_;
  LazyEmbedder& source_;
  std::optional<Fusion> fusion_;
  std::shared_ptr<const FittedModel> ranker_;
  std::shared_ptr<ModelFile> ranker_file_;
  std::unique_ptr<SentenceVectors> sentences_;  ///< the fitted ranker's sentence features
  GraphSignals graph_signals_;
  bool tried_ = false;
  std::string why_not_;
  Embedder* embedder_ = nullptr;
  std::unique_ptr<VectorIndex> index_;
  VectorBackend* remote_ = nullptr;
  LexicalBackend* lexical_remote_ = nullptr;
  bool allow_stale_ = false, stale_ = false;
  std::vector<std::unique_ptr<Store>> readers_;  ///< extra connections for parallel queries
  /// The Xapian lexical index (large stores), one reader per connection: [0] for store_.
  struct LexicalSlot {
    std::unique_ptr<XapianLexical> handle;
    int64_t opened_at = -1;  ///< the store generation at which `handle` was last (re)opened
  };
  std::vector<LexicalSlot> lexical_;
  std::string last_lexical_;  ///< who answered the last BM25 query on store_: fts5, xapian
};

}  // namespace mmkg
