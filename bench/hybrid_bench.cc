// mmkg_hybrid_bench: dense and hybrid retrieval at scale, on synthetic stores.
//
//   mmkg_hybrid_bench build  --store DIR --chunks N [--chunks-per-doc 100] [--words 150]
//                            [--vocab-dir examples/corpus] [--zipf 1.0] [--seed 1]
//                            [--recall-queries 100] [--json OUT]
//   mmkg_hybrid_bench search --store DIR [--queries 300] [--warmup 20] [-k 10] [--seed 7]
//                            [--embedder native] [--passes embed,fts5,bm25,dense,hybrid] [--json OUT]
//   mmkg_hybrid_bench lexical --store DIR [--threads N] [--json OUT]
//                            rebuilds only the Xapian lexical index, on N threads (0: automatic)
//
// Run each phase in its own process (bench/hybrid_bench.py does): the peak memory figures
// (VmHWM from /proc/self/status) are then per phase and per store size.
//
// build: writes a fresh store of N synthetic chunks through mmkg::Store::put_document, documents of
//   --chunks-per-doc chunks each (the last may be shorter), then builds the vector index through the
//   same code path `mmkg search` uses (mmkg::open_vector_index: read every vector from SQLite,
//   index add, save vectors.idx), so that the search phase finds an up-to-date index file.
//   --hnsw-threshold T overrides VectorIndexOptions::hnsw_threshold (default 20,000) for this build:
//   with T > N the index is flat (exact) whatever its size; the Searcher then loads it as saved.
//   * Text: the vocabulary is every distinct word (mmkg::words: lower-cased runs of letters/digits)
//     of the *.txt files in --vocab-dir, ranked by its count there (ties alphabetically). Each
//     chunk is --words words drawn independently from a Zipf distribution over those ranks
//     (P(rank r) proportional to 1 / r^s, s = --zipf), cut into sentences of 8-20 words (first
//     letter upper-cased, ". " after each). The document's text is its chunks joined by "\n\n"
//     (chunk offsets point into it).
//   * Vectors: one random unit vector per chunk (384 i.i.d. standard normals, L2-normalised),
//     written as the chunk's embedding (Chunk::vector) under the model id of the native embedder
//     ("native:" + native_model_name(find_native_model_dir()), i.e. "native:all-MiniLM-L6-v2"), so
//     that a Searcher with the real native model embeds queries that meet them in the index.
//   * Also measured: exact-vs-index recall@10 and raw VectorIndex::search latency for
//     --recall-queries random unit query vectors (the exact top 10 computed with sgemm over all
//     stored vectors).
//
// search: opens the store, builds an mmkg::Searcher (real native embedder; loads vectors.idx),
//   draws --queries queries from the stored chunks with a fixed seed, in two sets:
//     keywords  1-3 consecutive content words (>= 3 letters, not stop words) of a random chunk
//     phrases   8 consecutive words of a random chunk (stop words included; question length)
//   and times, per query and per pass (after --warmup untimed queries of the set; with
//   --max-pass-seconds S a pass stops after the query that takes it past S seconds, and a warm-up
//   after S/4 seconds):
//     embed   Embedder::embed({query}, EmbedKind::Query) alone (the query-embedding share)
//     bm25    Searcher::search, SearchMode::Bm25
//     dense   Searcher::search, SearchMode::Dense  (query embedding + index search + chunk fetch)
//     hybrid  Searcher::search, SearchMode::Hybrid (bm25 top 50 + dense top 50, relative-score
//             fusion, near-duplicate removal), k = -k
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <queue>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/session.h"
#include "core/hash.h"
#include "text/words.h"
#include "core/types.h"
#include "embed/embedder.h"
#include "embed/native_embedder.h"
#include "index/searcher.h"
#include "index/vector_index.h"
#include "index/vector_store.h"
#include "index/xapian_lexical.h"
#include "store/neo4j_store.h"
#include "store/sqlite_util.h"
#include "store/store.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

double secs_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

/// A field of /proc/self/status in MiB (VmHWM, VmRSS), or -1.
double proc_status_mib(const char* key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(key);
  while (std::getline(f, line)) {
    if (line.compare(0, n, key) == 0 && line.size() > n && line[n] == ':') {
      return std::strtod(line.c_str() + n + 1, nullptr) / 1024.0;  // kB -> MiB
    }
  }
  return -1;
}

