// Hybrid search's fusion of ranked lists (BM25, dense, and for z-score fusion the passages'
// proximity to the question), as pure functions over scores so that their properties can be
// tested without a store (index/searcher_test.cc).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace mmkg {

/// How hybrid mode fuses its lists:
///   Zscore   (default) each list's scores as z-scores over its own candidates (a list whose top
///            hits stand out of its own distribution counts more for this query; a flat list
///            counts little), summed over BM25, dense and the proximity of the question's terms
///            within two sentences (text/proximity.h); a candidate missing from a list gets
///            that list's lowest z. The best hit of BM25 and of dense stay in the top 3.
///   Relative min-max normalised scores, weighted sum (Weaviate's relativeScoreFusion), BM25
///            and dense only.
///   Rrf      reciprocal rank fusion (Cormack et al. 2009), BM25 and dense only.
///   Fitted   a logistic model over each candidate's features (index/ranker.h: the lists' scores,
///            ranks and z-scores, proximity, heading and title match, figure signals), fitted by
///            scripts/train_ranker.py; the Searcher scores its pools itself (fuse_lists ranks a
///            Fitted call as Zscore). Its scores are z-scaled over the pool, so that question
///            decomposition and neighbour smoothing read them as they read z-sums.
enum class Fusion { Zscore, Relative, Rrf, Fitted };
/// "zscore" | "relative" | "rrf"; throws UsageError otherwise.
Fusion parse_fusion(const std::string& s);
const char* fusion_name(Fusion f);
/// The names parse_fusion accepts, for --help and errors.
const char* fusion_names();

/// One list's candidates, best first: (key, score), keys in [0, n) of fuse_lists.
using FusionList = std::vector<std::pair<size_t, double>>;

/// Reciprocal rank fusion's constant k (Cormack et al. 2009): a hit at rank r adds 1 / (k + r).
/// Every rank fusion in mmkg uses it (hybrid search's Rrf, the retriever's lists, the reranker).
inline constexpr double kRrfK = 60.0;

struct FusionParams {
  double alpha = 0.5;     ///< Relative: weight of the second (dense) list
  double rrf_k = kRrfK;   ///< Rrf: the constant
  /// Zscore: the first hit of each of the first `floor_lists` lists is placed no lower than
  /// `floor_rank` (1-based; 0: no floor), so that a list's best guess is never pushed out of the
  /// head by agreement among the others. A list whose first two scores tie has no best guess.
  size_t floor_lists = 2;
  size_t floor_rank = 3;
};

/// The fused order of the keys (in [0, n)) found in any list, best first, with each key's fused
/// score in `scores` (size n). Relative and Rrf read the first two lists only.
std::vector<size_t> fuse_lists(const std::vector<FusionList>& lists, size_t n, Fusion f, const FusionParams& p,
                               std::vector<double>& scores);

/// Question decomposition's fusion (Searcher::search): the whole question's fused list and one
/// fused list per part of a multi-part question ("which X ..., and why Y?"), each (key, fused
/// z-sum score). A key scores its whole-question score plus the mean of its part scores
/// (CombSUM with the parts sharing one vote, so that the question's own list keeps as much say
/// as all its parts together); a key a list did not return scores 0 there, the mean of a z-sum
/// list's candidate pool (it was not among the list's best, so it counts as average for it).
/// The keys of every list, best first, with each key's score in `scores` (size n).
std::vector<size_t> fuse_parts(const FusionList& whole, const std::vector<FusionList>& parts, size_t n,
                               std::vector<double>& scores);

/// Neighbour smoothing (Searcher::search, z-score fusion): a passage next to one of the first
/// `heads` passages of a ranked list, in the same document, scores share × that head's score
/// above the list's lowest on top of its own (above the lowest too; 0 for a passage the list did
/// not hold). Text runs on across a chunk boundary: the reason after a claim, the second half
/// of a definition, the result after the method often sit in the chunk next to the one the
/// question's words found, in words the question does not share (Liu and Croft 2002 on
/// overlapping passages; "sentence window" retrieval). The head's own rank is untouched, and a
/// neighbour rises only as far as a share of its head's lead allows, so a passage with nothing
/// of its own is not placed above the head.
struct NeighbourParams {
  size_t heads = 3;     ///< the ranked list's first passages whose neighbours are lifted
  double share = 0.2;   ///< part of a head's score (above the list's lowest) a neighbour gains
};

/// `scores`: the ranked list's scores, best first (keys 0 .. scores.size()-1 by rank); keys from
/// scores.size() to n-1 are passages the list did not hold (score: the list's lowest).
/// `adjacent`: (head key, neighbour key) pairs, the head among the first params.heads keys.
/// The new order of all n keys, best first, each key's new score in `out` (size n).
std::vector<size_t> smooth_neighbours(const std::vector<double>& scores, size_t n,
                                      const std::vector<std::pair<size_t, size_t>>& adjacent,
                                      const NeighbourParams& params, std::vector<double>& out);

}  // namespace mmkg
