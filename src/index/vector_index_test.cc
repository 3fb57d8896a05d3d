// Tests of the vector index: the flat and HNSW backends behind the VectorIndex interface and the
// switch between them. Persistence: vector_index_persist_test.cc; benchmark:
// vector_index_bench_test.cc.
#include "index/vector_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <thread>

#include "core/error.h"
#include "support/temp_dir.h"
#include "support/vector_fixtures.h"

namespace mmkg {
namespace {

using namespace testing_vectors;

// ---------------------------------------------------------------------------------------------

TEST(VectorIndexFlat, EmptyIndexReturnsNothing) {
  VectorIndexOptions opt;
  opt.dim = 8;
  auto idx = make_vector_index(opt);
  auto q = random_unit(1, 8, 1);
  EXPECT_EQ(idx->size(), 0);
  EXPECT_EQ(idx->dim(), 8);
  EXPECT_EQ(idx->kind(), VectorIndexKind::Flat);
  EXPECT_TRUE(idx->search(q.data(), 10).empty());
  idx->add({}, nullptr);
  idx->remove({1, 2, 3});
  EXPECT_EQ(idx->size(), 0);
}

TEST(VectorIndexFlat, ExactVersusBruteForceWithRowIds) {
  VectorIndexOptions opt;
  opt.dim = 32;
  auto idx = make_vector_index(opt);
  Model m{32};
  // Sparse, large row ids: results must carry them, not positions.
  m.add(*idx, iota_ids(300, 1000000007, 13), random_unit(300, 32, 2));
  m.add(*idx, iota_ids(200, 5, 3), random_unit(200, 32, 3));
  EXPECT_EQ(idx->size(), 500);
  EXPECT_EQ(idx->kind(), VectorIndexKind::Flat);
  auto queries = random_unit(30, 32, 4);
  expect_exact(*idx, m, queries, 10);
  expect_exact(*idx, m, queries, 1);
  // A stored vector finds itself with cosine 1.
  auto& v = m.live.at(1000000007 + 13 * 17);
  Hits h = idx->search(v.data(), 3);
  ASSERT_FALSE(h.empty());
  EXPECT_EQ(h[0].first, 1000000007 + 13 * 17);
  EXPECT_NEAR(h[0].second, 1.0f, 1e-5);
  expect_sorted_unique(h);
}

TEST(VectorIndexFlat, KLargerThanSizeReturnsAll) {
  VectorIndexOptions opt;
  opt.dim = 16;
  auto idx = make_vector_index(opt);
  Model m{16};
  m.add(*idx, {7, 8, 9, 10, 11}, random_unit(5, 16, 5));
  auto q = random_unit(1, 16, 6);
  Hits h = idx->search(q.data(), 100);
  EXPECT_EQ(h.size(), 5u);
  expect_sorted_unique(h);
  EXPECT_TRUE(idx->search(q.data(), 0).empty());
  EXPECT_TRUE(idx->search(q.data(), -3).empty());
}

TEST(VectorIndexFlat, ReAddReplacesVector) {
  VectorIndexOptions opt;
  opt.dim = 16;
  auto idx = make_vector_index(opt);
  Model m{16};
  m.add(*idx, iota_ids(50, 1), random_unit(50, 16, 7));
  auto fresh = random_unit(3, 16, 8);
  m.add(*idx, {10, 20, 30}, fresh);
  EXPECT_EQ(idx->size(), 50);
  Hits h = idx->search(fresh.data() + 16, 1);
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].first, 20);
  EXPECT_NEAR(h[0].second, 1.0f, 1e-5);
  // Repeated id within one batch: the last vector wins.
  auto two = random_unit(2, 16, 9);
  idx->add({40, 40}, two.data());
  m.live[40].assign(two.begin() + 16, two.end());
  EXPECT_EQ(idx->size(), 50);
  h = idx->search(two.data() + 16, 1);
  EXPECT_EQ(h[0].first, 40);
  EXPECT_NEAR(h[0].second, 1.0f, 1e-5);
  expect_exact(*idx, m, random_unit(10, 16, 10), 5);
}

TEST(VectorIndexFlat, RemoveNeverReturnsRemovedIds) {
  VectorIndexOptions opt;
  opt.dim = 16;
  auto idx = make_vector_index(opt);
  Model m{16};
  auto x = random_unit(100, 16, 11);
  m.add(*idx, iota_ids(100, 0), x);
  std::vector<int64_t> gone = {0, 5, 50, 99, 12345 /* absent */};
  m.remove(*idx, gone);
  EXPECT_EQ(idx->size(), 96);
  // Querying with a removed vector itself does not bring it back.
  expect_absent(*idx, x, 16, 100, {0, 5, 50, 99});
  expect_exact(*idx, m, random_unit(10, 16, 12), 10);
  EXPECT_THROW(idx->add({-1}, x.data()), UsageError);
}