json mem_now() { return {{"vm_hwm_mib", proc_status_mib("VmHWM")}, {"vm_rss_mib", proc_status_mib("VmRSS")}}; }

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  // Nearest-rank percentile.
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  rank = std::clamp<size_t>(rank, 1, v.size());
  return v[rank - 1];
}

json summary(const std::vector<double>& ms) {
  double sum = std::accumulate(ms.begin(), ms.end(), 0.0);
  return {{"n", ms.size()},
          {"p50_ms", percentile(ms, 50)},
          {"p90_ms", percentile(ms, 90)},
          {"p99_ms", percentile(ms, 99)},
          {"mean_ms", ms.empty() ? 0.0 : sum / static_cast<double>(ms.size())},
          {"max_ms", ms.empty() ? 0.0 : *std::max_element(ms.begin(), ms.end())}};
}

int64_t file_size_or0(const fs::path& p) {
  std::error_code ec;
  auto s = fs::file_size(p, ec);
  return ec ? 0 : static_cast<int64_t>(s);
}

json store_files(const std::string& dir) {
  json j;
  for (const char* f : {"mmkg.db", "mmkg.db-wal", "vectors.idx"}) j[f] = file_size_or0(fs::path(dir) / f);
  int64_t lex = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(mmkg::lexical_index_path(dir), ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec)) lex += static_cast<int64_t>(it->file_size(ec));
  j["lexical.xapian"] = lex;
  return j;
}

[[noreturn]] void usage(const std::string& msg) {
  std::fprintf(stderr,
               "mmkg_hybrid_bench: %s\n"
               "usage: mmkg_hybrid_bench build --store DIR --chunks N [--chunks-per-doc 100] [--words 150]\n"
               "                         [--vocab-dir DIR] [--zipf S] [--seed S] [--recall-queries Q] [--hnsw-threshold T]\n"
               "                         [--json OUT]\n"
               "       mmkg_hybrid_bench lexical --store DIR [--threads N] [--json OUT]  (rebuild only the lexical index)\n"
               "       mmkg_hybrid_bench search --store DIR [--queries 300] [--warmup 20] [-k 10] [--seed S]\n"
               "                                [--passes embed,fts5,bm25,dense,hybrid]\n"
               "                         [--embedder SPEC] [--max-pass-seconds S] [--json OUT]\n",
               msg.c_str());
  std::exit(2);
}

struct Args {
  std::string cmd, store, vocab_dir = "examples/corpus", json_out, embedder = "native";
  std::string cache;  ///< a shared --store (neo4j://...): this process's cache folder (--cache)
  int64_t chunks = 0;
  int chunks_per_doc = 100, words = 150, recall_queries = 100, queries = 300, warmup = 20, k = 10;
  double zipf = 1.0;
  double pass_seconds = 0;  ///< search: stop a pass once it has taken this long (0 = never)
  int64_t hnsw_threshold = 0;  ///< build: override VectorIndexOptions::hnsw_threshold (0 = default)
  int lexical_threads = 0;     ///< build, lexical: threads of the lexical index build (0 = automatic)
  unsigned seed = 1;
  bool seed_set = false;
  std::string passes = "embed,fts5,bm25,dense,hybrid";  ///< search: which passes run (--passes)
  bool runs(const std::string& pass) const { return ("," + passes + ",").find("," + pass + ",") != std::string::npos; }
};

