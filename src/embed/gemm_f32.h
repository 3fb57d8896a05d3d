// fp32 matrix products of the native BERT encoder whose every output element is computed the same
// way whatever the shape of the product around it: c[i, j] = sum over p = 0 .. k-1, in that order,
// of a[i, p] * w[j, p], one fused multiply-add per term starting from 0, then times alpha, plus the
// bias, plus c (when accumulating), each in fp32 with one rounding. No blocking along k, no
// horizontal sums, no per-shape kernel choice: the vector lanes run across output columns j, so a
// row's result does not depend on the other rows of the batch (its batch-mates), the batch size,
// the number of threads, the machine's load, or which kernel (AVX-512, AVX2 or scalar) ran it.
//
// Why our own kernels rather than OpenBLAS's SGEMM: OpenBLAS picks its code by shape (a "small
// matrix" kernel below a size threshold, other kernels for row and column tails, a threaded driver
// that splits k differently above another threshold), so the same text embedded in a different
// batch came out different in its last bits, and through the int8 layers' rounding of activations
// those bits grew to 5e-4 (issue 32). The encoder needs three shapes (a batch times a fixed weight
// matrix; a sequence's queries times its keys; attention weights times values), so a ~250-line
// kernel family gives exact reproducibility at a measured cost (docs/BENCHMARKS.md).
#pragma once

#include <vector>

namespace mmkg::f32 {

/// The kernel families, slowest first. All give bit-identical results.
enum class Isa { Scalar = 0, Avx2 = 1, Avx512 = 2 };

const char* isa_name(Isa isa);
/// Whether this CPU (and this build) can run `isa`.
bool isa_supported(Isa isa);
/// The fastest kernel this CPU runs, or the one forced by set_isa_override().
Isa best_isa();
/// Tests and benches: make best_isa() return `isa` (throws Error when this CPU cannot run it)
/// until clear_isa_override().
void set_isa_override(Isa isa);
void clear_isa_override();

/// Output columns per packed panel (columns are zero padded to a multiple of it).
constexpr int kPanel = 32;

/// The right-hand matrix of a product, packed: W[n, k] (c = a W^T) in panels of kPanel output
/// columns; inside a panel, for each p in [0, k), the kPanel values W[panel * kPanel + j, p].
struct Packed {
  int n = 0;
  int k = 0;
  std::vector<float> data;  ///< n_padded() * k
  int n_padded() const { return (n + kPanel - 1) / kPanel * kPanel; }
  bool empty() const { return n == 0; }
};

/// Packs W[n, k] given row by row: W[j, p] = w[j * ldw + p] (a PyTorch [out, in] weight matrix, or
/// a sequence's keys). `out`'s buffer is reused when large enough.
void pack_rows(const float* w, int n, int k, int ldw, Packed& out);
/// Packs W[parts.size() * rows, k] given as row blocks stacked: rows [i * rows, (i + 1) * rows) are
/// those of parts[i] (row-major, k per row), e.g. the query, key and value weights as one matrix.
void pack_stacked(const std::vector<const float*>& parts, int rows, int k, Packed& out);
/// Packs W[n, k] given as its transpose: W[j, p] = v[p * ldv + j] (a sequence's values).
void pack_transposed(const float* v, int k, int n, int ldv, Packed& out);

/// What is done with each sum s = sum_p a[i, p] w[j, p]: c[i, j] = (accumulate ? c[i, j] : 0) +
/// (s * alpha + bias[j]), the bias left out when null.
struct Epilogue {
  float alpha = 1.0f;
  const float* bias = nullptr;  ///< [w.n] or null
  bool accumulate = false;
};

/// c[m, w.n] (row stride ldc) from a[m, w.k] (row stride lda) and `w`, by the kernel of `isa`.
/// Single-threaded.
void gemm(Isa isa, const float* a, int m, int lda, const Packed& w, float* c, int ldc, const Epilogue& e);

// The per-ISA kernels (one file each), same contract as gemm().
void gemm_scalar(const float* a, int m, int lda, const Packed& w, float* c, int ldc, const Epilogue& e);
void gemm_avx2(const float* a, int m, int lda, const Packed& w, float* c, int ldc, const Epilogue& e);
void gemm_avx512(const float* a, int m, int lda, const Packed& w, float* c, int ldc, const Epilogue& e);

}  // namespace mmkg::f32
