// mmkg_embed_bench: native embedder throughput (used by bench/embed_bench.py).
//
//   mmkg_embed_bench --store DIR [--embedder native] [--repeat 3] [--warmup 1] [--threads N]
//                    [--dump VECTORS.f32] [--json OUT]
//
// Reads every chunk text of the store (SQLite `chunks` table, by rowid), builds the embedder with
// mmkg::make_embedder (model loading is timed separately), embeds all texts --warmup times untimed,
// then --repeat times timed, each a single Embedder::embed(texts, EmbedKind::Document) call: the
// same call `mmkg ingest` makes (texts tokenised, sorted by length, packed into batches of at most
// 2048 tokens, batches spread over the worker threads). --threads sets MMKG_EMBED_THREADS before
// the embedder is built. --dump writes the last result (texts x dim float32, row-major) so that the
// caller can compare it with another implementation.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "embed/embedder.h"
#include "store/sqlite_util.h"
#include "store/store.h"

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void usage(const std::string& msg) {
  std::fprintf(stderr,
               "mmkg_embed_bench: %s\nusage: mmkg_embed_bench --store DIR [--embedder SPEC] [--repeat R] "
               "[--warmup W] [--threads N] [--dump FILE] [--json OUT]\n",
               msg.c_str());
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::string store_dir, spec = "native", dump, json_out;
  int repeat = 3, warmup = 1, threads = 0;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) usage("missing value for " + s);
      return argv[++i];
    };
    if (s == "--store") store_dir = val();
    else if (s == "--embedder") spec = val();
    else if (s == "--repeat") repeat = std::max(1, std::atoi(val().c_str()));
    else if (s == "--warmup") warmup = std::max(0, std::atoi(val().c_str()));
    else if (s == "--threads") threads = std::max(0, std::atoi(val().c_str()));
    else if (s == "--dump") dump = val();
    else if (s == "--json") json_out = val();
    else usage("unknown argument " + s);
  }
  if (store_dir.empty()) usage("--store is required");
  try {
    if (threads > 0) setenv("MMKG_EMBED_THREADS", std::to_string(threads).c_str(), 1);
    std::vector<std::string> texts;
    size_t chars = 0;
    {
      auto store = mmkg::Store::open(store_dir, false);
      mmkg::Stmt s(store->db(), "SELECT text FROM chunks ORDER BY rowid");
      while (s.step()) {
        texts.push_back(s.text(0));
        chars += texts.back().size();
      }
    }
    auto t0 = Clock::now();
    auto emb = mmkg::make_embedder(spec);
    double load_s = std::chrono::duration<double>(Clock::now() - t0).count();
    for (int w = 0; w < warmup; ++w) emb->embed(texts, mmkg::EmbedKind::Document);
    std::vector<double> secs;
    std::vector<float> v;
    for (int r = 0; r < repeat; ++r) {
      auto t = Clock::now();
      v = emb->embed(texts, mmkg::EmbedKind::Document);
      secs.push_back(std::chrono::duration<double>(Clock::now() - t).count());
      std::fprintf(stderr, "mmkg_embed_bench: run %d: %.3f s for %zu texts\n", r + 1, secs.back(), texts.size());
    }
    if (!dump.empty()) {
      std::ofstream f(dump, std::ios::binary);
      f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
      if (!f) throw std::runtime_error("cannot write " + dump);
    }
    std::vector<double> sorted = secs;
    std::sort(sorted.begin(), sorted.end());
    nlohmann::json j = {{"embedder", emb->id()},
                        {"dim", emb->dim()},
                        {"texts", texts.size()},
                        {"chars", chars},
                        {"threads_env", std::getenv("MMKG_EMBED_THREADS") ? std::getenv("MMKG_EMBED_THREADS") : ""},
                        {"openblas_coretype", std::getenv("OPENBLAS_CORETYPE") ? std::getenv("OPENBLAS_CORETYPE") : ""},
                        {"load_seconds", load_s},
                        {"warmup", warmup},
                        {"seconds", secs},
                        {"median_seconds", sorted[sorted.size() / 2]}};
    if (!json_out.empty()) {
      std::ofstream f(json_out);
      f << j.dump(2) << "\n";
    }
    std::printf("%s\n", j.dump().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mmkg_embed_bench: %s\n", e.what());
    return 1;
  }
}