Args parse_args(int argc, char** argv) {
  if (argc < 2) usage("missing command (build or search)");
  Args a;
  a.cmd = argv[1];
  if (a.cmd != "build" && a.cmd != "search" && a.cmd != "lexical") usage("unknown command " + a.cmd);
  for (int i = 2; i < argc; ++i) {
    std::string s = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) usage("missing value for " + s);
      return argv[++i];
    };
    if (s == "--store") a.store = val();
    else if (s == "--cache") a.cache = val();
    else if (s == "--chunks") a.chunks = std::atoll(val().c_str());
    else if (s == "--chunks-per-doc") a.chunks_per_doc = std::max(1, std::atoi(val().c_str()));
    else if (s == "--words") a.words = std::max(1, std::atoi(val().c_str()));
    else if (s == "--vocab-dir") a.vocab_dir = val();
    else if (s == "--zipf") a.zipf = std::atof(val().c_str());
    else if (s == "--seed") a.seed = static_cast<unsigned>(std::strtoul(val().c_str(), nullptr, 10)), a.seed_set = true;
    else if (s == "--recall-queries") a.recall_queries = std::max(0, std::atoi(val().c_str()));
    else if (s == "--queries") a.queries = std::max(1, std::atoi(val().c_str()));
    else if (s == "--warmup") a.warmup = std::max(0, std::atoi(val().c_str()));
    else if (s == "-k") a.k = std::max(1, std::atoi(val().c_str()));
    else if (s == "--embedder") a.embedder = val();
    else if (s == "--hnsw-threshold") a.hnsw_threshold = std::max<int64_t>(0, std::atoll(val().c_str()));
    else if (s == "--max-pass-seconds") a.pass_seconds = std::max(0.0, std::atof(val().c_str()));
    else if (s == "--json") a.json_out = val();
    else if (s == "--threads") a.lexical_threads = std::max(0, std::atoi(val().c_str()));
    else if (s == "--passes") a.passes = val();
    else usage("unknown argument " + s);
  }
  if (a.store.empty()) usage("--store is required");
  if (a.cmd == "build" && a.chunks <= 0) usage("--chunks N (N > 0) is required for build");
  if (!a.seed_set) a.seed = a.cmd == "build" ? 1 : 7;
  return a;
}

void write_json(const std::string& path, const json& j) {
  if (path.empty()) return;
  std::ofstream f(path);
  f << j.dump(2) << "\n";
  if (!f) throw std::runtime_error("cannot write " + path);
}

// ------------------------------------------------------------------------------------------------
// build

struct Vocabulary {
  std::vector<std::string> words;  // by rank (most frequent first)
  std::vector<double> cdf;         // Zipf cumulative weights, normalised to 1
  int64_t corpus_words = 0;
  int files = 0;
};

Vocabulary load_vocabulary(const std::string& dir, double s) {
  std::map<std::string, int64_t> count;
  Vocabulary v;
  std::vector<fs::path> files;
  for (auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".txt") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (auto& p : files) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    for (auto& w : mmkg::words(ss.str())) {
      ++count[w];
      ++v.corpus_words;
    }
    ++v.files;
  }
  if (count.empty()) throw std::runtime_error("no words in " + dir + "/*.txt");
  std::vector<std::pair<std::string, int64_t>> ranked(count.begin(), count.end());
  std::stable_sort(ranked.begin(), ranked.end(), [](auto& a, auto& b) { return a.second > b.second; });
  double acc = 0;
  for (size_t r = 0; r < ranked.size(); ++r) {
    v.words.push_back(ranked[r].first);
    acc += 1.0 / std::pow(static_cast<double>(r + 1), s);
    v.cdf.push_back(acc);
  }
  for (auto& c : v.cdf) c /= acc;
  return v;
}

class ChunkGenerator {
 public:
  ChunkGenerator(const Vocabulary& v, int words, unsigned seed) : v_(v), words_(words), rng_(seed) {}

  std::string text() {
    std::string t;
    int left_in_sentence = 0;
    for (int i = 0; i < words_; ++i) {
      const std::string& w = v_.words[rank()];
      if (left_in_sentence == 0) {
        if (!t.empty()) t += ". ";
        left_in_sentence = std::uniform_int_distribution<int>(8, 20)(rng_);
        size_t at = t.size();
        t += w;
        if (t[at] >= 'a' && t[at] <= 'z') t[at] = static_cast<char>(t[at] - 'a' + 'A');
      } else {
        t += ' ';
        t += w;
      }
      --left_in_sentence;
    }
    t += '.';
    return t;
  }

  std::vector<float> unit_vector(int dim) {
    std::vector<float> x(static_cast<size_t>(dim));
    double n2 = 0;
    for (auto& e : x) {
      e = static_cast<float>(normal_(rng_));
      n2 += static_cast<double>(e) * e;
    }
    const float inv = static_cast<float>(1.0 / std::sqrt(n2));
    for (auto& e : x) e *= inv;
    return x;
  }

  std::mt19937_64& rng() { return rng_; }

 private:
  size_t rank() {
    double u = uniform_(rng_);
    size_t r = static_cast<size_t>(std::upper_bound(v_.cdf.begin(), v_.cdf.end(), u) - v_.cdf.begin());
    return std::min(r, v_.words.size() - 1);
  }
  const Vocabulary& v_;
  int words_;
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> uniform_{0.0, 1.0};
  std::normal_distribution<double> normal_{0.0, 1.0};
};

