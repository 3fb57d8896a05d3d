// mmkg_vector_bench: build time, memory, recall@k and latency of the vector index on real vectors.
//
//   mmkg_vector_bench --base B.f32 --queries Q.f32 [--n N] [--kind hnsw|flat] [--ef 32,64,96,128]
//                     [--m M] [--ef-construction E] [--threads T] [--batch 4096] [--nq 1000]
//                     [--noise 0.5] [--seed 1] [--save DIR]
//
// B.f32 / Q.f32: raw little-endian float32, 384 per vector (--dim), L2-normalised (e.g. chunk
// embeddings read out of a store; Q holds vectors not in B: held-out chunks, questions).
// With --n above the number of base vectors, the data set is the base vectors followed by
// synthetic ones made from them: a random convex combination (Dirichlet(1,1,1) weights) of a
// random base vector and two of its 10 nearest base neighbours, plus gaussian noise whose norm is
// `--noise` (default 0.1) times that base vector's distance to its nearest neighbour,
// re-normalised. So the synthetic vectors fill the real data's local neighbourhoods (clusters,
// density) at any size. (Plain noisy copies of each base vector were tried first: with 100+
// copies per real vector they form tight balls of near-equidistant points, whose top-10 order is
// decided by the noise: no approximate index gets a meaningful recall on that.)
// The index is built as `open_vector_index` builds it (adds of --batch vectors), then for each
// efSearch: recall@10 of the index against exact search (FAISS brute force) and the latency of
// one VectorIndex::search call (k = 10), one query at a time. Prints one JSON object.
#include <faiss/utils/distances.h>
#include <nlohmann/json.hpp>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#include <unistd.h>

#include "index/vector_index.h"

namespace {

std::vector<float> read_f32(const std::string& path, int d) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (raw.size() % (sizeof(float) * d)) throw std::runtime_error(path + ": size is not a multiple of the dimension");
  std::vector<float> v(raw.size() / sizeof(float));
  std::memcpy(v.data(), raw.data(), raw.size());
  return v;
}

long status_kb(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + std::strlen(key) + 1);
  return -1;
}

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

