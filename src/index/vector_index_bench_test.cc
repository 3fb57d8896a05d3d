// Vector index benchmark (disabled; run by hand): see the comment below.
#include <faiss/utils/distances.h>
#include <gtest/gtest.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "index/vector_index.h"
#include "support/temp_dir.h"
#include "support/vector_fixtures.h"

namespace mmkg {
namespace {

using namespace testing_vectors;

// ---------------------------------------------------------------------------------------------
// Benchmark (disabled; run by hand):
//   MMKG_VEC_BENCH=hnsw:100000 ./mmkg_tests --gtest_also_run_disabled_tests
//       --gtest_filter=VectorIndexBench.DISABLED_BuildAndSearch
// Random unit 384-d vectors (ids 1..n) added in batches of 10,000; 1,000 random unit queries
// (MMKG_VEC_BENCH_NQ) timed one at a time, k = 10; recall@10 of the first 100 against FAISS brute
// force; VmHWM from /proc/self/status (includes the benchmark's own copy of the vectors).
// One kind and size per process, so that VmHWM is the peak of that configuration alone.

double cpu_seconds(clockid_t which) {
  timespec ts{};
  clock_gettime(which, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

long status_kb(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + std::strlen(key) + 1);
  return -1;
}

TEST(VectorIndexBench, DISABLED_BuildAndSearch) {
  const char* spec = std::getenv("MMKG_VEC_BENCH");
  std::string s = spec ? spec : "flat:10000";
  std::string kind = s.substr(0, s.find(':'));
  size_t n = std::stoul(s.substr(s.find(':') + 1));
  const char* nq_env = std::getenv("MMKG_VEC_BENCH_NQ");  // queries timed (default 1000)
  const int d = 384, nq = nq_env ? std::max(100, std::atoi(nq_env)) : 1000, k = 10;
  using clock = std::chrono::steady_clock;
  auto secs = [](clock::duration x) { return std::chrono::duration<double>(x).count(); };

  // MMKG_VEC_BENCH_DATA=latent: vectors with low intrinsic dimension, closer to real embeddings than
  // i.i.d. random vectors (on which graph indexes do worst): a random 384x32 map of a 32-d Gaussian,
  // plus noise with ~9% of the energy, normalised. Queries are drawn the same way.
  const char* data_env = std::getenv("MMKG_VEC_BENCH_DATA");
  const bool latent = data_env && std::string(data_env) == "latent";
  auto make = [&](size_t count, uint32_t seed) {
    if (!latent) return random_unit(count, d, seed);
    const int r = 32;
    std::mt19937 wr(12345), rng(seed);
    std::normal_distribution<float> nd;
    std::vector<float> w(size_t(d) * r);
    for (auto& v : w) v = nd(wr) / std::sqrt(float(r));
    std::vector<float> out(count * d), z(r);
    for (size_t i = 0; i < count; ++i) {
      for (auto& v : z) v = nd(rng);
      float* o = out.data() + i * d;
      double s = 0;
      for (int j = 0; j < d; ++j) {
        float acc = 0.3f * nd(rng);
        for (int t = 0; t < r; ++t) acc += w[size_t(j) * r + t] * z[t];
        o[j] = acc;
        s += double(acc) * acc;
      }
      float inv = static_cast<float>(1.0 / std::sqrt(s));
      for (int j = 0; j < d; ++j) o[j] *= inv;
    }
    return out;
  };
  auto t0 = clock::now();
  auto x = make(n, 1);
  auto queries = make(nq, 2);
  double gen_s = secs(clock::now() - t0);
  long hwm_data = status_kb("VmHWM:");

  VectorIndexOptions opt;
  opt.dim = d;
  opt.hnsw_threshold = kind == "flat" ? static_cast<int64_t>(n) + 1 : 0;
  auto idx = make_vector_index(opt);
  std::vector<int64_t> ids = iota_ids(n, 1);
  t0 = clock::now();
  double c0 = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
  const size_t batch = 10000;  // add in batches, as ingest does
  for (size_t i = 0; i < n; i += batch) {
    std::vector<int64_t> b(ids.begin() + i, ids.begin() + std::min(n, i + batch));
    idx->add(b, x.data() + i * d);
  }
  double build_s = secs(clock::now() - t0);
  double build_cpu = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
  ASSERT_EQ(vector_index_kind_name(idx->kind()), kind);
  long hwm_build = status_kb("VmHWM:");

  // Exact top-10 (FAISS brute force, BLAS) of the first 100 queries, for recall.
  const int nr = 100;
  std::vector<float> ed(nr * k);
  std::vector<int64_t> ei(nr * k);
  faiss::knn_inner_product(queries.data(), x.data(), d, nr, n, k, ed.data(), ei.data());
  struct Stats {
    double p50, p99, cpu_p50, cpu_p99, recall;
  };
  auto measure = [&](const VectorIndex& index) {
    std::vector<double> lat, cpu;
    std::vector<Hits> results(nq);
    for (int i = 0; i < nq; ++i) {
      auto q0 = clock::now();
      double tc = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
      results[i] = index.search(queries.data() + i * d, k);
      cpu.push_back((cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - tc) * 1e3);
      lat.push_back(secs(clock::now() - q0) * 1e3);
    }
    std::sort(lat.begin(), lat.end());
    std::sort(cpu.begin(), cpu.end());
    size_t hit = 0;
    for (int i = 0; i < nr; ++i) {
      std::set<int64_t> w;
      for (int t = 0; t < k; ++t) w.insert(ids[ei[i * k + t]]);
      for (auto& h : results[i]) hit += w.count(h.first);
    }
    return Stats{lat[nq / 2], lat[nq * 99 / 100], cpu[nq / 2], cpu[nq * 99 / 100], double(hit) / (nr * k)};
  };
  Stats st = measure(*idx);
  long hwm_search = status_kb("VmHWM:");

  // Save and load (the file goes to the system temp dir).
  testing::TempDir dir;
  t0 = clock::now();
  idx->save(dir.file("bench.vec"), "bench");
  double save_s = secs(clock::now() - t0);
  auto file_mb = std::filesystem::file_size(dir.file("bench.vec")) / 1048576.0;
  x = {};
  x.shrink_to_fit();
  idx.reset();
  t0 = clock::now();
  auto back = load_vector_index(dir.file("bench.vec"), opt, nullptr);
  double load_s = secs(clock::now() - t0);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->size(), static_cast<int64_t>(n));
  std::printf(
      "BENCH data=%s kind=%s n=%zu d=%d threads=%u gen=%.1fs build=%.2fs build_cpu=%.2fs search_p50=%.3fms "
      "search_p99=%.3fms search_cpu_p50=%.3fms search_cpu_p99=%.3fms recall@10=%.3f VmHWM_after_data=%.0fMB VmHWM_after_build=%.0fMB VmHWM_after_search=%.0fMB "
      "save=%.2fs file=%.0fMB load=%.2fs VmHWM_end=%.0fMB\n",
      latent ? "latent32" : "random", kind.c_str(), n, d, std::thread::hardware_concurrency(), gen_s, build_s, build_cpu, st.p50, st.p99,
      st.cpu_p50, st.cpu_p99, st.recall,
      hwm_data / 1024.0, hwm_build / 1024.0, hwm_search / 1024.0, save_s, file_mb, load_s,
      status_kb("VmHWM:") / 1024.0);
  back.reset();

  // Optional efSearch sweep on the saved HNSW: MMKG_VEC_BENCH_EF=64,96,200,400
  const char* efs = std::getenv("MMKG_VEC_BENCH_EF");
  if (kind == "hnsw" && efs) {
    std::stringstream list(efs);
    std::string item;
    while (std::getline(list, item, ',')) {
      VectorIndexOptions o = opt;
      o.hnsw_ef_search = std::stoi(item);
      auto h = load_vector_index(dir.file("bench.vec"), o, nullptr);
      Stats e = measure(*h);
      std::printf(
          "BENCH_EF n=%zu efSearch=%d search_p50=%.3fms search_p99=%.3fms search_cpu_p50=%.3fms "
          "search_cpu_p99=%.3fms recall@10=%.3f\n",
          n, o.hnsw_ef_search, e.p50, e.p99, e.cpu_p50, e.cpu_p99, e.recall);
    }
  }
}

}  // namespace
}  // namespace mmkg
