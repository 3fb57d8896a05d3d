// The AVX2 kernel of the fp32 products (see gemm_f32.h), for CPUs without AVX-512. Compiled with a
// per-function target attribute (and -ffp-contract=off).
//
// Micro-kernel: up to 6 rows x 16 columns, half a panel (12 ymm accumulators, 2 weight vectors, a
// broadcast): 16 ymm registers hold no more. Lane j of row i accumulates a[i, p] * w[j, p] with one
// vfmadd231ps per p in order of p, as the scalar reference and the AVX-512 kernel do.
#include "embed/gemm_f32.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace mmkg::f32 {
namespace {

#define MMKG_AVX2 __attribute__((target("avx2,fma")))

constexpr int kRows = 6;
constexpr int kRowChunk = 96;

// Stores lanes [0, cols) of v at dst (cols <= 8).
MMKG_AVX2 inline void store_cols(float* dst, __m256 v, int cols) {
  if (cols >= 8) {
    _mm256_storeu_ps(dst, v);
    return;
  }
  alignas(32) float tmp[8];
  _mm256_store_ps(tmp, v);
  std::memcpy(dst, tmp, sizeof(float) * static_cast<size_t>(cols));
}

MMKG_AVX2 inline __m256 load_cols(const float* src, int cols) {
  if (cols >= 8) return _mm256_loadu_ps(src);
  alignas(32) float tmp[8] = {};
  std::memcpy(tmp, src, sizeof(float) * static_cast<size_t>(cols));
  return _mm256_load_ps(tmp);
}

// Rows [0, MR) of a, columns [16 * half, 16 * half + 16) of panel pn.
template <int MR>
MMKG_AVX2 void micro(const float* a, int lda, const Packed& w, int pn, int half, float* c, int ldc,
                     const Epilogue& e) {
  const float* wp = w.data.data() + static_cast<size_t>(pn) * kPanel * static_cast<size_t>(w.k) + 16 * half;
  __m256 acc[MR][2];
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  for (int p = 0; p < w.k; ++p) {
    const __m256 w0 = _mm256_loadu_ps(wp + static_cast<size_t>(p) * kPanel);
    const __m256 w1 = _mm256_loadu_ps(wp + static_cast<size_t>(p) * kPanel + 8);
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      const __m256 x = _mm256_broadcast_ss(a + static_cast<size_t>(r) * lda + p);
      acc[r][0] = _mm256_fmadd_ps(x, w0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(x, w1, acc[r][1]);
    }
  }
  const __m256 alpha = _mm256_set1_ps(e.alpha);
#pragma GCC unroll 2
  for (int q = 0; q < 2; ++q) {
    const int j0 = pn * kPanel + 16 * half + 8 * q;
    const int cols = std::min(8, w.n - j0);
    if (cols <= 0) continue;
    const __m256 bias = e.bias ? load_cols(e.bias + j0, cols) : _mm256_setzero_ps();
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      float* cp = c + static_cast<size_t>(r) * ldc + j0;
      __m256 s = _mm256_mul_ps(acc[r][q], alpha);
      if (e.bias) s = _mm256_add_ps(s, bias);
      if (e.accumulate) s = _mm256_add_ps(load_cols(cp, cols), s);
      store_cols(cp, s, cols);
    }
  }
}

using RowsFn = void (*)(const float*, int, const Packed&, int, int, float*, int, const Epilogue&);
constexpr RowsFn kTail[kRows] = {nullptr, micro<1>, micro<2>, micro<3>, micro<4>, micro<5>};

}  // namespace

MMKG_AVX2 void gemm_avx2(const float* a, int m, int lda, const Packed& w, float* c, int ldc, const Epilogue& e) {
  const int panels = w.n_padded() / kPanel;
  for (int m0 = 0; m0 < m; m0 += kRowChunk) {
    const int m1 = std::min(m, m0 + kRowChunk);
    for (int pn = 0; pn < panels; ++pn) {
      for (int half = 0; half < 2; ++half) {
        if (pn * kPanel + 16 * half >= w.n) break;
        int r = m0;
        for (; r + kRows <= m1; r += kRows) {
          micro<kRows>(a + static_cast<size_t>(r) * lda, lda, w, pn, half, c + static_cast<size_t>(r) * ldc, ldc, e);
        }
        if (r < m1) {
          kTail[m1 - r](a + static_cast<size_t>(r) * lda, lda, w, pn, half, c + static_cast<size_t>(r) * ldc, ldc, e);
        }
      }
    }
  }
}

}  // namespace mmkg::f32

#else  // not x86-64 GCC/Clang: never selected (best_isa() is Scalar)

namespace mmkg::f32 {
void gemm_avx2(const float* a, int m, int lda, const Packed& w, float* c, int ldc, const Epilogue& e) {
  gemm_scalar(a, m, lda, w, c, ldc, e);
}
}  // namespace mmkg::f32

#endif
