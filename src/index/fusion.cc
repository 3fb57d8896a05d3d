#include "index/fusion.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace mmkg {

Fusion parse_fusion(const std::string& s) {
  if (s == "zscore") return Fusion::Zscore;
  if (s == "relative") return Fusion::Relative;
  if (s == "rrf") return Fusion::Rrf;
  if (s == "fitted") return Fusion::Fitted;
  throw UsageError("unknown fusion '" + s + "'; use " + fusion_names());
}

const char* fusion_name(Fusion f) {
  switch (f) {
    case Fusion::Zscore: return "zscore";
    case Fusion::Relative: return "relative";
    case Fusion::Rrf: return "rrf";
    case Fusion::Fitted: return "fitted";
  }
  return "zscore";
}

const char* fusion_names() { return "fitted, zscore, relative or rrf"; }

namespace {

// Relative: min-max normalised scores, weighted sum of the first two lists.
void relative(const std::vector<FusionList>& lists, const FusionParams& p, std::vector<double>& fused) {
  for (size_t l = 0; l < std::min<size_t>(2, lists.size()); ++l) {
    const double weight = l == 0 ? 1.0 - p.alpha : p.alpha;
    double hi = -1e300, lo = 1e300;
    for (auto& [k, s] : lists[l]) hi = std::max(hi, s), lo = std::min(lo, s);
    for (auto& [k, s] : lists[l]) fused[k] += weight * (hi > lo ? (s - lo) / (hi - lo) : 1.0);
  }
}

// Rrf: 1 / (k + rank) summed over the first two lists.
void rrf(const std::vector<FusionList>& lists, const FusionParams& p, std::vector<double>& fused) {
  for (size_t l = 0; l < std::min<size_t>(2, lists.size()); ++l)
    for (size_t r = 0; r < lists[l].size(); ++r) fused[lists[l][r].first] += 1.0 / (p.rrf_k + static_cast<double>(r + 1));
}

// Zscore: CombSUM of z-normalised scores (Montague and Aslam 2001). A z-score says how far a
// hit stands above its own list's candidates, so the lists' scales (BM25 sums, cosines,
// coverage shares) need no weights, and a list that is flat for this query (no hit stands out)
// moves the order little. A key missing from a list scores that list's lowest z: it was not
// among its candidates, so it is no better than the worst of them.
void zscore(const std::vector<FusionList>& lists, std::vector<double>& fused) {
  for (const auto& list : lists) {
    if (list.empty()) continue;
    double mean = 0;
    for (auto& [k, s] : list) mean += s;
    mean /= static_cast<double>(list.size());
    double var = 0;
    for (auto& [k, s] : list) var += (s - mean) * (s - mean);
    const double sd = std::sqrt(var / static_cast<double>(list.size()));
    std::vector<double> z(fused.size(), std::numeric_limits<double>::quiet_NaN());
    double lowest = 0;
    for (auto& [k, s] : list) {
      z[k] = sd > 0 ? (s - mean) / sd : 0.0;
      lowest = std::min(lowest, z[k]);
    }
    for (size_t k = 0; k < fused.size(); ++k) fused[k] += std::isnan(z[k]) ? lowest : z[k];
  }
}

// The keys some list returned (`seen`), best score first; ties keep key order.
std::vector<size_t> keys_by_score(const std::vector<bool>& seen, const std::vector<double>& scores) {
  std::vector<size_t> order;
  for (size_t k = 0; k < seen.size(); ++k)
    if (seen[k]) order.push_back(k);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  return order;
}

}  // namespace

std::vector<size_t> fuse_lists(const std::vector<FusionList>& lists, size_t n, Fusion f, const FusionParams& p,
                               std::vector<double>& scores) {
  scores.assign(n, 0.0);
  std::vector<bool> seen(n, false);
  for (const auto& l : lists)
    for (auto& [k, s] : l) seen[k] = true;
  switch (f) {
    case Fusion::Relative: relative(lists, p, scores); break;
    case Fusion::Rrf: rrf(lists, p, scores); break;
    case Fusion::Zscore:
    case Fusion::Fitted: zscore(lists, scores); break;
  }
  const std::vector<size_t> order = keys_by_score(seen, scores);
  if (f != Fusion::Zscore || p.floor_rank == 0) return order;
  // The floor: the best hit of each of the first floor_lists lists is placed no lower than
  // floor_rank. Walking down the fused order, a floored hit not placed yet is put in now when
  // the places left above the floor are only just enough for those still waiting.
  std::vector<size_t> floored;
  // A list whose first score ties its second has no best hit to keep.
  for (size_t l = 0; l < std::min(p.floor_lists, lists.size()); ++l)
    if (!lists[l].empty() && (lists[l].size() == 1 || lists[l][0].second > lists[l][1].second))
      floored.push_back(lists[l].front().first);
  std::vector<size_t> waiting;  // floored keys in fused order
  for (size_t k : order)
    if (std::find(floored.begin(), floored.end(), k) != floored.end()) waiting.push_back(k);
  if (waiting.size() > p.floor_rank) waiting.resize(p.floor_rank);
  std::vector<size_t> out;
  std::vector<bool> placed(n, false);
  size_t next = 0;
  while (out.size() < order.size()) {
    while (!waiting.empty() && placed[waiting.front()]) waiting.erase(waiting.begin());
    size_t k;
    if (!waiting.empty() && out.size() < p.floor_rank && waiting.size() >= p.floor_rank - out.size()) {
      k = waiting.front();
    } else {
      while (placed[order[next]]) ++next;
      k = order[next];
    }
    placed[k] = true;
    out.push_back(k);
  }
  return out;
}

std::vector<size_t> fuse_parts(const FusionList& whole, const std::vector<FusionList>& parts, size_t n,
                               std::vector<double>& scores) {
  scores.assign(n, 0.0);
  std::vector<bool> seen(n, false);
  for (auto& [k, s] : whole) scores[k] += s, seen[k] = true;
  const double share = parts.empty() ? 0.0 : 1.0 / static_cast<double>(parts.size());
  for (const auto& part : parts)
    for (auto& [k, s] : part) scores[k] += share * s, seen[k] = true;
  // Ties keep the whole question's order first (its keys were numbered first).
  return keys_by_score(seen, scores);
}

std::vector<size_t> smooth_neighbours(const std::vector<double>& scores, size_t n,
                                      const std::vector<std::pair<size_t, size_t>>& adjacent,
                                      const NeighbourParams& params, std::vector<double>& out) {
  const double lowest = scores.empty() ? 0.0 : *std::min_element(scores.begin(), scores.end());
  std::vector<double> own(n, 0.0), lift(n, 0.0);
  for (size_t k = 0; k < scores.size() && k < n; ++k) own[k] = scores[k] - lowest;
  for (auto [head, k] : adjacent)
    if (head < params.heads && head < scores.size() && k < n && k != head)
      lift[k] = std::max(lift[k], params.share * own[head]);  // the best of its heads, not the sum
  out.assign(n, 0.0);
  for (size_t k = 0; k < n; ++k) out[k] = lowest + own[k] + lift[k];
  return keys_by_score(std::vector<bool>(n, true), out);
}

}  // namespace mmkg