// ---------------------------------------------------------------------------------------------

TEST(VectorIndexHnsw, SwitchesAboveThresholdWithHighRecall) {
  auto opt = small_hnsw(384);
  auto idx = make_vector_index(opt);
  Model m{384};
  auto x = clustered_unit(1000, 384, 10, 0.8f, 20);
  // 150 first (flat), then batches that cross the threshold and keep growing the graph.
  for (size_t start = 0; start < 1000;) {
    size_t n = start == 0 ? 150 : 170;
    n = std::min(n, 1000 - start);
    std::vector<float> part(x.begin() + start * 384, x.begin() + (start + n) * 384);
    m.add(*idx, iota_ids(n, 100 + static_cast<int64_t>(start)), part);
    EXPECT_EQ(idx->kind(), start + n > 200 ? VectorIndexKind::Hnsw : VectorIndexKind::Flat);
    start += n;
  }
  EXPECT_EQ(idx->size(), 1000);
  auto queries = clustered_unit(50, 384, 10, 0.8f, 21);
  double r = recall_at(*idx, m, queries, 10);
  EXPECT_GE(r, 0.95) << "recall@10 " << r;
  // Results are best-first, unique, and stored vectors find themselves.
  for (int i = 0; i < 20; ++i) {
    Hits h = idx->search(x.data() + i * 37 * 384, 5);
    ASSERT_EQ(h.size(), 5u);
    EXPECT_EQ(h[0].first, 100 + i * 37);
    EXPECT_NEAR(h[0].second, 1.0f, 1e-4);
    expect_sorted_unique(h);
  }
  // k > size returns everything, exactly.
  Hits all = idx->search(queries.data(), 5000);
  EXPECT_EQ(all.size(), 1000u);
  expect_sorted_unique(all);
}

TEST(VectorIndexHnsw, RecallOnClusteredVectorsWithDefaults) {
  // Clustered vectors (as real embeddings are: many near neighbours at similar distances, the
  // hard case for a graph walk), default M / efConstruction / efSearch, queries held out from the
  // same clusters. Built by adds of 1,000 as ingest does.
  const int d = 384;
  VectorIndexOptions opt;
  opt.dim = d;
  opt.hnsw_threshold = 1000;
  auto idx = make_vector_index(opt);
  Model m{d};
  auto x = clustered_unit(6000, d, 60, 0.8f, 5);
  for (size_t start = 0; start < 6000; start += 1000) {
    std::vector<float> part(x.begin() + start * d, x.begin() + (start + 1000) * d);
    m.add(*idx, iota_ids(1000, 1 + static_cast<int64_t>(start)), part);
  }
  ASSERT_EQ(idx->kind(), VectorIndexKind::Hnsw);
  auto queries = clustered_unit(200, d, 60, 0.8f, 6);
  double r = recall_at(*idx, m, queries, 10);
  EXPECT_GE(r, 0.95) << "recall@10 " << r;
  // A much smaller search breadth must lose recall on the same data (the test can tell).
  auto weak = opt;
  weak.hnsw_ef_search = 10;
  weak.hnsw_ef_construction = 10;
  weak.hnsw_m = 2;
  auto w = make_vector_index(weak);
  Model mw{d};
  mw.add(*w, iota_ids(6000, 1), x);
  EXPECT_LT(recall_at(*w, mw, queries, 10), r);
}

