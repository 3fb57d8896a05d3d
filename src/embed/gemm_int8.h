// int8 linear layers for the native BERT encoder: y = x W^T + b with W quantised per output
// channel (symmetric int8) at load, x quantised per row at run time (asymmetric uint8 with a zero
// point), products accumulated in int32 and dequantised to fp32 with the bias added in fp32.
//
// Why our own kernels rather than oneDNN: the encoder needs one shape of product (activations
// [tokens, K] times a fixed [N, K] weight matrix, N a multiple of 64, K = 384 or 1536), the
// quantisation and the dequantise + bias + residual epilogue fuse naturally into a small kernel,
// and a library would add a system dependency for ~300 lines. Three kernels, chosen by CPU features
// at run time (`best_isa()`), all computing the same exact int32 sums from the same weight codes:
//   - AVX-512 VNNI (gemm_int8_avx512.cc): vpdpbusd, u8 x s8 -> s32, 6 rows x 64 channels;
//   - AVX2 (gemm_int8_avx2.cc): vpmaddwd on int16 copies of the codes (weights widened at load),
//     4 rows x 16 channels. (vpmaddubsw would take the u8/s8 codes directly but adds product pairs
//     in int16 with saturation, so it needs 7-bit activations, and those cost too much accuracy:
//     minimum cosine with fp32 0.972 on examples/corpus instead of 0.992);
//   - portable scalar C++ (gemm_int8.cc), on any CPU.
// Measured on the 2-vCPU AMD EPYC (Zen 4) dev VM, M=2048 N=1536 K=384 (bench/gemm_int8_bench.cc):
// VNNI 395 GOPS on 1 thread, 778 on 2; AVX2 100 / 198; scalar 14 / 29; OpenBLAS SGEMM 100 / 198
// GFLOPS. oneDNN was not measured; 395 GOPS on one core is about one 512-bit vpdpbusd per cycle
// at 3 GHz (Zen 4's issue rate for it), which leaves little for a library to win on these shapes.
#pragma once

#include <cstdint>
#include <vector>

namespace mmkg::int8 {

/// The kernel families, slowest first.
enum class Isa { Scalar = 0, Avx2 = 1, Avx512Vnni = 2 };

const char* isa_name(Isa isa);
/// Whether this CPU (and this build) can run `isa`.
bool isa_supported(Isa isa);
/// The fastest kernel this CPU runs, or the one forced by set_isa_override().
Isa best_isa();
/// Tests and benches: make best_isa() return `isa` (throws Error when this CPU cannot run it)
/// until clear_isa_override(). Encoders built meanwhile keep that kernel.
void set_isa_override(Isa isa);
void clear_isa_override();

/// Output channels per packed panel (the weight rows are padded to a multiple of it).
constexpr int kPanel = 64;

/// Largest activation code of `isa`'s kernel (255 for all three: 8-bit activations).
int activation_qmax(Isa isa);

/// A weight matrix W[n, k] (PyTorch's [out, in] layout) quantised per output channel,
/// q = round(w / scale) in [-127, 127] with scale = max|w[row]| / 127, and packed for the kernels:
/// panels of kPanel channels; inside a panel, for each group of 4 inputs (k rounded up to kp, a
/// multiple of 4, zero padded), kPanel x 4 bytes (channel c's 4 consecutive inputs at c * 4), so
/// one 64-byte load gives 16 channels x 4 inputs, the operand of vpdpbusd.
struct PackedWeights {
  int n = 0;   ///< output channels
  int k = 0;   ///< inputs
  int kp = 0;  ///< k rounded up to a multiple of 4
  std::vector<int8_t> data;  ///< n_padded() * kp bytes
  std::vector<float> scale;  ///< [n_padded()] per-channel scale (0 for padding)
  std::vector<int32_t> sum;  ///< [n_padded()] sum over k of q, for the zero-point correction
  std::vector<float> bias;   ///< [n_padded()] (0 when none)
  /// Input smoothing (empty when none): the packed codes are those of W[:, j] * s_j, and the
  /// activations are multiplied by in_inv[j] = 1 / s_j before they are quantised, so the product
  /// is unchanged while the activation channels with large values (and the weight columns with
  /// small ones) share the quantisation error (SmoothQuant, Xiao et al. 2023).
  std::vector<float> in_inv;
  /// The AVX2 kernel's layout, only when packed for Isa::Avx2: the same codes as int16, per panel,
  /// per group of 4 inputs, per 8 channels: 8 x (in0, in1) then 8 x (in2, in3), the pairs
  /// vpmaddwd multiplies and adds.
  std::vector<int16_t> wide;

  int n_padded() const { return (n + kPanel - 1) / kPanel * kPanel; }
  bool empty() const { return n == 0; }
  /// Quantises and packs `w` ([n, k] row-major) for the kernel of `isa`; `bias` ([n]) may be null.
  /// `smooth` ([k], all > 0) may be null: the input smoothing factors s_j (see in_inv).
  static PackedWeights quantise(const float* w, int n, int k, const float* bias, Isa isa,
                                const float* smooth = nullptr);
  /// The int8 code of W[row, col] (from the packed layout).
  int8_t code(int row, int col) const;
};

/// Activations quantised per row: code = clamp(round(x / scale) + zero, 0, qmax), so
/// x ~ (code - zero) * scale. The range of each row is widened to include 0.
struct QuantRows {
  int m = 0, k = 0, kp = 0;    ///< rows, inputs, row stride (k rounded up to 4, padding = zero)
  std::vector<uint8_t> data;   ///< m * kp codes
  std::vector<float> scale;    ///< [m]
  std::vector<int32_t> zero;   ///< [m]
};

/// Quantises x[m, k] (row-major) into `out` (its buffers are reused when large enough). With
/// `col_scale` ([k]), each x[r, j] * col_scale[j] is quantised instead.
void quantise_rows(const float* x, int m, int k, int qmax, QuantRows& out,
                   const float* col_scale = nullptr);

/// c[m, n] = dequant(a W^T) + bias, or c += that when `accumulate` (residual connections), using
/// the kernel of `isa`. `a` comes from quantise_rows() with activation_qmax(isa), a.k == w.k, and
/// `w` was packed for `isa`. Single-threaded.
void gemm(Isa isa, const QuantRows& a, const PackedWeights& w, float* c, bool accumulate);

/// quantise_rows() (with w.in_inv when set) then gemm(): y[m, n] (+)= x[m, k] W^T + b. `scratch`
/// holds the codes.
void linear(Isa isa, const float* x, int m, const PackedWeights& w, float* y, bool accumulate,
            QuantRows& scratch);

// The per-ISA kernels (one file each). Same contract as gemm(); rows [0, a.m).
void gemm_scalar(const QuantRows& a, const PackedWeights& w, float* c, bool accumulate);
void gemm_avx2(const QuantRows& a, const PackedWeights& w, float* c, bool accumulate);
void gemm_avx512vnni(const QuantRows& a, const PackedWeights& w, float* c, bool accumulate);

}  // namespace mmkg::int8
