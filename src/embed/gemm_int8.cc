// int8 linear layers (see gemm_int8.h): CPU feature dispatch, weight and activation quantisers,
// and the portable scalar kernel. The SIMD kernels are in gemm_int8_avx512.cc and gemm_int8_avx2.cc.
#include "embed/gemm_int8.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "core/simd.h"
#include "embed/isa_choice.h"

namespace mmkg::int8 {
namespace {

Isa detect_isa() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni")) {
    return Isa::Avx512Vnni;
  }
  if (__builtin_cpu_supports("avx2")) return Isa::Avx2;
#endif
  return Isa::Scalar;
}

// One row of x[j] * cs[j]: range widened to include 0, scale = range / qmax, zero point rounded to
// an integer. Written as plain loops over a fixed lane count so the clones vectorise.
MMKG_SIMD_CLONES void quantise_row(const float* x, const float* cs, int k, int kp, int qmax, uint8_t* q,
                                   float* scale_out, int32_t* zero_out) {
  constexpr int kLanes = 16;
  float lo_l[kLanes] = {}, hi_l[kLanes] = {};
  int i = 0;
  for (; i + kLanes <= k; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      const float v = x[i + j] * cs[i + j];
      lo_l[j] = std::min(lo_l[j], v);
      hi_l[j] = std::max(hi_l[j], v);
    }
  }
  float lo = 0, hi = 0;
  for (int j = 0; j < kLanes; ++j) lo = std::min(lo, lo_l[j]), hi = std::max(hi, hi_l[j]);
  for (int t = i; t < k; ++t) lo = std::min(lo, x[t] * cs[t]), hi = std::max(hi, x[t] * cs[t]);
  const float range = hi - lo;
  if (!(range > 0) || !std::isfinite(range)) {  // all zero (or non-finite: codes of 0 are safe)
    *scale_out = 1.0f;
    *zero_out = 0;
    std::memset(q, 0, static_cast<size_t>(kp));
    return;
  }
  const float fq = static_cast<float>(qmax);
  const float inv = fq / range;
  const int32_t zero = std::clamp(static_cast<int32_t>(std::nearbyint(-lo * inv)), 0, qmax);
  const float zf = static_cast<float>(zero);
  *scale_out = range / fq;
  *zero_out = zero;
  // The codes in blocks of 8 (a GCC vector: the scalar loop's clamps were not if-converted at
  // -O2, so it ran one value at a time), each lane the same operations as the tail's.
  using Block = float __attribute__((vector_size(8 * sizeof(float))));
  using IBlock = int32_t __attribute__((vector_size(8 * sizeof(int32_t))));
  const Block zero_b = Block{}, fq_b = Block{} + fq;
  int t = 0;
  for (; t + 8 <= k; t += 8) {
    Block xv, cv;
    std::memcpy(&xv, x + t, sizeof xv);
    std::memcpy(&cv, cs + t, sizeof cv);
    Block v = xv * cv * inv + zf;
    v = v < zero_b ? zero_b : v;  // std::max(v, 0.0f)
    v = fq_b < v ? fq_b : v;      // std::min(v, fq)
    IBlock c = __builtin_convertvector(v + 0.5f, IBlock);
    for (int j = 0; j < 8; ++j) q[t + j] = static_cast<uint8_t>(c[j]);
  }
  for (; t < k; ++t) {
    float v = std::min(std::max(x[t] * cs[t] * inv + zf, 0.0f), fq);
    q[t] = static_cast<uint8_t>(static_cast<int32_t>(v + 0.5f));
  }
  for (int t = k; t < kp; ++t) q[t] = static_cast<uint8_t>(zero);  // times zero weights
}

}  // namespace

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Avx512Vnni: return "avx512vnni";
    case Isa::Avx2: return "avx2";
    case Isa::Scalar: break;
  }
  return "scalar";
}

namespace {
IsaChoice<Isa>& choice() {
  static IsaChoice<Isa> c(detect_isa, isa_name, "int8");
  return c;
}
}  // namespace

bool isa_supported(Isa isa) { return choice().supported(isa); }
Isa best_isa() { return choice().best(); }
void set_isa_override(Isa isa) { choice().set_override(isa); }
void clear_isa_override() { choice().clear_override(); }

int activation_qmax(Isa) { return 255; }

