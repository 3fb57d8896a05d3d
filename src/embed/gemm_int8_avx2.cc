// The AVX2 kernel of the int8 linear layers (see gemm_int8.h), for x86-64 CPUs without AVX-512
// VNNI. Compiled with a per-function target attribute; gemm() calls it only when the CPU has AVX2.
//
// vpmaddwd multiplies int16 pairs and adds each pair into an int32 lane: with the weights widened
// to int16 at load (PackedWeights::wide: per 8 channels, their (in0, in1) pairs, then their
// (in2, in3) pairs) and a row's activation codes widened per chunk of rows, two vpmaddwd against
// the broadcast pairs (a0, a1) and (a2, a3) give 8 channels x 4 inputs, exactly (255 x 127 x 2
// fits easily), so the sums equal the other kernels'. vpmaddubsw would use the 8-bit codes as they
// are at ~1.3x the speed but saturates in int16 unless activations drop to 7 bits, which costs
// too much accuracy (gemm_int8.h). Micro-kernel: 4 rows x 16 channels (8 ymm accumulators).
#include "embed/gemm_int8.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "core/error.h"

namespace mmkg::int8 {
namespace {

#define MMKG_AVX2 __attribute__((target("avx2,fma")))

constexpr int kRows = 4;
constexpr int kRowChunk = 96;

// `a16`: the chunk's activation codes as int16, row stride kp, starting at row r0 of the chunk.
template <int MR>
MMKG_AVX2 inline void micro(const int16_t* a16, int kp, const QuantRows& a, int r0, const PackedWeights& w,
                            int p, int block, float* c, bool accumulate) {
  const int groups = w.kp / 4;
  const int16_t* wp = w.wide.data() + static_cast<size_t>(p) * kPanel * w.kp + block * 32;
  __m256i acc[MR][2];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
  for (int g = 0; g < groups; ++g) {
    const int16_t* wg = wp + static_cast<size_t>(g) * kPanel * 4;
    const __m256i w0lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wg));
    const __m256i w0hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wg + 16));
    const __m256i w1lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wg + 32));
    const __m256i w1hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wg + 48));
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      int32_t p01, p23;
      const int16_t* ar = a16 + static_cast<size_t>(r) * kp + 4 * g;
      std::memcpy(&p01, ar, 4);
      std::memcpy(&p23, ar + 2, 4);
      const __m256i b01 = _mm256_set1_epi32(p01), b23 = _mm256_set1_epi32(p23);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(b01, w0lo));
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(b23, w0hi));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(b01, w1lo));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(b23, w1hi));
    }
  }
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  // Fully unrolled with constant indices so the accumulators stay in registers.
#pragma GCC unroll 2
  for (int j = 0; j < 2; ++j) {
    const int n0 = p * kPanel + block * 8 + 8 * j;
    if (n0 >= w.n) continue;
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(std::min(8, w.n - n0)), lane);
    const __m256i wsum = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.sum.data() + n0));
    const __m256 wscale = _mm256_loadu_ps(w.scale.data() + n0);
    const __m256 bias = _mm256_loadu_ps(w.bias.data() + n0);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const size_t row = static_cast<size_t>(r0 + r);
      const __m256i v = _mm256_sub_epi32(acc[r][j], _mm256_mullo_epi32(_mm256_set1_epi32(a.zero[row]), wsum));
      __m256 f = _mm256_fmadd_ps(_mm256_cvtepi32_ps(v), _mm256_mul_ps(_mm256_set1_ps(a.scale[row]), wscale), bias);
      float* cp = c + row * static_cast<size_t>(w.n) + n0;
      if (accumulate) f = _mm256_add_ps(f, _mm256_maskload_ps(cp, mask));
      _mm256_maskstore_ps(cp, mask, f);
    }
  }
}

}  // namespace

MMKG_AVX2 void gemm_avx2(const QuantRows& a, const PackedWeights& w, float* c, bool accumulate) {
  if (w.wide.empty() && w.n > 0) throw Error("int8 gemm: weights not packed for the AVX2 kernel");
  const int panels = w.n_padded() / kPanel;
  std::vector<int16_t> a16(static_cast<size_t>(std::min(a.m, kRowChunk)) * a.kp);
  for (int m0 = 0; m0 < a.m; m0 += kRowChunk) {
    const int m1 = std::min(a.m, m0 + kRowChunk);
    const uint8_t* src = a.data.data() + static_cast<size_t>(m0) * a.kp;
    for (size_t i = 0; i < static_cast<size_t>(m1 - m0) * a.kp; ++i) a16[i] = src[i];
    for (int p = 0; p < panels; ++p) {
      for (int b = 0; b < kPanel / 8; b += 2) {
        if (p * kPanel + b * 8 >= w.n) break;
        int r = m0;
        const auto at = [&](int row) { return a16.data() + static_cast<size_t>(row - m0) * a.kp; };
        for (; r + kRows <= m1; r += kRows) micro<kRows>(at(r), a.kp, a, r, w, p, b, c, accumulate);
        switch (m1 - r) {
          case 3: micro<3>(at(r), a.kp, a, r, w, p, b, c, accumulate); break;
          case 2: micro<2>(at(r), a.kp, a, r, w, p, b, c, accumulate); break;
          case 1: micro<1>(at(r), a.kp, a, r, w, p, b, c, accumulate); break;
          default: break;
        }
      }
    }
  }
}

}  // namespace mmkg::int8

#else  // not x86-64 GCC/Clang: never selected (best_isa() is Scalar)

namespace mmkg::int8 {
void gemm_avx2(const QuantRows& a, const PackedWeights& w, float* c, bool accumulate) {
  gemm_scalar(a, w, c, accumulate);
}
}  // namespace mmkg::int8

#endif
