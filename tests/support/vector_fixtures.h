// Helpers for the vector index tests (src/index/vector_index*_test.cc): test vectors, a reference
// model of what an index should hold, exact search to compare with.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "index/vector_index.h"

namespace mmkg::testing_vectors {

using Hits = std::vector<std::pair<int64_t, float>>;

/// n random unit vectors of dimension d.
inline std::vector<float> random_unit(size_t n, int d, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd;
  std::vector<float> x(n * d);
  for (size_t i = 0; i < n; ++i) {
    float* v = x.data() + i * d;
    double s = 0;
    for (int j = 0; j < d; ++j) {
      v[j] = nd(rng);
      s += double(v[j]) * v[j];
    }
    float inv = static_cast<float>(1.0 / std::sqrt(s));
    for (int j = 0; j < d; ++j) v[j] *= inv;
  }
  return x;
}

/// Exact top-k by inner product over the live (id -> vector) map.
inline Hits brute_force(const std::unordered_map<int64_t, std::vector<float>>& live, const float* q, int d, int k) {
  Hits all;
  for (auto& [id, v] : live) {
    float s = 0;
    for (int j = 0; j < d; ++j) s += v[j] * q[j];
    all.emplace_back(id, s);
  }
  std::sort(all.begin(), all.end(), [](auto& a, auto& b) { return a.second > b.second; });
  if (static_cast<int>(all.size()) > k) all.resize(k);
  return all;
}

/// Keeps a reference copy of what the index should contain.
struct Model {
  explicit Model(int d) : d(d) {}
  int d;
  std::unordered_map<int64_t, std::vector<float>> live;
  void add(VectorIndex& idx, const std::vector<int64_t>& ids, const std::vector<float>& x) {
    idx.add(ids, x.data());
    for (size_t i = 0; i < ids.size(); ++i) live[ids[i]].assign(x.begin() + i * d, x.begin() + (i + 1) * d);
  }
  void remove(VectorIndex& idx, const std::vector<int64_t>& ids) {
    idx.remove(ids);
    for (auto id : ids) live.erase(id);
  }
};

inline std::vector<int64_t> iota_ids(size_t n, int64_t first, int64_t step = 1) {
  std::vector<int64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = first + static_cast<int64_t>(i) * step;
  return ids;
}

inline void expect_sorted_unique(const Hits& h) {
  std::set<int64_t> seen;
  for (size_t i = 0; i < h.size(); ++i) {
    EXPECT_TRUE(seen.insert(h[i].first).second) << "duplicate id " << h[i].first;
    if (i) {
      EXPECT_GE(h[i - 1].second, h[i].second);
    }
  }
}

/// The index's results equal brute force (same ids in the same order, same scores).
inline void expect_exact(const VectorIndex& idx, const Model& m, const std::vector<float>& queries, int k) {
  size_t nq = queries.size() / m.d;
  for (size_t qi = 0; qi < nq; ++qi) {
    const float* q = queries.data() + qi * m.d;
    Hits got = idx.search(q, k);
    Hits want = brute_force(m.live, q, m.d, k);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(got[i].second, want[i].second, 1e-4);
      // Ids must agree unless two scores tie.
      if (std::fabs(got[i].second - want[i].second) < 1e-6) {
        EXPECT_EQ(got[i].first, want[i].first) << "rank " << i;
      }
    }
  }
}

inline double recall_at(const VectorIndex& idx, const Model& m, const std::vector<float>& queries, int k) {
  size_t nq = queries.size() / m.d, hit = 0, total = 0;
  for (size_t qi = 0; qi < nq; ++qi) {
    const float* q = queries.data() + qi * m.d;
    Hits got = idx.search(q, k);
    Hits want = brute_force(m.live, q, m.d, k);
    std::set<int64_t> w;
    for (auto& h : want) w.insert(h.first);
    for (auto& h : got) hit += w.count(h.first);
    total += want.size();
  }
  return total ? double(hit) / double(total) : 1.0;
}

inline void expect_absent(const VectorIndex& idx, const std::vector<float>& queries, int d, int k,
                   const std::set<int64_t>& removed) {
  for (size_t qi = 0; qi < queries.size() / d; ++qi)
    for (auto& h : idx.search(queries.data() + qi * d, k)) EXPECT_FALSE(removed.count(h.first)) << h.first;
}

/// Options of a d-dimensional index that switches to HNSW above 200 vectors.
inline VectorIndexOptions small_hnsw(int d) {
  VectorIndexOptions opt;
  opt.dim = d;
  opt.hnsw_threshold = 200;
  return opt;
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void spit(const std::string& path, const std::string& data) {
  // Unlink first: rewriting a truncated file makes ext4 flush it on close (auto_da_alloc), which is slow.
  std::filesystem::remove(path);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << data;
}

inline void expect_same_results(const VectorIndex& a, const VectorIndex& b, const std::vector<float>& queries, int d, int k) {
  for (size_t qi = 0; qi < queries.size() / d; ++qi) {
    Hits ha = a.search(queries.data() + qi * d, k), hb = b.search(queries.data() + qi * d, k);
    ASSERT_EQ(ha.size(), hb.size());
    for (size_t i = 0; i < ha.size(); ++i) {
      EXPECT_EQ(ha[i].first, hb[i].first);
      EXPECT_FLOAT_EQ(ha[i].second, hb[i].second);
    }
  }
}

/// n unit vectors with the structure of real embeddings, unlike i.i.d. random vectors (on which
/// every cosine is near 0 and a graph walk has nothing to follow): low intrinsic dimension (a fixed
/// random linear map of a 24-d latent space) and clusters (latent cluster centres, points spread
/// around them by `spread`), plus a little isotropic noise, normalised. Points go round-robin over
/// the clusters; the same `clusters` and d give the same map and centres for any seed, so vectors
/// drawn with another seed are held-out queries from the same distribution.
inline std::vector<float> clustered_unit(size_t n, int d, int clusters, float spread, uint32_t seed) {
  const int r = 24;
  std::mt19937 fixed(4242u + static_cast<uint32_t>(clusters));
  std::normal_distribution<float> nd;
  std::vector<float> w(static_cast<size_t>(d) * r), centres(static_cast<size_t>(clusters) * r);
  for (auto& v : w) v = nd(fixed) / std::sqrt(static_cast<float>(r));
  for (auto& v : centres) v = nd(fixed);
  std::mt19937 rng(seed);
  std::vector<float> x(n * d), z(r);
  for (size_t i = 0; i < n; ++i) {
    const float* c = centres.data() + (i % clusters) * r;
    for (int t = 0; t < r; ++t) z[t] = c[t] + spread * nd(rng);
    float* v = x.data() + i * d;
    double s = 0;
    for (int j = 0; j < d; ++j) {
      float acc = 0.1f * nd(rng);
      for (int t = 0; t < r; ++t) acc += w[static_cast<size_t>(j) * r + t] * z[t];
      v[j] = acc;
      s += double(acc) * acc;
    }
    float inv = static_cast<float>(1.0 / std::sqrt(s));
    for (int j = 0; j < d; ++j) v[j] *= inv;
  }
  return x;
}

}  // namespace mmkg::testing_vectors
