// fp32 products (see gemm_f32.h): CPU feature dispatch, packing, and the portable scalar kernel,
// which is the reference the SIMD kernels (gemm_f32_avx512.cc, gemm_f32_avx2.cc) match bit for bit.
// Built with -ffp-contract=off (CMakeLists.txt) so the compiler fuses nothing the kernels do not.
#include "embed/gemm_f32.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "embed/isa_choice.h"

namespace mmkg::f32 {
namespace {

Isa detect_isa() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return Isa::Avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::Avx2;
#endif
  return Isa::Scalar;
}

IsaChoice<Isa>& choice() {
  static IsaChoice<Isa> c(detect_isa, isa_name, "fp32");
  return c;
}

void size_for(Packed& out, int n, int k) {
  out.n = n;
  out.k = k;
  const size_t need = static_cast<size_t>(out.n_padded()) * static_cast<size_t>(k);
  if (out.data.size() < need) out.data.resize(need);
}

// Packs W[n, k] whose row j (k values in order) starts at row(j); the panels' padding columns are
// zero. A panel's kPanel rows are read side by side (kPanel streams), and each of its k groups of
// kPanel values written at once: measured 2x faster than one row at a time.
template <typename Row>
void pack(Packed& out, int n, int k, Row row) {
  size_for(out, n, k);
  const int panels = out.n_padded() / kPanel;
  static const float kZeros[1] = {0.0f};
  for (int pn = 0; pn < panels; ++pn) {
    float* dst = out.data.data() + static_cast<size_t>(pn) * kPanel * static_cast<size_t>(k);
    const int j0 = pn * kPanel, cols = std::min(kPanel, n - j0);
    const float* src[kPanel];
    size_t step[kPanel];  // 1 for a row, 0 for a padding column (reads the one zero)
    for (int j = 0; j < kPanel; ++j) {
      src[j] = j < cols ? row(j0 + j) : kZeros;
      step[j] = j < cols ? 1 : 0;
    }
    for (int p = 0; p < k; ++p) {
      float* d = dst + static_cast<size_t>(p) * kPanel;
      for (int j = 0; j < kPanel; ++j) d[j] = src[j][step[j] * static_cast<size_t>(p)];
    }
  }
}

}  // namespace

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Avx512: return "avx512";
    case Isa::Avx2: return "avx2";
    case Isa::Scalar: break;
  }
  return "scalar";
}

bool isa_supported(Isa isa) { return choice().supported(isa); }
Isa best_isa() { return choice().best(); }
void set_isa_override(Isa isa) { choice().set_override(isa); }
void clear_isa_override() { choice().clear_override(); }

void pack_rows(const float* w, int n, int k, int ldw, Packed& out) {
  pack(out, n, k, [&](int j) { return w + static_cast<size_t>(j) * ldw; });
}

void pack_stacked(const std::vector<const float*>& parts, int rows, int k, Packed& out) {
  pack(out, static_cast<int>(parts.size()) * rows, k,
       [&](int j) { return parts[static_cast<size_t>(j / rows)] + static_cast<size_t>(j % rows) * k; });
}

void pack_transposed(const float* v, int k, int n, int ldv, Packed& out) {
  size_for(out, n, k);
  const int panels = out.n_padded() / kPanel;
  for (int pn = 0; pn < panels; ++pn) {
    float* dst = out.data.data() + static_cast<size_t>(pn) * kPanel * static_cast<size_t>(k);
    const int j0 = pn * kPanel, cols = std::min(kPanel, n - j0);
    for (int p = 0; p < k; ++p) {
      float* d = dst + static_cast<size_t>(p) * kPanel;
      std::memcpy(d, v + static_cast<size_t>(p) * ldv + j0, sizeof(float) * static_cast<size_t>(cols));
      std::fill(d + cols, d + kPanel, 0.0f);
    }
  }
}

// The reference: one row and one panel at a time, kPanel running sums, one fma per term.
void gemm_scalar(const float* a, int m, int lda, const Packed& w, float* c, int ldc, const Epilogue& e) {
  const int panels = w.n_padded() / kPanel;
  for (int i = 0; i < m; ++i) {
    const float* arow = a + static_cast<size_t>(i) * lda;
    float* crow = c + static_cast<size_t>(i) * ldc;
    for (int pn = 0; pn < panels; ++pn) {
      const float* wp = w.data.data() + static_cast<size_t>(pn) * kPanel * static_cast<size_t>(w.k);
      float acc[kPanel] = {};
      for (int p = 0; p < w.k; ++p) {
        const float x = arow[p];
        const float* wr = wp + static_cast<size_t>(p) * kPanel;
        for (int j = 0; j < kPanel; ++j) acc[j] = std::fma(x, wr[j], acc[j]);
      }
      const int j0 = pn * kPanel, cols = std::min(kPanel, w.n - j0);
      for (int j = 0; j < cols; ++j) {
        float s = acc[j] * e.alpha;
        if (e.bias) s = s + e.bias[j0 + j];
        crow[j0 + j] = e.accumulate ? crow[j0 + j] + s : s;
      }
    }
  }
}

void gemm(Isa isa, const float* a, int m, int lda, const Packed& w, float* c, int ldc, const Epilogue& e) {
  if (m <= 0 || w.n <= 0) return;
  switch (isa) {
    case Isa::Avx512: return gemm_avx512(a, m, lda, w, c, ldc, e);
    case Isa::Avx2: return gemm_avx2(a, m, lda, w, c, ldc, e);
    case Isa::Scalar: break;
  }
  gemm_scalar(a, m, lda, w, c, ldc, e);
}

}  // namespace mmkg::f32