/// Recall@10 of the store's index against an exact scan, and the raw index search latency, for
/// `nq` random unit query vectors.
json index_quality(mmkg::Store& store, const std::string& model, int dim, mmkg::VectorIndex& index, int nq,
                   unsigned seed) {
  if (nq <= 0) return nullptr;
  const int K = 10;
  std::mt19937_64 rng(seed * 7919u + 13u);
  std::normal_distribution<double> nd;
  std::vector<float> Q(static_cast<size_t>(nq) * dim);
  for (int q = 0; q < nq; ++q) {
    double n2 = 0;
    for (int d = 0; d < dim; ++d) {
      float e = static_cast<float>(nd(rng));
      Q[static_cast<size_t>(q) * dim + d] = e;
      n2 += static_cast<double>(e) * e;
    }
    for (int d = 0; d < dim; ++d) Q[static_cast<size_t>(q) * dim + d] /= static_cast<float>(std::sqrt(n2));
  }
  // Raw index latency (single query, k = 10 and k = 50 as hybrid asks for).
  std::vector<double> ms10, ms50;
  std::vector<std::vector<int64_t>> got(nq);
  for (int q = 0; q < nq; ++q) {
    auto t0 = Clock::now();
    auto r = index.search(&Q[static_cast<size_t>(q) * dim], K);
    ms10.push_back(ms_since(t0));
    for (auto& [id, s] : r) got[q].push_back(id);
    t0 = Clock::now();
    auto r50 = index.search(&Q[static_cast<size_t>(q) * dim], 50);
    ms50.push_back(ms_since(t0));
  }
  // Exact top 10 per query: sgemm over blocks of stored vectors, min-heaps of (score, id).
  using Item = std::pair<float, int64_t>;
  std::vector<std::priority_queue<Item, std::vector<Item>, std::greater<Item>>> top(nq);
  const size_t kBlock = 8192;
  std::vector<float> X, S;
  std::vector<int64_t> ids;
  X.reserve(kBlock * dim);
  auto flush = [&] {
    if (ids.empty()) return;
    const int nb = static_cast<int>(ids.size());
    S.assign(static_cast<size_t>(nb) * nq, 0.f);
    // S (nb x nq) = X (nb x dim) * Q^T (dim x nq)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, nb, nq, dim, 1.f, X.data(), dim, Q.data(), dim, 0.f,
                S.data(), nq);
    for (int i = 0; i < nb; ++i)
      for (int q = 0; q < nq; ++q) {
        float s = S[static_cast<size_t>(i) * nq + q];
        auto& h = top[q];
        if (static_cast<int>(h.size()) < K) h.emplace(s, ids[i]);
        else if (s > h.top().first) {
          h.pop();
          h.emplace(s, ids[i]);
        }
      }
    X.clear();
    ids.clear();
  };
  auto t0 = Clock::now();
  store.for_each_vector(model, [&](int64_t rowid, const float* v, size_t d) {
    if (static_cast<int>(d) != dim) return;
    ids.push_back(rowid);
    X.insert(X.end(), v, v + d);
    if (ids.size() >= kBlock) flush();
  });
  flush();
  double exact_s = secs_since(t0);
  double hit = 0;
  for (int q = 0; q < nq; ++q) {
    std::vector<int64_t> truth;
    while (!top[q].empty()) truth.push_back(top[q].top().second), top[q].pop();
    for (int64_t id : got[q])
      if (std::find(truth.begin(), truth.end(), id) != truth.end()) ++hit;
  }
  return {{"queries", nq},
          {"recall_at_10", hit / (static_cast<double>(nq) * K)},
          {"index_search_k10", summary(ms10)},
          {"index_search_k50", summary(ms50)},
          {"exact_scan_seconds", exact_s},
          {"note", "random unit query vectors against random unit chunk vectors (no cluster structure: "
                   "the hardest case for HNSW)"}};
}

