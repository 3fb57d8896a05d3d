// mmkg_search_bench: BM25 search latency on an existing store, in one process (so that process
// start and store opening do not dominate, as they would with one `mmkg search` per query).
//
//   mmkg_search_bench --store DIR [--queries FILE] [--sampled N] [--seed S] [-k K]
//                     [--warmup W] [--repeat R] [--json OUT] [--graph SPEC [--mode M] [--embedder E]]
//
// Two query sets, each timed and reported separately:
//   sampled  N queries of 1-3 words drawn (fixed seed) from the stored chunk text itself, so they
//            work on any corpus: a third single words, a third word pairs, a third triples.
//   file     one natural-language question per line from --queries (blank lines and lines
//            starting with '#' are skipped).
// Every query is run through mmkg::bm25_search on one opened mmkg::Store; the time of each call
// (including building the FTS5 expression, the query and copying out the hits) is recorded.
// With --graph, every query goes through mmkg::Session::search instead, as `mmkg search --graph
// SPEC --mode M` runs it (M bm25 or hybrid; a Neo4j graph's full-text and vector indexes serve
// it when the session picks them, reported as lexical_backend and dense_backend).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/session.h"
#include "text/words.h"
#include "index/lexical.h"
#include "store/sqlite_util.h"
#include "store/store.h"

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

struct Args {
  std::string store, queries, json_out;
  int sampled = 300;
  unsigned seed = 42;
  int k = 10;
  int warmup = 20;
  int repeat = 1;
  std::string graph, mode = "bm25", embedder = "native";  ///< --graph: through a Session
};

[[noreturn]] void usage(const char* msg) {
  std::fprintf(stderr,
               "mmkg_search_bench: %s\nusage: mmkg_search_bench --store DIR [--queries FILE] [--sampled N] "
               "[--seed S] [-k K] [--warmup W] [--repeat R] [--json OUT] [--graph SPEC [--mode bm25|hybrid] "
               "[--embedder E]]\n",
               msg);
  std::exit(2);
}

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value for " + s).c_str());
      return argv[++i];
    };
    if (s == "--store") a.store = val();
    else if (s == "--queries") a.queries = val();
    else if (s == "--json") a.json_out = val();
    else if (s == "--sampled") a.sampled = std::atoi(val().c_str());
    else if (s == "--seed") a.seed = static_cast<unsigned>(std::strtoul(val().c_str(), nullptr, 10));
    else if (s == "-k") a.k = std::atoi(val().c_str());
    else if (s == "--warmup") a.warmup = std::atoi(val().c_str());
    else if (s == "--repeat") a.repeat = std::max(1, std::atoi(val().c_str()));
    else if (s == "--graph") a.graph = val();
    else if (s == "--mode") a.mode = val();
    else if (s == "--embedder") a.embedder = val();
    else if (s == "-h" || s == "--help") usage("help");
    else usage(("unknown argument " + s).c_str());
  }
  if (a.store.empty()) usage("--store is required");
  return a;
}

/// Queries of 1-3 content words (length >= 3, not stop words, with an ASCII letter) taken from
/// randomly chosen chunks; words of a pair/triple come from the same chunk, close together.
std::vector<std::string> sample_queries(mmkg::Store& store, int n, unsigned seed) {
  std::vector<std::string> texts;
  {
    mmkg::Stmt s(store.db(), "SELECT text FROM chunks ORDER BY rowid");
    while (s.step()) texts.push_back(s.text(0));
  }
  std::vector<std::string> out;
  if (texts.empty() || n <= 0) return out;
  std::mt19937 rng(seed);
  int attempts = 0;
  while (static_cast<int>(out.size()) < n && attempts++ < n * 50) {
    const std::string& t = texts[std::uniform_int_distribution<size_t>(0, texts.size() - 1)(rng)];
    std::vector<std::string> ws;
    for (auto& w : mmkg::words(t)) {
      if (w.size() < 3 || mmkg::is_stopword(w)) continue;
      // Words a person would type: at least one ASCII letter (not numbers, not math symbols).
      if (std::none_of(w.begin(), w.end(), [](unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }))
        continue;
      ws.push_back(std::move(w));
    }
    const size_t len = 1 + out.size() % 3;  // 1, 2, 3, 1, 2, 3, ...
    if (ws.size() < len) continue;
    size_t start = std::uniform_int_distribution<size_t>(0, ws.size() - len)(rng);
    std::string q;
    for (size_t j = 0; j < len; ++j) {
      if (!q.empty()) q += ' ';
      q += ws[start + j];
    }
    out.push_back(std::move(q));
  }
  return out;
}

std::vector<std::string> read_queries(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "mmkg_search_bench: cannot read %s\n", path.c_str());
    std::exit(1);
  }
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    auto b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos || line[b] == '#') continue;
    auto e = line.find_last_not_of(" \t\r");
    out.push_back(line.substr(b, e - b + 1));
  }
  return out;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  // Nearest-rank percentile.
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  rank = std::clamp<size_t>(rank, 1, v.size());
  return v[rank - 1];
}

