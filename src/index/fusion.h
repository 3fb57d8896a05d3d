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
enum class Fusion { Zscore, Relative, Rrf };
/// "zscore" | "relative" | "rrf"; throws UsageError otherwise.
Fusion parse_fusion(const std::string& s);
const char* fusion_name(Fusion f);
/// The names parse_fusion accepts, for --help and errors.
const char* fusion_names();

/// One list's candidates, best first: (key, score), keys in [0, n) of fuse_lists.
using FusionList = std::vector<std::pair<size_t, double>>;

struct FusionParams {
  double alpha = 0.5;  ///< Relative: weight of the second (dense) list
  double rrf_k = 60;   ///< Rrf: the constant
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

}  // namespace mmkg
