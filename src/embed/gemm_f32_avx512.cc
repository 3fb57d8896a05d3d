// The AVX-512 kernel of the fp32 products (see gemm_f32.h). Compiled with a per-function target
// attribute (and -ffp-contract=off), so the rest of the build stays baseline x86-64; gemm() calls
// it only when best_isa() saw the CPU feature.
//
// Micro-kernel: up to 12 rows x 32 columns (24 zmm accumulators, 2 weight vectors, the row's
// value broadcast from memory). Per input p it loads the panel's 32 weights and issues one
// vfmadd231ps per row and half panel: lane j of row i accumulates a[i, p] * w[j, p] in order of p,
// exactly as the scalar reference does. Rows are taken in chunks of kRowChunk so a chunk's inputs
// stay in L2 while every panel streams past them; a panel (32 x K floats, 48 KB for K = 384) is
// reused by all the chunk's rows.
#include "embed/gemm_f32.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include <algorithm>

namespace mmkg::f32 {
namespace {

#define MMKG_AVX512F __attribute__((target("avx512f")))

constexpr int kRows = 12;
constexpr int kRowChunk = 96;

template <int MR>
MMKG_AVX512F inline void micro(const float* a, int lda, const Packed& w, int pn, float* c, int ldc,
                               const Epilogue& e) {
  const float* wp = w.data.data() + static_cast<size_t>(pn) * kPanel * static_cast<size_t>(w.k);
  __m512 acc[MR][2];
#pragma GCC unroll 12
  for (int r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (int p = 0; p < w.k; ++p) {
    const __m512 w0 = _mm512_loadu_ps(wp + static_cast<size_t>(p) * kPanel);
    const __m512 w1 = _mm512_loadu_ps(wp + static_cast<size_t>(p) * kPanel + 16);
#pragma GCC unroll 12
    for (int r = 0; r < MR; ++r) {
      const __m512 x = _mm512_set1_ps(a[static_cast<size_t>(r) * lda + p]);
      acc[r][0] = _mm512_fmadd_ps(x, w0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(x, w1, acc[r][1]);
    }
  }
  const __m512 alpha = _mm512_set1_ps(e.alpha);
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
    const int j0 = pn * kPanel + 16 * h;
    const int rem = w.n - j0;
    if (rem <= 0) continue;
    const __mmask16 mask = rem >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << rem) - 1);
    const __m512 bias = e.bias ? _mm512_maskz_loadu_ps(mask, e.bias + j0) : _mm512_setzero_ps();
#pragma GCC unroll 12
    for (int r = 0; r < MR; ++r) {
      float* cp = c + static_cast<size_t>(r) * ldc + j0;
      __m512 s = _mm512_mul_ps(acc[r][h], alpha);
      if (e.bias) s = _mm512_add_ps(s, bias);
      if (e.accumulate) s = _mm512_add_ps(_mm512_maskz_loadu_ps(mask, cp), s);
      _mm512_mask_storeu_ps(cp, mask, s);
    }
  }
}

template <int MR>
MMKG_AVX512F void rows(const float* a, int lda, const Packed& w, int pn, float* c, int ldc, const Epilogue& e) {
  micro<MR>(a, lda, w, pn, c, ldc, e);
}

using RowsFn = void (*)(const float*, int, const Packed&, int, float*, int, const Epilogue&);
constexpr RowsFn kTail[kRows] = {nullptr,  rows<1>, rows<2>, rows<3>, rows<4>,  rows<5>,
                                 rows<6>,  rows<7>, rows<8>, rows<9>, rows<10>, rows<11>};

}  // namespace

MMKG_AVX512F void gemm_avx512(const float* a, int m, int lda, const Packed& w, float* c, int ldc,
                              const Epilogue& e) {
  const int panels = w.n_padded() / kPanel;
  for (int m0 = 0; m0 < m; m0 += kRowChunk) {
    const int m1 = std::min(m, m0 + kRowChunk);
    for (int pn = 0; pn < panels; ++pn) {
      int r = m0;
      for (; r + kRows <= m1; r += kRows) {
        micro<kRows>(a + static_cast<size_t>(r) * lda, lda, w, pn, c + static_cast<size_t>(r) * ldc, ldc, e);
      }
      if (r < m1) kTail[m1 - r](a + static_cast<size_t>(r) * lda, lda, w, pn, c + static_cast<size_t>(r) * ldc, ldc, e);
    }
  }
}

}  // namespace mmkg::f32

#else  // not x86-64 GCC/Clang: never selected (best_isa() is Scalar)

namespace mmkg::f32 {
void gemm_avx512(const float* a, int m, int lda, const Packed& w, float* c, int ldc, const Epilogue& e) {
  gemm_scalar(a, m, lda, w, c, ldc, e);
}
}  // namespace mmkg::f32

#endif
