// The AVX-512 VNNI kernel of the int8 linear layers (see gemm_int8.h). Compiled with a per-function
// target attribute, so the rest of the build stays baseline x86-64; gemm() calls it only when
// best_isa() saw the CPU features.
//
// Micro-kernel: 6 rows x 64 channels (24 zmm accumulators, 4 weight vectors, one broadcast). Per
// group of 4 inputs it loads 4 x 64 bytes of packed weights, broadcasts each row's 4 activation
// bytes and issues 24 vpdpbusd (u8 x s8, 4 products summed into each int32 lane). Rows are taken in
// chunks of kRowChunk so a chunk's activations (<= 96 x 1536 bytes) stay in L2 while every weight
// panel streams past them; a panel (64 x K bytes, 24 KB for K = 384) stays in L1 across the rows.
// The epilogue subtracts zero point x weight sum, converts to fp32, scales by activation scale x
// channel scale, adds the bias (and the residual when accumulating) and stores with a mask for the
// last, partial panel.
#include "embed/gemm_int8.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace mmkg::int8 {
namespace {

#define MMKG_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

constexpr int kRows = 6;
constexpr int kRowChunk = 96;

template <int MR>
MMKG_VNNI inline void micro(const QuantRows& a, int r0, const PackedWeights& w, int p, float* c,
                            bool accumulate) {
  const int groups = w.kp / 4;
  const uint8_t* ap = a.data.data() + static_cast<size_t>(r0) * a.kp;
  const int8_t* wp = w.data.data() + static_cast<size_t>(p) * kPanel * w.kp;
  __m512i acc[MR][4];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    for (int j = 0; j < 4; ++j) acc[r][j] = _mm512_setzero_si512();
  }
  for (int g = 0; g < groups; ++g) {
    const int8_t* wg = wp + static_cast<size_t>(g) * kPanel * 4;
    const __m512i w0 = _mm512_loadu_si512(wg);
    const __m512i w1 = _mm512_loadu_si512(wg + 64);
    const __m512i w2 = _mm512_loadu_si512(wg + 128);
    const __m512i w3 = _mm512_loadu_si512(wg + 192);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      int32_t a4;
      std::memcpy(&a4, ap + static_cast<size_t>(r) * a.kp + 4 * g, 4);
      const __m512i b = _mm512_set1_epi32(a4);
      acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], b, w0);
      acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], b, w1);
      acc[r][2] = _mm512_dpbusd_epi32(acc[r][2], b, w2);
      acc[r][3] = _mm512_dpbusd_epi32(acc[r][3], b, w3);
    }
  }
  // Fully unrolled with constant indices so the accumulators stay in registers.
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {
    const int n0 = p * kPanel + 16 * j;
    const int rem = w.n - n0;
    if (rem <= 0) continue;
    const __mmask16 mask = rem >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << rem) - 1);
    const __m512i wsum = _mm512_loadu_si512(w.sum.data() + n0);
    const __m512 wscale = _mm512_loadu_ps(w.scale.data() + n0);
    const __m512 bias = _mm512_loadu_ps(w.bias.data() + n0);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const size_t row = static_cast<size_t>(r0 + r);
      const __m512i v = _mm512_sub_epi32(acc[r][j], _mm512_mullo_epi32(_mm512_set1_epi32(a.zero[row]), wsum));
      __m512 f = _mm512_fmadd_ps(_mm512_maskz_cvtepi32_ps(static_cast<__mmask16>(0xFFFF), v),
                                 _mm512_mul_ps(_mm512_set1_ps(a.scale[row]), wscale), bias);
      float* cp = c + row * static_cast<size_t>(w.n) + n0;
      if (accumulate) f = _mm512_add_ps(f, _mm512_maskz_loadu_ps(mask, cp));
      _mm512_mask_storeu_ps(cp, mask, f);
    }
  }
}

}  // namespace

MMKG_VNNI void gemm_avx512vnni(const QuantRows& a, const PackedWeights& w, float* c, bool accumulate) {
  const int panels = w.n_padded() / kPanel;
  for (int m0 = 0; m0 < a.m; m0 += kRowChunk) {
    const int m1 = std::min(a.m, m0 + kRowChunk);
    for (int p = 0; p < panels; ++p) {
      int r = m0;
      for (; r + kRows <= m1; r += kRows) micro<kRows>(a, r, w, p, c, accumulate);
      switch (m1 - r) {
        case 5: micro<5>(a, r, w, p, c, accumulate); break;
        case 4: micro<4>(a, r, w, p, c, accumulate); break;
        case 3: micro<3>(a, r, w, p, c, accumulate); break;
        case 2: micro<2>(a, r, w, p, c, accumulate); break;
        case 1: micro<1>(a, r, w, p, c, accumulate); break;
        default: break;
      }
    }
  }
}

}  // namespace mmkg::int8

#else  // not x86-64 GCC/Clang: never selected (best_isa() is Scalar)

namespace mmkg::int8 {
void gemm_avx512vnni(const QuantRows& a, const PackedWeights& w, float* c, bool accumulate) {
  gemm_scalar(a, w, c, accumulate);
}
}  // namespace mmkg::int8

#endif