/// One timed search: its hits.
using SearchFn = std::function<std::vector<mmkg::SearchHit>(const std::string&)>;

json run_set(const SearchFn& search, const std::string& name, const std::vector<std::string>& queries, const Args& a) {
  // Warm-up: page cache, SQLite page cache, statement compilation paths.
  for (int i = 0; i < a.warmup && !queries.empty(); ++i) (void)search(queries[static_cast<size_t>(i) % queries.size()]);
  std::vector<double> ms;
  ms.reserve(queries.size() * static_cast<size_t>(a.repeat));
  size_t empty = 0;
  std::vector<std::string> no_hit;
  double hits_total = 0;
  for (int r = 0; r < a.repeat; ++r) {
    for (const auto& q : queries) {
      auto t0 = Clock::now();
      auto hits = search(q);
      auto t1 = Clock::now();
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      if (r == 0) {
        if (hits.empty()) {
          ++empty;
          if (no_hit.size() < 10) no_hit.push_back(q);
        }
        hits_total += static_cast<double>(hits.size());
      }
    }
  }
  double sum = std::accumulate(ms.begin(), ms.end(), 0.0);
  json j = {{"set", name},
            {"queries", queries.size()},
            {"timed_calls", ms.size()},
            {"k", a.k},
            {"no_hit_queries", empty},
            {"no_hit_examples", no_hit},
            {"mean_hits", queries.empty() ? 0.0 : hits_total / static_cast<double>(queries.size())},
            {"p50_ms", percentile(ms, 50)},
            {"p90_ms", percentile(ms, 90)},
            {"p99_ms", percentile(ms, 99)},
            {"mean_ms", ms.empty() ? 0.0 : sum / static_cast<double>(ms.size())},
            {"min_ms", ms.empty() ? 0.0 : *std::min_element(ms.begin(), ms.end())},
            {"max_ms", ms.empty() ? 0.0 : *std::max_element(ms.begin(), ms.end())},
            {"qps_single_thread", sum > 0 ? 1000.0 * static_cast<double>(ms.size()) / sum : 0.0},
            {"examples", json(std::vector<std::string>(queries.begin(), queries.begin() + std::min<size_t>(5, queries.size())))}};
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse_args(argc, argv);
  try {
    auto store = mmkg::Store::open(a.store, false);
    auto st = store->stats();
    mmkg::LexicalOptions lo;
    lo.k = a.k;
    SearchFn search = [&](const std::string& q) { return mmkg::bm25_search(*store, q, lo); };
    std::unique_ptr<mmkg::Session> session;
    std::string lexical = "fts5", dense;
    if (!a.graph.empty()) {
      mmkg::Config cfg;
      cfg.store = a.store;
      cfg.graph = mmkg::GraphBackend::parse(a.graph);
      cfg.embedder = mmkg::EmbedderSpec::parse(a.embedder);
      session = mmkg::Session::open(cfg);
      const mmkg::SearchMode mode = mmkg::parse_search_mode(a.mode);
      search = [&, mode](const std::string& q) {
        mmkg::SearchReport r = session->search({.query = q, .k = a.k, .mode = mode});
        lexical = r.lexical_backend;
        dense = r.dense_backend;
        return r.hits;
      };
    }
    json sets = json::array();
    if (a.sampled > 0) sets.push_back(run_set(search, "sampled", sample_queries(*store, a.sampled, a.seed), a));
    if (!a.queries.empty()) sets.push_back(run_set(search, "file", read_queries(a.queries), a));
    json out = {{"store", a.store}, {"documents", st.documents}, {"chunks", st.chunks}, {"sets", sets}};
    if (session) {
      out["mode"] = a.mode;
      out["lexical_backend"] = lexical;
      out["dense_backend"] = dense;
      std::printf("mode %s, lexical_backend %s, dense_backend %s\n", a.mode.c_str(), lexical.c_str(),
                  dense.empty() ? "-" : dense.c_str());
    }
    std::printf("%-8s %8s %8s %8s %8s %8s %8s\n", "set", "queries", "p50 ms", "p90 ms", "p99 ms", "mean ms", "no-hit");
    for (auto& s : sets)
      std::printf("%-8s %8zu %8.3f %8.3f %8.3f %8.3f %8zu\n", s["set"].get<std::string>().c_str(),
                  s["queries"].get<size_t>(), s["p50_ms"].get<double>(), s["p90_ms"].get<double>(),
                  s["p99_ms"].get<double>(), s["mean_ms"].get<double>(), s["no_hit_queries"].get<size_t>());
    if (!a.json_out.empty()) {
      std::ofstream f(a.json_out);
      f << out.dump(2) << "\n";
      if (!f) {
        std::fprintf(stderr, "mmkg_search_bench: cannot write %s\n", a.json_out.c_str());
        return 1;
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mmkg_search_bench: %s\n", e.what());
    return 1;
  }
}