PackedWeights PackedWeights::quantise(const float* w_in, int n, int k, const float* bias, Isa isa,
                                      const float* smooth) {
  PackedWeights p;
  std::vector<float> smoothed;
  const float* w = w_in;
  if (smooth) {
    smoothed.assign(w_in, w_in + static_cast<size_t>(n) * k);
    for (int r = 0; r < n; ++r) {
      for (int c = 0; c < k; ++c) smoothed[static_cast<size_t>(r) * k + c] *= smooth[c];
    }
    w = smoothed.data();
    p.in_inv.resize(static_cast<size_t>(k));
    for (int c = 0; c < k; ++c) p.in_inv[static_cast<size_t>(c)] = 1.0f / smooth[c];
  }
  p.n = n;
  p.k = k;
  p.kp = (k + 3) / 4 * 4;
  const size_t np = static_cast<size_t>(p.n_padded());
  p.data.assign(np * static_cast<size_t>(p.kp), 0);
  p.scale.assign(np, 0.0f);
  p.sum.assign(np, 0);
  p.bias.assign(np, 0.0f);
  for (int r = 0; r < n; ++r) {
    const float* row = w + static_cast<size_t>(r) * k;
    float mx = 0;
    for (int c = 0; c < k; ++c) mx = std::max(mx, std::fabs(row[c]));
    const float scale = mx > 0 ? mx / 127.0f : 1.0f;
    const float inv = 1.0f / scale;
    p.scale[static_cast<size_t>(r)] = scale;
    if (bias) p.bias[static_cast<size_t>(r)] = bias[r];
    int8_t* panel = p.data.data() + static_cast<size_t>(r / kPanel) * kPanel * p.kp;
    const int ch = r % kPanel;
    int32_t sum = 0;
    for (int c = 0; c < k; ++c) {
      const int q = std::clamp(static_cast<int>(std::nearbyint(row[c] * inv)), -127, 127);
      panel[static_cast<size_t>(c / 4) * kPanel * 4 + static_cast<size_t>(ch) * 4 + c % 4] =
          static_cast<int8_t>(q);
      sum += q;
    }
    p.sum[static_cast<size_t>(r)] = sum;
  }
  if (isa == Isa::Avx2) {
    p.wide.assign(np * static_cast<size_t>(p.kp), 0);
    for (int r = 0; r < p.n_padded(); ++r) {
      for (int c = 0; c < p.kp; ++c) {
        const size_t group = static_cast<size_t>(r / kPanel) * (p.kp / 4) + static_cast<size_t>(c / 4);
        const int ch = r % kPanel;
        p.wide[group * kPanel * 4 + static_cast<size_t>(ch / 8) * 32 + static_cast<size_t>((c % 4) / 2) * 16 +
               static_cast<size_t>(ch % 8) * 2 + static_cast<size_t>(c % 2)] = r < n ? p.code(r, c) : 0;
      }
    }
  }
  return p;
}

int8_t PackedWeights::code(int row, int col) const {
  const int8_t* panel = data.data() + static_cast<size_t>(row / kPanel) * kPanel * kp;
  return panel[static_cast<size_t>(col / 4) * kPanel * 4 + static_cast<size_t>(row % kPanel) * 4 +
               col % 4];
}

void quantise_rows(const float* x, int m, int k, int qmax, QuantRows& out, const float* col_scale) {
  out.m = m;
  out.k = k;
  out.kp = (k + 3) / 4 * 4;
  const size_t need = static_cast<size_t>(m) * out.kp;
  if (out.data.size() < need) out.data.resize(need);
  if (out.scale.size() < static_cast<size_t>(m)) out.scale.resize(static_cast<size_t>(m));
  if (out.zero.size() < static_cast<size_t>(m)) out.zero.resize(static_cast<size_t>(m));
  // Without column scales, scales of 1 (exact: the same codes as no scaling).
  std::vector<float> ones(col_scale ? 0 : static_cast<size_t>(k), 1.0f);
  const float* cs = col_scale ? col_scale : ones.data();
  for (int r = 0; r < m; ++r) {
    quantise_row(x + static_cast<size_t>(r) * k, cs, k, out.kp, qmax,
                 out.data.data() + static_cast<size_t>(r) * out.kp, &out.scale[static_cast<size_t>(r)],
                 &out.zero[static_cast<size_t>(r)]);
  }
}

// The reference kernel: one row at a time, one panel of 64 int32 sums at a time.
void gemm_scalar(const QuantRows& a, const PackedWeights& w, float* c, bool accumulate) {
  const int groups = w.kp / 4;
  const int panels = w.n_padded() / kPanel;
  for (int r = 0; r < a.m; ++r) {
    const uint8_t* arow = a.data.data() + static_cast<size_t>(r) * a.kp;
    float* crow = c + static_cast<size_t>(r) * w.n;
    for (int p = 0; p < panels; ++p) {
      const int8_t* wp = w.data.data() + static_cast<size_t>(p) * kPanel * w.kp;
      int32_t acc[kPanel] = {};
      for (int g = 0; g < groups; ++g) {
        const int8_t* wg = wp + static_cast<size_t>(g) * kPanel * 4;
        const int32_t a0 = arow[4 * g], a1 = arow[4 * g + 1], a2 = arow[4 * g + 2], a3 = arow[4 * g + 3];
        for (int ch = 0; ch < kPanel; ++ch) {
          acc[ch] += a0 * wg[4 * ch] + a1 * wg[4 * ch + 1] + a2 * wg[4 * ch + 2] + a3 * wg[4 * ch + 3];
        }
      }
      const int n0 = p * kPanel;
      const int cnt = std::min(kPanel, w.n - n0);
      for (int ch = 0; ch < cnt; ++ch) {
        const size_t n = static_cast<size_t>(n0 + ch);
        const int32_t v = acc[ch] - a.zero[static_cast<size_t>(r)] * w.sum[n];
        // Fused as the SIMD kernels do, so all three give bit-identical results.
        const float f = std::fma(static_cast<float>(v), a.scale[static_cast<size_t>(r)] * w.scale[n], w.bias[n]);
        crow[n] = accumulate ? crow[n] + f : f;
      }
    }
  }
}

void gemm(Isa isa, const QuantRows& a, const PackedWeights& w, float* c, bool accumulate) {
  if (a.k != w.k) throw Error("int8 gemm: activations have " + std::to_string(a.k) + " columns, weights " + std::to_string(w.k));
  switch (isa) {
    case Isa::Avx512Vnni: return gemm_avx512vnni(a, w, c, accumulate);
    case Isa::Avx2: return gemm_avx2(a, w, c, accumulate);
    case Isa::Scalar: break;
  }
  gemm_scalar(a, w, c, accumulate);
}

void linear(Isa isa, const float* x, int m, const PackedWeights& w, float* y, bool accumulate,
            QuantRows& scratch) {
  quantise_rows(x, m, w.k, activation_qmax(isa), scratch, w.in_inv.empty() ? nullptr : w.in_inv.data());
  gemm(isa, scratch, w, y, accumulate);
}

}  // namespace mmkg::int8
