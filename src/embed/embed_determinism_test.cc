// A text's vector is the same bits however it is embedded: alone or with any batch-mates, in any
// order, any batch size, any number of worker threads, several callers at once, and with the
// machine loaded (a CPU hog this test starts and stops itself), for fp32 and int8, with every
// kernel this CPU runs. Issue 32: the fp32 vector of a text differed by up to 5e-4 depending on
// how the work was split, and only on a loaded machine.
//
// MMKG_DETERMINISM_ROUNDS sets the randomised rounds per precision (default 6); a soak:
//   MMKG_DETERMINISM_ROUNDS=40 mmkg_tests --gtest_filter='EmbedDeterminism.*' --gtest_repeat=50
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>

#include "embed/embedder.h"
#include "embed/gemm_f32.h"
#include "embed/gemm_int8.h"
#include "embed/native_embedder.h"
#include "support/embed_fixtures.h"

namespace mmkg {
namespace {

// Keeps every core busy with floating-point work and memory traffic until destroyed, so the
// embedder's threads are preempted at arbitrary points and finish in varying order.
class CpuHog {
 public:
  explicit CpuHog(int threads) {
    for (int t = 0; t < threads; ++t) {
      pool_.emplace_back([this, t] {
        std::vector<double> buf(1 << 18, 1.0 + t);
        double x = 1.0;
        size_t i = 0;
        while (!stop_.load(std::memory_order_relaxed)) {
          x = std::sqrt(x * 1.0000001 + buf[i]);
          buf[i] = x;
          i = (i + 4099) & (buf.size() - 1);
        }
        sink_ += x;
      });
    }
  }
  ~CpuHog() {
    stop_ = true;
    for (auto& t : pool_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<double> sink_{0};
  std::vector<std::thread> pool_;
};

// Texts of every length from a few tokens to past the model's 256: the fixture texts, ~1000-character
// chunks of examples/corpus, and prefixes of them.
std::vector<std::string> texts() {
  std::vector<std::string> out;
  for (const auto& r : testing::load_minilm_reference()) out.push_back(r.text);
  auto chunks = testing::corpus_chunks();
  chunks.resize(std::min<size_t>(chunks.size(), 60));
  out.insert(out.end(), chunks.begin(), chunks.end());
  const size_t n = out.size();
  for (size_t i = 0; i < n; i += 5) out.push_back(out[i].substr(0, 40 + 37 * i % 400));
  out.push_back(out[3] + " " + out[4] + " " + out[5]);  // truncated at 256 tokens
  return out;
}

int rounds() {
  const char* e = std::getenv("MMKG_DETERMINISM_ROUNDS");
  return e && std::atoi(e) > 0 ? std::atoi(e) : 6;
}

void expect_same(const std::vector<float>& ref, size_t ref_row, const std::vector<float>& got, size_t got_row,
                 const std::string& what) {
  const float* a = ref.data() + ref_row * 384;
  const float* b = got.data() + got_row * 384;
  if (std::memcmp(a, b, 384 * sizeof(float)) == 0) return;
  float worst = 0;
  for (int k = 0; k < 384; ++k) worst = std::max(worst, std::fabs(a[k] - b[k]));
  ADD_FAILURE() << what << ": text " << ref_row << " differs (max |diff| " << worst << ")";
}

void check_precision(const std::string& dir, NativePrecision precision) {
  const auto all = texts();
  ASSERT_GE(all.size(), 40u);
  // The reference: one text per call, one thread, on a quiet machine.
  auto single = make_native_embedder(dir, {.threads = 1, .batch_tokens = 256, .precision = precision});
  std::vector<float> ref;
  for (const auto& t : all) {
    auto v = single->embed({t}, EmbedKind::Document);
    ref.insert(ref.end(), v.begin(), v.end());
  }
  CpuHog hog(2 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  std::mt19937 rng(12345);
  for (int round = 0; round < rounds(); ++round) {
    const int threads = 1 + static_cast<int>(rng() % 4);
    const int batch_tokens = std::vector<int>{256, 300, 512, 777, 2048, 100000}[rng() % 6];
    auto emb = make_native_embedder(dir, {.threads = threads, .batch_tokens = batch_tokens, .precision = precision});
    // A random subset in a random order: every text gets other batch-mates each round.
    std::vector<size_t> pick(all.size());
    for (size_t i = 0; i < pick.size(); ++i) pick[i] = i;
    std::shuffle(pick.begin(), pick.end(), rng);
    pick.resize(all.size() / 2 + rng() % (all.size() / 2));
    std::vector<std::string> batch;
    for (size_t i : pick) batch.push_back(all[i]);
    const std::string what = std::string(native_precision_name(precision)) + " round " + std::to_string(round) +
                             " threads " + std::to_string(threads) + " batch_tokens " + std::to_string(batch_tokens);
    // Three callers at once on the same embedder, each with its own third of the batch (thirds
    // that do not overlap: the texts are embedded once per round, which halves the test's time
    // against overlapping slices and keeps every text's batch-mates random).
    std::vector<std::vector<float>> got(3);
    std::vector<std::thread> callers;
    auto bounds = [&](int c) { return std::pair<size_t, size_t>{c * batch.size() / 3, (c + 1) * batch.size() / 3}; };
    for (int c = 0; c < 3; ++c) {
      callers.emplace_back([&, c] {
        const auto [first, end] = bounds(c);
        std::vector<std::string> mine(batch.begin() + static_cast<long>(first), batch.begin() + static_cast<long>(end));
        got[static_cast<size_t>(c)] = emb->embed(mine, EmbedKind::Document);
      });
    }
    for (auto& t : callers) t.join();
    for (int c = 0; c < 3; ++c) {
      const auto [first, end] = bounds(c);
      ASSERT_EQ(got[static_cast<size_t>(c)].size(), (end - first) * 384);
      for (size_t i = first; i < end; ++i) {
        expect_same(ref, pick[i], got[static_cast<size_t>(c)], i - first, what + " caller " + std::to_string(c));
      }
    }
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(EmbedDeterminism, Fp32UnderLoad) {
  MMKG_REQUIRE_MINILM(dir);
  check_precision(dir, NativePrecision::Fp32);
}

TEST(EmbedDeterminism, Int8UnderLoad) {
  MMKG_REQUIRE_MINILM(dir);
  check_precision(dir, NativePrecision::Int8);
}

// Every fp32 kernel and every int8 kernel this CPU runs gives the same vectors, bit for bit.
TEST(EmbedDeterminism, EveryKernelGivesTheSameVectors) {
  MMKG_REQUIRE_MINILM(dir);
  auto all = texts();
  all.resize(12);
  for (NativePrecision precision : {NativePrecision::Fp32, NativePrecision::Int8}) {
    std::vector<float> first;
    std::string first_name;
    for (f32::Isa fi : {f32::Isa::Avx512, f32::Isa::Avx2, f32::Isa::Scalar}) {
      for (int8::Isa ii : {int8::Isa::Avx512Vnni, int8::Isa::Avx2, int8::Isa::Scalar}) {
        if (!f32::isa_supported(fi) || !int8::isa_supported(ii)) continue;
        if (precision == NativePrecision::Fp32 && ii != int8::best_isa()) continue;
        f32::set_isa_override(fi);
        int8::set_isa_override(ii);
        auto emb = make_native_embedder(dir, {.threads = 2, .precision = precision, .cache_dir = "none"});
        f32::clear_isa_override();
        int8::clear_isa_override();
        const std::string name = emb->describe();
        // The scalar kernels are slow: four texts.
        std::vector<std::string> some(all.begin(), all.begin() + (fi == f32::Isa::Scalar || ii == int8::Isa::Scalar ? 4 : 12));
        auto v = emb->embed(some, EmbedKind::Document);
        if (first.empty()) {
          first = v, first_name = name;
          continue;
        }
        for (size_t i = 0; i < some.size(); ++i) expect_same(first, i, v, i, name + " vs " + first_name);
      }
    }
  }
}

}  // namespace
}  // namespace mmkg