TEST(VectorIndexHnsw, AddRemoveReplaceAndBackToFlat) {
  const int d = 32;
  auto opt = small_hnsw(d);
  auto idx = make_vector_index(opt);
  Model m{d};
  auto x = random_unit(600, d, 30);
  m.add(*idx, iota_ids(600, 1), x);
  ASSERT_EQ(idx->kind(), VectorIndexKind::Hnsw);
  auto queries = random_unit(40, d, 31);

  std::set<int64_t> removed;
  std::vector<int64_t> gone;
  for (int64_t id = 1; id <= 600; id += 7) gone.push_back(id);  // 86 ids
  m.remove(*idx, gone);
  m.remove(*idx, {100000, 100001});  // absent ids are ignored
  removed.insert(gone.begin(), gone.end());
  EXPECT_EQ(idx->size(), 600 - 86);
  EXPECT_EQ(idx->kind(), VectorIndexKind::Hnsw);
  expect_absent(*idx, x, d, 10, removed);         // each removed vector as the query
  expect_absent(*idx, queries, d, 600, removed);  // k > size: exact path
  EXPECT_EQ(idx->search(queries.data(), 600).size(), 514u);
  EXPECT_GE(recall_at(*idx, m, queries, 10), 0.95);

  // Re-adding an existing id replaces it.
  auto fresh = random_unit(1, d, 32);
  m.add(*idx, {2}, fresh);
  EXPECT_EQ(idx->size(), 514);
  Hits h = idx->search(fresh.data(), 1);
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].first, 2);
  EXPECT_NEAR(h[0].second, 1.0f, 1e-4);
  // The old vector of id 2 is gone: querying with it does not return id 2 with score 1.
  for (auto& hit : idx->search(x.data() + 1 * d, 5)) {
    if (hit.first == 2) {
      EXPECT_LT(hit.second, 0.99f);
    }
  }
  // Re-adding a removed id brings it back; an id twice in one batch: the last one wins.
  m.add(*idx, {8}, random_unit(1, d, 33));
  removed.erase(8);
  EXPECT_EQ(idx->size(), 515);
  auto two = random_unit(2, d, 34);
  idx->add({5000, 5000}, two.data());
  m.live[5000].assign(two.begin() + d, two.end());
  h = idx->search(two.data() + d, 1);
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].first, 5000);
  EXPECT_NEAR(h[0].second, 1.0f, 1e-4);
  EXPECT_EQ(idx->size(), 516);

  // Many more removals: still HNSW (size >= threshold / 2), removed ids never come back.
  gone.clear();
  for (int64_t id = 3; id <= 600; id += 5)
    if (!removed.count(id)) gone.push_back(id);
  m.remove(*idx, gone);
  removed.insert(gone.begin(), gone.end());
  EXPECT_EQ(idx->size(), static_cast<int64_t>(m.live.size()));
  EXPECT_EQ(idx->kind(), VectorIndexKind::Hnsw);
  expect_absent(*idx, x, d, 10, removed);
  EXPECT_GE(recall_at(*idx, m, queries, 10), 0.95);

  // Below threshold / 2 = 100: back to exact flat search.
  std::vector<int64_t> rest;
  for (auto& [id, v] : m.live) rest.push_back(id);
  std::sort(rest.begin(), rest.end());
  rest.resize(rest.size() - 90);
  m.remove(*idx, rest);
  EXPECT_EQ(idx->size(), 90);
  EXPECT_EQ(idx->kind(), VectorIndexKind::Flat);
  expect_exact(*idx, m, queries, 10);
  expect_exact(*idx, m, queries, 200);
}

TEST(VectorIndexHnsw, DeletedSlotsAreReusedSoTheGraphStaysBounded) {
  // The graph's element count is visible in the saved file's size (n elements of fixed size plus
  // their upper-level link lists): churn of removes and adds must not grow it.
  testing::TempDir dir;
  const int d = 64;
  auto opt = small_hnsw(d);
  opt.hnsw_threshold = 100;
  auto idx = make_vector_index(opt);
  Model m{d};
  m.add(*idx, iota_ids(1000, 1), clustered_unit(1000, d, 20, 0.8f, 40));
  ASSERT_EQ(idx->kind(), VectorIndexKind::Hnsw);
  idx->save(dir.file("a"), "");
  const auto base = std::filesystem::file_size(dir.file("a"));
  int64_t next = 100000;
  for (int round = 0; round < 10; ++round) {
    std::vector<int64_t> gone;
    for (auto& [id, v] : m.live)
      if (gone.size() < 300) gone.push_back(id);
    m.remove(*idx, gone);
    m.add(*idx, iota_ids(300, next), clustered_unit(300, d, 20, 0.8f, 41 + round));
    next += 300;
  }
  EXPECT_EQ(idx->size(), 1000);
  idx->save(dir.file("b"), "");
  const auto after = std::filesystem::file_size(dir.file("b"));
  // Same number of elements; only the number of upper-level link lists (random levels) varies.
  EXPECT_LT(after, base + base / 20) << base << " -> " << after;
  auto queries = clustered_unit(50, d, 20, 0.8f, 99);
  EXPECT_GE(recall_at(*idx, m, queries, 10), 0.95);
  std::set<int64_t> live_ids;
  for (auto& [id, v] : m.live) live_ids.insert(id);
  for (size_t q = 0; q < 50; ++q)
    for (auto& hit : idx->search(queries.data() + q * d, 20)) {
      EXPECT_TRUE(live_ids.count(hit.first)) << hit.first;
    }
}