std::vector<int> parse_list(const std::string& s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(std::stoi(item));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string base_path, query_path, kind = "hnsw", efs = "32,64,96,128", save_dir = "/tmp";
  size_t n = 0, batch = 4096, nq = 1000;
  int d = 384, m = 0, efc = 0, threads = 0, k = 10;
  double noise = 0.1;
  unsigned seed = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error("missing value for " + a);
      return argv[++i];
    };
    if (a == "--base") base_path = val();
    else if (a == "--queries") query_path = val();
    else if (a == "--n") n = std::stoul(val());
    else if (a == "--kind") kind = val();
    else if (a == "--ef") efs = val();
    else if (a == "--m") m = std::stoi(val());
    else if (a == "--ef-construction") efc = std::stoi(val());
    else if (a == "--threads") threads = std::stoi(val());
    else if (a == "--batch") batch = std::stoul(val());
    else if (a == "--nq") nq = std::stoul(val());
    else if (a == "--noise") noise = std::stod(val());
    else if (a == "--seed") seed = static_cast<unsigned>(std::stoul(val()));
    else if (a == "--dim") d = std::stoi(val());
    else if (a == "--save") save_dir = val();
    else {
      std::cerr << "unknown argument " << a << "\n";
      return 2;
    }
  }
  using clock = std::chrono::steady_clock;
  auto secs = [](clock::duration x) { return std::chrono::duration<double>(x).count(); };
  const size_t D = static_cast<size_t>(d);

  std::vector<float> base = read_f32(base_path, d), queries = read_f32(query_path, d);
  const size_t n0 = base.size() / D;
  if (n == 0) n = n0;
  nq = std::min(nq, queries.size() / D);
  nlohmann::json out = {{"base_vectors", n0}, {"n", n}, {"dim", d}, {"queries", nq}, {"kind", kind}};

  // The data set: base vectors, then perturbed copies.
  auto t0 = clock::now();
  std::vector<float> x;
  x.reserve(n * D);
  x.insert(x.end(), base.begin(), base.begin() + std::min(n, n0) * D);
  if (n > n0) {
    // Each base vector's 10 nearest other base vectors (top-11 by inner product, itself first).
    const int kn = static_cast<int>(std::min<size_t>(11, n0));
    std::vector<float> sim(n0 * kn);
    std::vector<int64_t> id(n0 * kn);
    faiss::knn_inner_product(base.data(), base.data(), d, n0, n0, kn, sim.data(), id.data());
    std::vector<float> nn(n0);
    for (size_t i = 0; i < n0; ++i) nn[i] = std::sqrt(std::max(0.0f, 2.0f - 2.0f * sim[i * kn + 1]));
    std::vector<float> sorted = nn;
    std::sort(sorted.begin(), sorted.end());
    out["base_nn_distance_p50"] = sorted[n0 / 2];
    std::mt19937 rng(seed);
    std::normal_distribution<float> nd;
    std::uniform_real_distribution<float> ud(1e-6f, 1.0f);
    std::uniform_int_distribution<size_t> pick(0, n0 - 1);
    std::uniform_int_distribution<int> pick_nb(1, kn - 1);
    std::vector<float> v(D);
    for (size_t i = n0; i < n; ++i) {
      // A random convex combination of a base vector and two of its 10 nearest neighbours
      // (Dirichlet(1,1,1) weights), plus gaussian noise of norm `noise` x its nearest-neighbour
      // distance: points spread over the real data's local neighbourhoods, not piled on copies.
      const size_t j = pick(rng);
      const size_t a = static_cast<size_t>(id[j * kn + pick_nb(rng)]), b = static_cast<size_t>(id[j * kn + pick_nb(rng)]);
      float w0 = -std::log(ud(rng)), w1 = -std::log(ud(rng)), w2 = -std::log(ud(rng));
      const float ws = w0 + w1 + w2;
      w0 /= ws, w1 /= ws, w2 /= ws;
      const float sigma = static_cast<float>(noise) * nn[j] / std::sqrt(static_cast<float>(d));
      double s = 0;
      for (size_t t = 0; t < D; ++t) {
        v[t] = w0 * base[j * D + t] + w1 * base[a * D + t] + w2 * base[b * D + t] + sigma * nd(rng);
        s += double(v[t]) * v[t];
      }
      const float inv = static_cast<float>(1.0 / std::sqrt(s));
      for (size_t t = 0; t < D; ++t) x.push_back(v[t] * inv);
    }
  }
  out["generate_s"] = secs(clock::now() - t0);
  base = {};
  base.shrink_to_fit();

  // Exact top-k of the queries (BLAS).
  t0 = clock::now();
  std::vector<float> ed(nq * k);
  std::vector<int64_t> ei(nq * k);
  faiss::knn_inner_product(queries.data(), x.data(), d, nq, n, k, ed.data(), ei.data());
  out["exact_s"] = secs(clock::now() - t0);
  long hwm_data = status_kb("VmHWM:");

  mmkg::VectorIndexOptions opt;
  opt.dim = d;
  opt.hnsw_threshold = kind == "flat" ? static_cast<int64_t>(n) + 1 : 0;
  if (m) opt.hnsw_m = m;
  if (efc) opt.hnsw_ef_construction = efc;
  opt.hnsw_threads = threads;
  out["hnsw_m"] = opt.hnsw_m;
  out["hnsw_ef_construction"] = opt.hnsw_ef_construction;
  out["threads"] = threads ? threads : static_cast<int>(std::thread::hardware_concurrency());
  std::unique_ptr<mmkg::VectorIndex> idx = mmkg::make_vector_index(opt);
  t0 = clock::now();
  double c0 = cpu_seconds();
  std::vector<int64_t> ids;
  for (size_t i = 0; i < n; i += batch) {
    const size_t e = std::min(n, i + batch);
    ids.resize(e - i);
    for (size_t j = i; j < e; ++j) ids[j - i] = static_cast<int64_t>(j) + 1;
    idx->add(ids, x.data() + i * D);
  }
  const double build_s = secs(clock::now() - t0);
  out["build_s"] = build_s;
  out["build_cpu_s"] = cpu_seconds() - c0;
  out["build_vectors_per_s"] = n / build_s;
  out["kind_built"] = mmkg::vector_index_kind_name(idx->kind());
  out["vmhwm_data_mb"] = hwm_data / 1024.0;
  out["vmrss_after_build_mb"] = status_kb("VmRSS:") / 1024.0;
  out["vmhwm_after_build_mb"] = status_kb("VmHWM:") / 1024.0;

  const std::string path = (std::filesystem::path(save_dir) / ("vector_bench_" + std::to_string(::getpid()) + ".idx")).string();
  t0 = clock::now();
  idx->save(path, "bench");
  out["save_s"] = secs(clock::now() - t0);
  out["file_mb"] = std::filesystem::file_size(path) / 1048576.0;
  idx.reset();
  x = {};
  x.shrink_to_fit();

  auto measure = [&](const mmkg::VectorIndex& index) {
    std::vector<double> lat;
    size_t hit = 0;
    for (int rep = 0; rep < 2; ++rep) {  // first pass warms the caches, second is timed
      lat.clear();
      hit = 0;
      for (size_t i = 0; i < nq; ++i) {
        auto q0 = clock::now();
        auto h = index.search(queries.data() + i * D, k);
        lat.push_back(secs(clock::now() - q0) * 1e3);
        std::set<int64_t> want;
        for (int t = 0; t < k; ++t) want.insert(ei[i * k + t] + 1);
        for (auto& r : h) hit += want.count(r.first);
      }
    }
    std::sort(lat.begin(), lat.end());
    return nlohmann::json{{"recall_at_10", double(hit) / double(nq * k)},
                          {"p50_ms", lat[nq / 2]},
                          {"p99_ms", lat[std::min(nq - 1, nq * 99 / 100)]},
                          {"mean_ms", std::accumulate(lat.begin(), lat.end(), 0.0) / nq}};
  };
  nlohmann::json sweep = nlohmann::json::array();
  for (int ef : kind == "flat" ? std::vector<int>{0} : parse_list(efs)) {
    mmkg::VectorIndexOptions o = opt;
    if (ef) o.hnsw_ef_search = ef;
    t0 = clock::now();
    auto back = mmkg::load_vector_index(path, o, nullptr);
    double load_s = secs(clock::now() - t0);
    nlohmann::json r = measure(*back);
    r["ef_search"] = ef;
    r["load_s"] = load_s;
    r["vmrss_loaded_mb"] = status_kb("VmRSS:") / 1024.0;
    sweep.push_back(r);
    std::cerr << r.dump() << "\n";
  }
  out["search"] = sweep;
  out["vmhwm_end_mb"] = status_kb("VmHWM:") / 1024.0;
  std::filesystem::remove(path);
  std::cout << out.dump(2) << "\n";
  return 0;
}
