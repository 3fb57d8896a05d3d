// mmkg_embed_bench: native embedder throughput (used by bench/embed_bench.py).
//
//   mmkg_embed_bench --store DIR [--embedder native] [--repeat 3] [--warmup 1] [--threads N]
//                    [--dump VECTORS.f32] [--json OUT] [--compare SPEC] [--isa avx2|scalar]
//
// Reads every chunk text of the store (SQLite `chunks` table, by rowid), builds the embedder with
// mmkg::make_embedder (model loading is timed separately), embeds all texts --warmup times untimed,
// then --repeat times timed, each a single Embedder::embed(texts, EmbedKind::Document) call: the
// same call `mmkg ingest` makes (texts tokenised, sorted by length, packed into batches of at most
// 2048 tokens, batches spread over the worker threads). --threads sets MMKG_EMBED_THREADS before
// the embedder is built. --dump writes the last result (texts x dim float32, row-major) so that the
// caller can compare it with another implementation. The texts' tokens are counted with the bundled
// model's tokenizer (truncated at 256 like the embedder), for tokens/s.
//
// --compare SPEC (e.g. --embedder native:int8 --compare native:fp32) runs SPEC the same way after
// the first and reports both timings and the cosine of every text's two vectors (min, 1st
// percentile, mean) under "compare". --isa forces the int8 kernel (internal override, for
// measuring the AVX2 or scalar kernel on a CPU that has a faster one).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "embed/embedder.h"
#include "embed/gemm_int8.h"
#include "embed/native_embedder.h"
#include "embed/wordpiece.h"
#include "store/sqlite_util.h"
#include "store/store.h"

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void usage(const std::string& msg) {
  std::fprintf(stderr,
               "mmkg_embed_bench: %s\nusage: mmkg_embed_bench --store DIR [--embedder SPEC] [--repeat R] "
               "[--warmup W] [--threads N] [--dump FILE] [--json OUT] [--compare SPEC] [--isa ISA]\n",
               msg.c_str());
  std::exit(2);
}

struct Run {
  nlohmann::json info;
  std::vector<float> vectors;
};

// Builds `spec`, embeds all texts `warmup` times untimed and `repeat` times timed.
Run run_spec(const std::string& spec, const std::vector<std::string>& texts, int warmup, int repeat, size_t tokens) {
  auto t0 = Clock::now();
  auto emb = mmkg::make_embedder(spec);
  double load_s = std::chrono::duration<double>(Clock::now() - t0).count();
  for (int w = 0; w < warmup; ++w) emb->embed(texts, mmkg::EmbedKind::Document);
  std::vector<double> secs;
  Run out;
  for (int r = 0; r < repeat; ++r) {
    auto t = Clock::now();
    out.vectors = emb->embed(texts, mmkg::EmbedKind::Document);
    secs.push_back(std::chrono::duration<double>(Clock::now() - t).count());
    std::fprintf(stderr, "mmkg_embed_bench: %s run %d: %.3f s for %zu texts\n", spec.c_str(), r + 1, secs.back(),
                 texts.size());
  }
  std::vector<double> sorted = secs;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  out.info = {{"spec", spec},
              {"embedder", emb->id()},
              {"describe", emb->describe()},
              {"dim", emb->dim()},
              {"load_seconds", load_s},
              {"seconds", secs},
              {"median_seconds", median}};
  if (tokens > 0) out.info["tokens_per_s"] = static_cast<double>(tokens) / median;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string store_dir, spec = "native", dump, json_out, compare, isa;
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
    else if (s == "--compare") compare = val();
    else if (s == "--isa") isa = val();
    else usage("unknown argument " + s);
  }
  if (store_dir.empty()) usage("--store is required");
  try {
    if (threads > 0) setenv("MMKG_EMBED_THREADS", std::to_string(threads).c_str(), 1);
    if (isa == "avx2") mmkg::int8::set_isa_override(mmkg::int8::Isa::Avx2);
    else if (isa == "scalar") mmkg::int8::set_isa_override(mmkg::int8::Isa::Scalar);
    else if (isa == "avx512vnni") mmkg::int8::set_isa_override(mmkg::int8::Isa::Avx512Vnni);
    else if (!isa.empty()) usage("--isa takes avx512vnni, avx2 or scalar");
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
    size_t tokens = 0;
    try {
      auto tok = mmkg::WordpieceTokenizer::from_file(mmkg::find_native_model_dir() + "/vocab.txt", 256);
      for (const auto& t : texts) tokens += tok.encode(t).size();
    } catch (const mmkg::Error&) {
      // no bundled model: no token count
    }
    Run main_run = run_spec(spec, texts, warmup, repeat, tokens);
    const std::vector<float>& v = main_run.vectors;
    if (!dump.empty()) {
      std::ofstream f(dump, std::ios::binary);
      f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
      if (!f) throw std::runtime_error("cannot write " + dump);
    }
    nlohmann::json j = main_run.info;
    j["texts"] = texts.size();
    j["chars"] = chars;
    j["tokens"] = tokens;
    j["warmup"] = warmup;
    j["threads_env"] = std::getenv("MMKG_EMBED_THREADS") ? std::getenv("MMKG_EMBED_THREADS") : "";
    j["openblas_coretype"] = std::getenv("OPENBLAS_CORETYPE") ? std::getenv("OPENBLAS_CORETYPE") : "";
    if (!compare.empty()) {
      Run other = run_spec(compare, texts, warmup, repeat, tokens);
      const size_t d = static_cast<size_t>(j["dim"].get<int>());
      if (other.vectors.size() != v.size()) throw std::runtime_error("--compare: the embedders' dimensions differ");
      std::vector<double> cos(texts.size());
      for (size_t i = 0; i < texts.size(); ++i) {
        double c = 0;
        for (size_t k = 0; k < d; ++k) c += double(v[i * d + k]) * other.vectors[i * d + k];
        cos[i] = c;
      }
      std::vector<double> sorted = cos;
      std::sort(sorted.begin(), sorted.end());
      double mean = 0;
      for (double c : cos) mean += c / static_cast<double>(cos.size());
      other.info["cosine"] = {{"min", sorted.front()},
                              {"p1", sorted[sorted.size() / 100]},
                              {"mean", mean},
                              {"below_0.99", std::count_if(cos.begin(), cos.end(), [](double c) { return c < 0.99; })}};
      j["compare"] = other.info;
    }
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
