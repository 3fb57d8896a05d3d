// Google Benchmark micro-benchmarks.
//   mmkg_gbench                                   FTS5 query building only
//   MMKG_BENCH_STORE=DIR mmkg_gbench              also BM25 search over that (existing) store
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "index/lexical.h"
#include "store/store.h"

namespace {

const std::vector<std::string>& queries() {
  static const std::vector<std::string> q = {
      "how do I plot a function",
      "matrix inverse",
      "what is the difference between a cell array and a struct array",
      "sparse matrix",
      "read data from a file",
      "eigenvalues of a symmetric matrix",
      "solve ordinary differential equations",
      "error handling try catch",
  };
  return q;
}

void BM_FtsQuery(benchmark::State& state) {
  size_t i = 0;
  for (auto _ : state) {
    auto q = mmkg::fts_query(queries()[i++ % queries().size()]);
    benchmark::DoNotOptimize(q);
  }
}
BENCHMARK(BM_FtsQuery);

void BM_Bm25Search(benchmark::State& state) {
  const char* dir = std::getenv("MMKG_BENCH_STORE");
  if (!dir || !*dir) {
    state.SkipWithError("set MMKG_BENCH_STORE to an ingested store");
    return;
  }
  auto store = mmkg::Store::open(dir, false);
  mmkg::LexicalOptions lo;
  lo.k = static_cast<int>(state.range(0));
  size_t i = 0;
  for (auto _ : state) {
    auto hits = mmkg::bm25_search(*store, queries()[i++ % queries().size()], lo);
    benchmark::DoNotOptimize(hits);
  }
}
BENCHMARK(BM_Bm25Search)->Arg(10)->Arg(50)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