TEST(VectorIndexHnsw, GrowsAcrossTheThresholdOverManySmallIngests) {
  // A store that grows by small ingests: flat until an add takes it past the threshold, then
  // HNSW, each later add inserted into the graph (capacity grows as it goes).
  const int d = 48;
  VectorIndexOptions opt;
  opt.dim = d;
  opt.hnsw_threshold = 500;
  auto idx = make_vector_index(opt);
  Model m{d};
  auto x = clustered_unit(3000, d, 30, 0.8f, 50);
  bool crossed = false;
  for (size_t start = 0; start < 3000; start += 37) {
    size_t n = std::min<size_t>(37, 3000 - start);
    std::vector<float> part(x.begin() + start * d, x.begin() + (start + n) * d);
    m.add(*idx, iota_ids(n, 1 + static_cast<int64_t>(start)), part);
    EXPECT_EQ(idx->kind(), start + n > 500 ? VectorIndexKind::Hnsw : VectorIndexKind::Flat) << start;
    if (!crossed && idx->kind() == VectorIndexKind::Hnsw) {
      crossed = true;
      expect_sorted_unique(idx->search(x.data(), 50));
      EXPECT_EQ(idx->size(), static_cast<int64_t>(start + n));
    }
  }
  EXPECT_EQ(idx->size(), 3000);
  auto queries = clustered_unit(100, d, 30, 0.8f, 51);
  EXPECT_GE(recall_at(*idx, m, queries, 10), 0.95);
  // Replacing ids while at the threshold does not switch (the size does not grow).
  VectorIndexOptions at = opt;
  at.hnsw_threshold = 100;
  auto f = make_vector_index(at);
  Model mf{d};
  mf.add(*f, iota_ids(100, 1), random_unit(100, d, 52));
  mf.add(*f, iota_ids(50, 1), random_unit(50, d, 53));
  EXPECT_EQ(f->kind(), VectorIndexKind::Flat);
  EXPECT_EQ(f->size(), 100);
  expect_exact(*f, mf, queries, 10);
}

TEST(VectorIndexHnsw, ConcurrentSearchesAgree) {
  const int d = 64;
  auto opt = small_hnsw(d);
  auto idx = make_vector_index(opt);
  Model m{d};
  m.add(*idx, iota_ids(2000, 1), random_unit(2000, d, 40));
  std::vector<int64_t> gone = iota_ids(100, 1, 3);
  m.remove(*idx, gone);
  ASSERT_EQ(idx->kind(), VectorIndexKind::Hnsw);
  auto queries = random_unit(64, d, 41);
  std::vector<Hits> want(64);
  for (int i = 0; i < 64; ++i) want[i] = idx->search(queries.data() + i * d, 10);
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      for (int rep = 0; rep < 5; ++rep)
        for (int i = 0; i < 64; ++i)
          if (idx->search(queries.data() + i * d, 10) != want[i]) ++mismatches[t];
    });
  for (auto& t : ts) t.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(mismatches[t], 0);
}

TEST(VectorIndexHnsw, SingleThreadedBuildMatchesQuality) {
  // hnsw_threads = 1 (no worker threads) and 3 (more threads than cores here) both build a
  // usable graph.
  const int d = 64;
  auto x = clustered_unit(3000, d, 30, 0.8f, 60);
  auto queries = clustered_unit(100, d, 30, 0.8f, 61);
  for (int threads : {1, 3}) {
    auto opt = small_hnsw(d);
    opt.hnsw_threads = threads;
    auto idx = make_vector_index(opt);
    Model m{d};
    m.add(*idx, iota_ids(3000, 1), x);
    EXPECT_EQ(idx->size(), 3000);
    EXPECT_GE(recall_at(*idx, m, queries, 10), 0.95) << threads << " threads";
  }
}

TEST(VectorIndex, RejectsBadArguments) {
  VectorIndexOptions opt;
  opt.dim = 0;
  EXPECT_THROW(make_vector_index(opt), UsageError);
  opt.dim = 8;
  auto idx = make_vector_index(opt);
  auto v = random_unit(1, 8, 1);
  EXPECT_THROW(idx->add({-1}, v.data()), UsageError);
  EXPECT_THROW(idx->add({1}, nullptr), UsageError);
  EXPECT_EQ(idx->size(), 0);
  opt.hnsw_m = 1;
  EXPECT_THROW(make_vector_index(opt), UsageError);
}

}  // namespace
}  // namespace mmkg
