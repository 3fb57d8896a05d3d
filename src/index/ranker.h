// The fitted ranker of hybrid search (Fusion::Fitted, index/fusion.h): a logistic model over
// features of each pooled candidate (its BM25 and dense scores, ranks and z-scores, its
// proximity to the question, the question's terms in its heading and document name, figure
// signals), fitted by scripts/train_ranker.py with document-grouped cross-validation on the dev
// sets. The model file (models/ranker.json, built into the binary; --ranker FILE overrides it)
// holds the full model and one model per cross-validation fold (fitted_model.h).
#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "index/fitted_model.h"

namespace mmkg {

struct SearchHit;

/// The features, in this order (RankFeatures::names()); a model file names the ones it weighs.
enum class RankFeature : size_t {
  Bm25Z,       ///< BM25 score as a z-score over the BM25 list (absent: the list's lowest)
  Bm25Rel,     ///< BM25 score min-max normalised over the list (absent: 0)
  Bm25Rr,      ///< 1 / rank in the BM25 list (absent: 0)
  DenseZ,      ///< cosine as a z-score over the dense list (absent: the list's lowest)
  DenseRel,    ///< cosine min-max normalised over the dense list (absent: 0)
  DenseRr,     ///< 1 / rank in the dense list (absent: 0)
  DenseCos,    ///< the cosine itself (absent: the list's lowest)
  Prox,        ///< proximity of the question's terms (text/proximity.h), 0 .. 1.25
  ProxZ,       ///< proximity as a z-score over the pool
  TitleCov,    ///< IDF-weighted share of the question's terms in the document's file name
  HeadingCov,  ///< the same in the chunk's heading path
  Figure,      ///< the chunk is a figure's or a table's (caption and text)
  FigureQ,     ///< Figure, and the question asks about a figure, table, plot or chart
  LogLen,      ///< log(1 + characters) / 8
  SentCos,     ///< the best sentence's cosine to the question (embed/sentence_vectors.h; none: 0)
  SentZ,       ///< SentCos as a z-score over the pool
  GraphLink,   ///< share of the question's linked entities (weighted by specificity) the chunk mentions
  GraphPpr,    ///< personalised PageRank mass from those entities, over the pool's highest (absent: 0)
  GraphBridge, ///< multi-part questions: bridge-entity score from the lists' first hits, over the pool's
               ///< highest (graph_algo.h rank_chunks_by_bridge; one-part questions: 0)
  Count
};
constexpr size_t kRankFeatures = static_cast<size_t>(RankFeature::Count);
using FeatureRow = std::array<double, kRankFeatures>;

/// Feature names, as model files and the --features dump spell them ("bm25_z", ...).
const std::vector<std::string>& rank_feature_names();

/// Inputs for one pool: per candidate, its score in the BM25 and dense lists (NaN: not in it)
/// and its 1-based rank there (0: not in it), its proximity, title and heading coverage.
struct PoolSignals {
  std::vector<double> bm25, dense;
  std::vector<size_t> bm25_rank, dense_rank;
  std::vector<double> prox, title_cov, heading_cov;
  std::vector<bool> figure;
  std::vector<size_t> chars;
  std::vector<double> sent;  ///< best sentence cosines; empty: no embedder (SentCos, SentZ 0)
  /// The graph's signals (agents/graph_signals.h); empty: no graph (GraphLink, GraphPpr, GraphBridge 0).
  std::vector<double> graph_link, graph_ppr, graph_bridge;
  bool figure_question = false;
};

/// The feature rows of a pool (pure: tested in ranker_test.cc).
std::vector<FeatureRow> rank_features(const PoolSignals& s);

/// True when the question asks about a figure, table, plot, chart, diagram or screenshot.
bool asks_about_figure(std::string_view question);

/// The model's scores of a pool's rows, z-scaled over the pool: question decomposition sums
/// them as it sums z-scores (fuse_parts), and neighbour smoothing lifts by a share of the lead
/// over the lowest.
std::vector<double> pool_scores(const LinearModel& model, const std::vector<FeatureRow>& rows);

/// The fitted ranker's model file ("mmkg-ranker"; fitted_model.h): `path`, or empty for the one
/// built into the binary (models/ranker.json at build time). Throws UsageError for a bad file.
std::shared_ptr<const FittedModel> load_ranker(const std::string& path = "");

}  // namespace mmkg
