// mmkg_gemm_int8_bench: peak throughput of the int8 GEMM kernels (src/embed/gemm_int8.h) against
// OpenBLAS SGEMM on the same shape.
//
//   mmkg_gemm_int8_bench [M N K] [--repeat R]      (default 2048 1536 384, the encoder's FF1 shape)
//
// For every kernel this CPU runs, times gemm() on pre-quantised activations (the kernel alone) and
// linear() (activation quantisation + kernel) with 1 thread and with 2 threads (rows split in two
// halves, one per thread, as the embedder's workers each run their own batch), best of R runs.
// GOPS counts a multiply and an add as 2 operations: 2 M N K / seconds.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "embed/gemm_int8.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace mmkg::int8;

double best_of(int repeat, const std::function<void()>& fn) {
  double best = 1e30;
  for (int r = 0; r < repeat; ++r) {
    auto t = Clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t).count());
  }
  return best;
}

// Runs fn(row_begin, row_end) on `threads` threads over [0, m).
void split_rows(int m, int threads, const std::function<void(int, int)>& fn) {
  std::vector<std::thread> pool;
  const int step = (m + threads - 1) / threads;
  for (int t = 1; t < threads; ++t) pool.emplace_back(fn, std::min(m, t * step), std::min(m, (t + 1) * step));
  fn(0, std::min(m, step));
  for (auto& th : pool) th.join();
}

}  // namespace

int main(int argc, char** argv) {
  int dims[3] = {2048, 1536, 384}, nd = 0, repeat = 5;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    if (s == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (nd < 3) dims[nd++] = std::atoi(s.c_str());
  }
  const int M = dims[0], N = dims[1], K = dims[2];
  std::mt19937 rng(1);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(M) * K), w(static_cast<size_t>(N) * K), y(static_cast<size_t>(M) * N);
  for (auto& v : x) v = dist(rng);
  for (auto& v : w) v = 0.05f * dist(rng);
  const PackedWeights pw =
      PackedWeights::quantise(w.data(), N, K, nullptr, isa_supported(Isa::Avx2) ? Isa::Avx2 : Isa::Scalar);
  const double ops = 2.0 * M * N * K;
  std::printf("shape M=%d N=%d K=%d, best of %d\n", M, N, K, repeat);
  for (Isa isa : {Isa::Avx512Vnni, Isa::Avx2, Isa::Scalar}) {
    if (!isa_supported(isa)) continue;
    for (int threads : {1, 2}) {
      // Each thread quantises and multiplies its own rows, with its own buffers.
      std::vector<QuantRows> q(static_cast<size_t>(threads));
      const int step = (M + threads - 1) / threads;
      split_rows(M, threads, [&](int b, int e) {
        quantise_rows(x.data() + static_cast<size_t>(b) * K, e - b, K, activation_qmax(isa), q[static_cast<size_t>(b / step)]);
      });
      const int rep = isa == Isa::Scalar ? 1 : repeat;
      double kern = best_of(rep, [&] {
        split_rows(M, threads, [&](int b, int e) {
          gemm(isa, q[static_cast<size_t>(b / step)], pw, y.data() + static_cast<size_t>(b) * N, false);
        });
      });
      double lin = best_of(rep, [&] {
        split_rows(M, threads, [&](int b, int e) {
          linear(isa, x.data() + static_cast<size_t>(b) * K, e - b, pw, y.data() + static_cast<size_t>(b) * N, false,
                 q[static_cast<size_t>(b / step)]);
        });
      });
      std::printf("int8 %-10s %d thread(s): kernel %7.1f GOPS (%.2f ms), quantise+kernel %7.1f GOPS\n",
                  isa_name(isa), threads, ops / kern * 1e-9, kern * 1e3, ops / lin * 1e-9);
    }
  }
  for (int threads : {1, 2}) {
    openblas_set_num_threads(1);
    double t = best_of(repeat, [&] {
      split_rows(M, threads, [&](int b, int e) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, e - b, N, K, 1.0f, x.data() + static_cast<size_t>(b) * K,
                    K, w.data(), K, 0.0f, y.data() + static_cast<size_t>(b) * N, N);
      });
    });
    std::printf("fp32 sgemm (OpenBLAS) %d thread(s): %7.1f GFLOPS (%.2f ms)\n", threads, ops / t * 1e-9, t * 1e3);
  }
  return 0;
}