// The Xapian lexical index, built from scratch as `mmkg ingest` builds it once a store reaches
// its threshold.
json build_lexical(mmkg::Store& store, int threads) {
  fs::remove_all(mmkg::lexical_index_path(store.dir()));
  auto t_lex = Clock::now();
  mmkg::LexicalIndexStatus lst = mmkg::update_lexical_index(store, store.generation(), {}, {}, threads);
  double lex_s = secs_since(t_lex);
  std::fprintf(stderr, "mmkg_hybrid_bench: lexical index: %s (%lld chunks) in %.1f s\n", lst.action.c_str(),
               static_cast<long long>(lst.chunks), lex_s);
  return {{"action", lst.action}, {"reason", lst.reason}, {"chunks", lst.chunks},
          {"threshold", mmkg::lexical_index_threshold()}, {"build_seconds", lex_s}, {"threads_requested", threads},
          {"bytes", store_files(store.dir())["lexical.xapian"]}, {"memory_after", mem_now()}};
}

int cmd_build(const Args& a) {
  if (!mmkg::is_shared_store_spec(a.store) && fs::exists(a.store))
    usage(a.store + " exists; build writes a fresh store (remove it first)");
  json out = {{"phase", "build"}, {"store", a.store}, {"chunks_requested", a.chunks}};
  auto t_all = Clock::now();

  // Model id of the native embedder, without loading its weights (they would count in VmHWM).
  const std::string model = "native:" + mmkg::native_model_name(mmkg::find_native_model_dir());
  const int dim = 384;  // all-MiniLM-L6-v2
  out["embed_model"] = model;
  out["dim"] = dim;

  Vocabulary vocab = load_vocabulary(a.vocab_dir, a.zipf);
  out["synthetic"] = {{"vocab_dir", a.vocab_dir},
                      {"vocab_files", vocab.files},
                      {"vocab_corpus_words", vocab.corpus_words},
                      {"vocabulary", vocab.words.size()},
                      {"zipf_s", a.zipf},
                      {"words_per_chunk", a.words},
                      {"chunks_per_doc", a.chunks_per_doc},
                      {"seed", a.seed},
                      {"top_words", std::vector<std::string>(vocab.words.begin(),
                                                             vocab.words.begin() + std::min<size_t>(10, vocab.words.size()))}};

  // A shared store (--store neo4j://...) is written through the same put_document: staged, then
  // published, then copied into this process's local copy.
  auto store = mmkg::is_shared_store_spec(a.store) ? mmkg::open_neo4j_store({a.store, a.cache, true})
                                                   : mmkg::Store::open(a.store, true);
  ChunkGenerator gen(vocab, a.words, a.seed);
  double gen_s = 0, write_s = 0;
  int64_t written = 0, docs = 0, text_bytes = 0;
  const int64_t ndocs = (a.chunks + a.chunks_per_doc - 1) / a.chunks_per_doc;
  auto t_last_log = Clock::now();
  for (int64_t di = 0; di < ndocs; ++di) {
    auto t0 = Clock::now();
    char name[64];
    std::snprintf(name, sizeof name, "synthetic-%07lld.txt", static_cast<long long>(di));
    mmkg::DocumentRecord d;
    d.id = mmkg::hash_hex(std::string("mmkg-hybrid-bench:") + std::to_string(a.seed) + ":" + name);
    d.path = std::string("/synthetic/") + name;
    d.name = name;
    d.format = "text";
    const int n = static_cast<int>(std::min<int64_t>(a.chunks_per_doc, a.chunks - written));
    std::vector<mmkg::Chunk> chunks(static_cast<size_t>(n));
    std::string doc_text;
    for (int s = 0; s < n; ++s) {
      auto& c = chunks[static_cast<size_t>(s)];
      c.text = gen.text();
      c.vector = gen.unit_vector(dim);
      c.doc_id = d.id;
      c.seq = s;
      c.id = mmkg::hash_hex(d.id + ":" + std::to_string(s));
      if (!doc_text.empty()) doc_text += "\n\n";
      c.start = static_cast<int64_t>(doc_text.size());
      doc_text += c.text;
      c.end = static_cast<int64_t>(doc_text.size());
    }
    d.bytes = static_cast<int64_t>(doc_text.size());
    d.chunks = n;
    text_bytes += d.bytes;
    auto t1 = Clock::now();
    gen_s += std::chrono::duration<double>(t1 - t0).count();
    store->put_document(d, doc_text, chunks, std::nullopt, model);
    write_s += secs_since(t1);
    written += n;
    ++docs;
    if (secs_since(t_last_log) > 30) {
      std::fprintf(stderr, "mmkg_hybrid_bench: %lld / %lld chunks written (%.0f s)\n", static_cast<long long>(written),
                   static_cast<long long>(a.chunks), secs_since(t_all));
      t_last_log = Clock::now();
    }
  }
  auto t_ckpt = Clock::now();
  store->exec("PRAGMA wal_checkpoint(TRUNCATE)");
  double ckpt_s = secs_since(t_ckpt);
  out["write"] = {{"documents", docs},
                  {"chunks", written},
                  {"text_bytes", text_bytes},
                  {"generate_seconds", gen_s},
                  {"put_document_seconds", write_s},
                  {"checkpoint_seconds", ckpt_s},
                  {"chunks_per_s", write_s > 0 ? static_cast<double>(written) / write_s : 0.0},
                  {"memory_after", mem_now()}};
  std::fprintf(stderr, "mmkg_hybrid_bench: wrote %lld chunks in %.1f s (generation %.1f s, put_document %.1f s)\n",
               static_cast<long long>(written), gen_s + write_s, gen_s, write_s);

  // Reading every vector back from SQLite: the first part of an index build.
  auto t_scan = Clock::now();
  int64_t scanned = 0;
  store->for_each_vector(model, [&](int64_t, const float*, size_t) { ++scanned; });
  double scan_s = secs_since(t_scan);

  // The index build, as `mmkg search` / `mmkg ingest` do it when vectors.idx is missing.
  fs::remove(mmkg::vector_index_path(store->dir()));
  mmkg::VectorIndexStatus st;
  mmkg::VectorIndexOptions opts;
  if (a.hnsw_threshold > 0) opts.hnsw_threshold = a.hnsw_threshold;
  auto t_idx = Clock::now();
  auto index = mmkg::open_vector_index(*store, model, dim, opts, &st);
  double build_s = secs_since(t_idx);
  mmkg::VectorIndexOptions defaults;
  out["index"] = {{"kind", mmkg::vector_index_kind_name(index->kind())},
                  {"hnsw_threshold_override", a.hnsw_threshold},
                  {"vectors", index->size()},
                  {"rebuilt", st.rebuilt},
                  {"reason", st.reason},
                  {"hnsw_threshold", defaults.hnsw_threshold},
                  {"hnsw_m", defaults.hnsw_m},
                  {"hnsw_ef_construction", defaults.hnsw_ef_construction},
                  {"hnsw_ef_search", defaults.hnsw_ef_search},
                  {"build_seconds", build_s},
                  {"sqlite_vector_scan_seconds", scan_s},
                  {"scanned_vectors", scanned},
                  {"memory_after", mem_now()}};
  std::fprintf(stderr, "mmkg_hybrid_bench: %s index of %lld vectors built in %.1f s\n", mmkg::vector_index_kind_name(index->kind()),
               static_cast<long long>(index->size()), build_s);

  out["index_quality"] = index_quality(*store, model, dim, *index, a.recall_queries, a.seed);

  out["lexical_index"] = build_lexical(*store, a.lexical_threads);
  out["files_bytes"] = store_files(store->dir());
  out["memory_peak"] = mem_now();
  out["seconds_total"] = secs_since(t_all);
  write_json(a.json_out, out);
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

// ------------------------------------------------------------------------------------------------
// search

bool has_ascii_letter(const std::string& w) {
  return std::any_of(w.begin(), w.end(), [](unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; });
}

/// Two query sets drawn from random stored chunks (fixed seed).
std::pair<std::vector<std::string>, std::vector<std::string>> sample_queries(mmkg::Store& store, int n,
                                                                             unsigned seed) {
  int64_t max_rowid = 0;
  {
    mmkg::Stmt s(store.db(), "SELECT max(rowid) FROM chunks");
    if (s.step()) max_rowid = s.i64(0);
  }
  std::mt19937 rng(seed);
  mmkg::Stmt get(store.db(), "SELECT text FROM chunks WHERE rowid >= ? ORDER BY rowid LIMIT 1");
  auto random_chunk_words = [&]() {
    get.reset();
    get.bind(1, std::uniform_int_distribution<int64_t>(1, std::max<int64_t>(1, max_rowid))(rng));
    return get.step() ? mmkg::words(get.text(0)) : std::vector<std::string>{};
  };
  std::vector<std::string> keywords, phrases;
  int attempts = 0;
  while (static_cast<int>(keywords.size()) < n && attempts++ < n * 50) {
    std::vector<std::string> ws;
    for (auto& w : random_chunk_words())
      if (w.size() >= 3 && !mmkg::is_stopword(w) && has_ascii_letter(w)) ws.push_back(w);
    const size_t len = 1 + keywords.size() % 3;
    if (ws.size() < len) continue;
    size_t start = std::uniform_int_distribution<size_t>(0, ws.size() - len)(rng);
    std::string q;
    for (size_t j = 0; j < len; ++j) q += (j ? " " : "") + ws[start + j];
    keywords.push_back(q);
  }
  attempts = 0;
  while (static_cast<int>(phrases.size()) < n && attempts++ < n * 50) {
    auto ws = random_chunk_words();
    const size_t len = 8;
    if (ws.size() < len) continue;
    size_t start = std::uniform_int_distribution<size_t>(0, ws.size() - len)(rng);
    std::string q;
    for (size_t j = 0; j < len; ++j) q += (j ? " " : "") + ws[start + j];
    phrases.push_back(q);
  }
  return {keywords, phrases};
}

json run_set(mmkg::Searcher& searcher, mmkg::Embedder& emb, mmkg::Store& store, mmkg::XapianLexical* lexical,
             const std::string& name, const std::vector<std::string>& queries, const Args& a) {
  json res = {{"set", name}, {"queries", queries.size()},
              {"examples", std::vector<std::string>(queries.begin(), queries.begin() + std::min<size_t>(5, queries.size()))}};
  const int warm = std::min<int>(a.warmup, static_cast<int>(queries.size()));
  // Query embedding alone.
  if (a.runs("embed")) {
    for (int i = 0; i < warm; ++i) emb.embed({queries[static_cast<size_t>(i)]}, mmkg::EmbedKind::Query);
    // (Query embedding does not depend on the store: no time limit needed for its warm-up.)
    std::vector<double> ms;
    auto pass0 = Clock::now();
    for (auto& q : queries) {
      auto t0 = Clock::now();
      auto v = emb.embed({q}, mmkg::EmbedKind::Query);
      ms.push_back(ms_since(t0));
      if (a.pass_seconds > 0 && secs_since(pass0) > a.pass_seconds) break;
    }
    res["embed"] = summary(ms);
    res["embed"]["truncated"] = ms.size() < queries.size();
  }
  // BM25 straight from FTS5 (what every store used before the Xapian index), side by side with
  // the Searcher's BM25 (Xapian when the store has a fresh index), and how many of FTS5's top k
  // the Searcher's list shares.
  if (a.runs("fts5")) {
    std::vector<double> ms;
    double shared = 0;
    size_t compared = 0, by_xapian = 0;
    auto pass0 = Clock::now();
    mmkg::SearchOptions opt;
    opt.mode = mmkg::SearchMode::Bm25;
    opt.k = a.k;
    for (auto& q : queries) {
      mmkg::LexicalOptions lo;
      lo.k = a.k;
      auto t0 = Clock::now();
      auto f = mmkg::bm25_match(store, mmkg::fts_query(q), lo);
      ms.push_back(ms_since(t0));
      std::string served;
      mmkg::LexicalOptions xo;
      xo.k = a.k;
      xo.index = lexical;
      auto x = mmkg::bm25_match(store, mmkg::fts_query(q), xo, &served);
      by_xapian += served == "xapian";
      if (!f.empty()) {
        std::set<std::string> ids;
        for (auto& h : f) ids.insert(h.chunk_id);
        size_t n = 0;
        for (auto& h : x) n += ids.count(h.chunk_id);
        shared += static_cast<double>(n) / static_cast<double>(f.size());
        ++compared;
      }
      if (a.pass_seconds > 0 && secs_since(pass0) > a.pass_seconds) break;
    }
    json s = summary(ms);
    s["truncated"] = ms.size() < queries.size();
    res["bm25_fts5"] = s;
    res["bm25_served_by_xapian"] = by_xapian;
    res["bm25_top_k_shared_with_fts5"] = compared ? shared / static_cast<double>(compared) : 0.0;
    std::fprintf(stderr, "mmkg_hybrid_bench: %-8s fts5   p50 %8.3f ms  p99 %8.3f ms  (xapian served %zu, shared %.3f)\n",
                 name.c_str(), s["p50_ms"].get<double>(), s["p99_ms"].get<double>(), by_xapian,
                 res["bm25_top_k_shared_with_fts5"].get<double>());
  }
  for (auto mode : {mmkg::SearchMode::Bm25, mmkg::SearchMode::Dense, mmkg::SearchMode::Hybrid}) {
    if (!a.runs(mmkg::search_mode_name(mode))) continue;
    mmkg::SearchOptions opt;
    opt.mode = mode;
    opt.k = a.k;
    auto warm0 = Clock::now();
    for (int i = 0; i < warm; ++i) {
      searcher.search(queries[static_cast<size_t>(i)], opt);
      if (a.pass_seconds > 0 && secs_since(warm0) > a.pass_seconds / 4) break;  // slow store: shorter warm-up
    }
    std::vector<double> ms;
    double hits = 0;
    size_t empty = 0;
    auto pass0 = Clock::now();
    for (auto& q : queries) {
      auto t0 = Clock::now();
      auto h = searcher.search(q, opt);
      ms.push_back(ms_since(t0));
      hits += static_cast<double>(h.size());
      if (h.empty()) ++empty;
      // Passes are cut short only by --max-pass-seconds; the first n queries of a random sample
      // are still a random sample.
      if (a.pass_seconds > 0 && secs_since(pass0) > a.pass_seconds) break;
    }
    json s = summary(ms);
    s["mean_hits"] = ms.empty() ? 0.0 : hits / static_cast<double>(ms.size());
    s["no_hit_queries"] = empty;
    s["truncated"] = ms.size() < queries.size();
    res[mmkg::search_mode_name(mode)] = s;
    std::fprintf(stderr, "mmkg_hybrid_bench: %-8s %-6s p50 %8.3f ms  p99 %8.3f ms\n", name.c_str(),
                 mmkg::search_mode_name(mode), s["p50_ms"].get<double>(), s["p99_ms"].get<double>());
  }
  return res;
}

int cmd_search(const Args& a) {
  json out = {{"phase", "search"}, {"store", a.store}, {"k", a.k}, {"warmup", a.warmup},
              {"max_pass_seconds", a.pass_seconds}};
  out["memory_start"] = mem_now();
  auto t0 = Clock::now();
  // Through the Session, as `mmkg search` opens its store and searcher.
  mmkg::Config cfg;
  cfg.store = a.store;
  cfg.cache = a.cache;
  cfg.share_graph_with_store(true);
  cfg.embedder = mmkg::EmbedderSpec::parse(a.embedder);
  // For a shared store this is a node's cold start when --cache is empty: the local copy is made.
  auto session = mmkg::Session::open(cfg);
  mmkg::Store* store = &session->store();
  out["store_open_ms"] = ms_since(t0);
  auto st = store->stats();
  out["chunks"] = st.chunks;
  out["documents"] = st.documents;

  mmkg::Searcher& searcher = session->searcher();
  t0 = Clock::now();
  std::string why = searcher.dense_unavailable_reason();  // loads the embedder and vectors.idx
  out["dense_setup_ms"] = ms_since(t0);
  if (!why.empty()) throw std::runtime_error("dense search unavailable: " + why);
  mmkg::Embedder* emb = searcher.embedder();
  out["embedder"] = emb->id();
  out["memory_after_setup"] = mem_now();

  auto [keywords, phrases] = sample_queries(*store, a.queries, a.seed);
  json sets = json::array();
  // A second reader of the lexical index for the side-by-side comparison.
  auto lexical = mmkg::XapianLexical::open(store->dir());
  out["lexical_index"] = lexical ? "xapian" : "none";
  sets.push_back(run_set(searcher, *emb, *store, lexical.get(), "keywords", keywords, a));
  sets.push_back(run_set(searcher, *emb, *store, lexical.get(), "phrases", phrases, a));
  out["sets"] = sets;
  out["memory_peak"] = mem_now();
  write_json(a.json_out, out);
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse_args(argc, argv);
  try {
    if (a.cmd == "lexical") {  // rebuild only the lexical index of a built store
      auto store = mmkg::Store::open(a.store);
      json out = build_lexical(*store, a.lexical_threads);
      std::printf("%s\n", out.dump().c_str());
      write_json(a.json_out, out);
      return 0;
    }
    return a.cmd == "build" ? cmd_build(a) : cmd_search(a);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mmkg_hybrid_bench: %s\n", e.what());
    return 1;
  }
}
