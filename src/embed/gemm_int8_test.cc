// Tests of the int8 linear layers (gemm_int8.h): every kernel this CPU runs, forced one by one,
// against a plain int64 reference on shapes that are not multiples of the blocks (rows vs the 6-
// and 4-row micro-kernels and the 96-row chunks, channels vs the 64-channel panels and 16/8-lane
// vectors, inputs vs the groups of 4), plus the quantisers' round trips.
#include "embed/gemm_int8.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace mmkg::int8 {
namespace {

std::vector<Isa> supported_isas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512Vnni}) {
    if (isa_supported(isa)) out.push_back(isa);
  }
  return out;
}

struct Shape {
  int m, n, k;
};
// m: 1, < 4, 6k+5, 97 (> a chunk); n: 1, < 16, 64+1, 130, 193; k: 1, 3, 5, 67, 131, 389.
const Shape kShapes[] = {{1, 1, 1},   {3, 7, 3},    {7, 13, 5},    {13, 65, 67},  {37, 130, 131},
                         {97, 193, 389}, {6, 64, 4}, {101, 1, 7},  {2, 200, 389}, {29, 17, 2}};

// Integer-valued inputs chosen so that quantisation is exact: each weight row has max |w| = 127
// (scale 1), each activation row spans exactly [-zero, qmax - zero] (scale 1, integer zero point).
// Then the kernel's result must equal the integer product exactly (|sums| < 2^24, exact in float).
TEST(Int8Gemm, EveryKernelIsExactOnIntegerInputs) {
  std::mt19937 rng(7);
  for (Isa isa : supported_isas()) {
    const int qmax = activation_qmax(isa);
    for (const Shape& s : kShapes) {
      for (bool accumulate : {false, true}) {
        SCOPED_TRACE(std::string(isa_name(isa)) + " m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) +
                     " k=" + std::to_string(s.k) + (accumulate ? " accumulate" : ""));
        std::vector<float> w(static_cast<size_t>(s.n) * s.k), x(static_cast<size_t>(s.m) * s.k), bias(s.n);
        std::uniform_int_distribution<int> wd(-127, 127), bd(-1000, 1000);
        for (int r = 0; r < s.n; ++r) {
          for (int c = 0; c < s.k; ++c) w[static_cast<size_t>(r) * s.k + c] = static_cast<float>(wd(rng));
          w[static_cast<size_t>(r) * s.k + r % s.k] = (r % 2) ? 127.0f : -127.0f;
          bias[r] = static_cast<float>(bd(rng));
        }
        for (int r = 0; r < s.m; ++r) {
          int zero = std::uniform_int_distribution<int>(0, qmax)(rng);
          if (s.k == 1) zero = 0;
          std::uniform_int_distribution<int> xd(-zero, qmax - zero);
          float* row = &x[static_cast<size_t>(r) * s.k];
          for (int c = 0; c < s.k; ++c) row[c] = static_cast<float>(xd(rng));
          row[(r + 1) % s.k] = static_cast<float>(qmax - zero);
          if (s.k > 1) row[r % s.k] = static_cast<float>(-zero);
        }
        std::vector<float> init(static_cast<size_t>(s.m) * s.n);
        for (auto& v : init) v = accumulate ? static_cast<float>(bd(rng)) : 12345.0f;
        std::vector<float> want(init.size());
        for (int r = 0; r < s.m; ++r) {
          for (int n = 0; n < s.n; ++n) {
            int64_t sum = 0;
            for (int c = 0; c < s.k; ++c) {
              sum += static_cast<int64_t>(x[static_cast<size_t>(r) * s.k + c]) *
                     static_cast<int64_t>(w[static_cast<size_t>(n) * s.k + c]);
            }
            const size_t i = static_cast<size_t>(r) * s.n + n;
            want[i] = static_cast<float>(sum + static_cast<int64_t>(bias[n]) +
                                         (accumulate ? static_cast<int64_t>(init[i]) : 0));
          }
        }
        PackedWeights pw = PackedWeights::quantise(w.data(), s.n, s.k, bias.data(), isa);
        QuantRows q;
        std::vector<float> got = init;
        linear(isa, x.data(), s.m, pw, got.data(), accumulate, q);
        for (int r = 0; r < s.m; ++r) {
          ASSERT_FLOAT_EQ(q.scale[r], 1.0f);
          for (int n = 0; n < s.n; ++n) {
            const size_t i = static_cast<size_t>(r) * s.n + n;
            ASSERT_EQ(got[i], want[i]) << "row " << r << " channel " << n;
          }
        }
      }
    }
  }
}

// Real-valued inputs, K up to 1537: every kernel gives the scalar kernel's result (same int32
// sums; the fp32 epilogue may round differently), and that is close to the fp32 product.
TEST(Int8Gemm, KernelsAgreeAndApproximateFp32) {
  std::mt19937 rng(11);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (const Shape& s : {Shape{53, 131, 1537}, Shape{8, 384, 384}, Shape{19, 70, 250}}) {
    std::vector<float> w(static_cast<size_t>(s.n) * s.k), x(static_cast<size_t>(s.m) * s.k), bias(s.n);
    for (auto& v : w) v = 0.05f * nd(rng);
    for (auto& v : x) v = nd(rng) + 0.3f;
    for (auto& v : bias) v = nd(rng);
    std::vector<double> exact(static_cast<size_t>(s.m) * s.n);
    double norm = 0;
    for (int r = 0; r < s.m; ++r) {
      for (int n = 0; n < s.n; ++n) {
        double sum = bias[n];
        for (int c = 0; c < s.k; ++c) sum += double(x[static_cast<size_t>(r) * s.k + c]) * w[static_cast<size_t>(n) * s.k + c];
        exact[static_cast<size_t>(r) * s.n + n] = sum;
        norm += sum * sum;
      }
    }
    // Packed for AVX2 where it runs: that adds the int16 layout to the int8 one the others use.
    PackedWeights pw = PackedWeights::quantise(w.data(), s.n, s.k, bias.data(),
                                               isa_supported(Isa::Avx2) ? Isa::Avx2 : Isa::Scalar);
    for (Isa isa : supported_isas()) {
      SCOPED_TRACE(std::string(isa_name(isa)) + " k=" + std::to_string(s.k));
      QuantRows q;
      quantise_rows(x.data(), s.m, s.k, activation_qmax(isa), q);
      std::vector<float> ref(exact.size()), got(exact.size());
      gemm_scalar(q, pw, ref.data(), false);
      gemm(isa, q, pw, got.data(), false);
      double err = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_NEAR(got[i], ref[i], 1e-5 * (1 + std::fabs(ref[i]))) << "element " << i;
        err += (got[i] - exact[i]) * (got[i] - exact[i]);
      }
      // Relative Frobenius error on Gaussian data: ~1%.
      EXPECT_LT(std::sqrt(err / norm), 0.02);
    }
  }
}

// Input smoothing (PackedWeights::in_inv): a few activation channels far larger than the rest in
// every row (as some of a transformer's are) eat most of each row's 8-bit range. With smoothing
// factors the product is the same and its error several times smaller; without applying in_inv
// to the activations the result would be off by the factors.
TEST(Int8Gemm, SmoothingKeepsTheProductAndCutsOutlierChannelError) {
  std::mt19937 rng(5);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  const int m = 40, n = 96, k = 384;
  std::vector<float> w(static_cast<size_t>(n) * k), x(static_cast<size_t>(m) * k), bias(n, 0.1f);
  for (auto& v : w) v = 0.05f * nd(rng);
  for (int r = 0; r < m; ++r) {
    for (int c = 0; c < k; ++c) x[static_cast<size_t>(r) * k + c] = nd(rng) * (c % 97 == 3 ? 40.0f : 1.0f);
  }
  std::vector<double> exact(static_cast<size_t>(m) * n);
  double norm = 0;
  for (int r = 0; r < m; ++r) {
    for (int j = 0; j < n; ++j) {
      double sum = bias[j];
      for (int c = 0; c < k; ++c) sum += double(x[static_cast<size_t>(r) * k + c]) * w[static_cast<size_t>(j) * k + c];
      exact[static_cast<size_t>(r) * n + j] = sum;
      norm += sum * sum;
    }
  }
  // s_c = sqrt(rms of x's channel c / max |w[:, c]|), as the encoder computes them.
  std::vector<float> smooth(k);
  for (int c = 0; c < k; ++c) {
    double sq = 0, wm = 0;
    for (int r = 0; r < m; ++r) sq += double(x[static_cast<size_t>(r) * k + c]) * x[static_cast<size_t>(r) * k + c];
    for (int j = 0; j < n; ++j) wm = std::max(wm, double(std::fabs(w[static_cast<size_t>(j) * k + c])));
    smooth[c] = static_cast<float>(std::sqrt(std::sqrt(sq / m) / wm));
  }
  for (Isa isa : supported_isas()) {
    SCOPED_TRACE(isa_name(isa));
    auto rel_error = [&](const PackedWeights& pw) {
      QuantRows scratch;
      std::vector<float> got(exact.size());
      linear(isa, x.data(), m, pw, got.data(), false, scratch);
      double err = 0;
      for (size_t i = 0; i < got.size(); ++i) err += (got[i] - exact[i]) * (got[i] - exact[i]);
      return std::sqrt(err / norm);
    };
    const PackedWeights plain = PackedWeights::quantise(w.data(), n, k, bias.data(), isa);
    const PackedWeights smoothed = PackedWeights::quantise(w.data(), n, k, bias.data(), isa, smooth.data());
    ASSERT_EQ(smoothed.in_inv.size(), static_cast<size_t>(k));
    EXPECT_TRUE(plain.in_inv.empty());
    const double e_plain = rel_error(plain), e_smooth = rel_error(smoothed);
    std::printf("[ int8    ] %-10s outlier channels, relative error: %.4f plain, %.4f smoothed\n", isa_name(isa),
                e_plain, e_smooth);
    EXPECT_LT(e_smooth, 0.02);
    EXPECT_LT(e_smooth, 0.5 * e_plain);
  }
}

TEST(Int8Quantiser, WeightsRoundTripPerChannel) {
  std::mt19937 rng(3);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  const int n = 70, k = 45;
  std::vector<float> w(static_cast<size_t>(n) * k);
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < k; ++c) w[static_cast<size_t>(r) * k + c] = nd(rng) * static_cast<float>(r + 1) * 0.01f;
  }
  for (int c = 0; c < k; ++c) w[static_cast<size_t>(5) * k + c] = 0.0f;  // an all-zero channel
  PackedWeights p = PackedWeights::quantise(w.data(), n, k, nullptr, Isa::Avx2);
  ASSERT_EQ(p.kp, 48);
  ASSERT_EQ(p.n_padded(), 128);
  for (int r = 0; r < n; ++r) {
    float mx = 0;
    int32_t sum = 0;
    for (int c = 0; c < k; ++c) mx = std::max(mx, std::fabs(w[static_cast<size_t>(r) * k + c]));
    for (int c = 0; c < k; ++c) {
      const int8_t q = p.code(r, c);
      sum += q;
      EXPECT_GE(q, -127);
      EXPECT_NEAR(q * p.scale[r], w[static_cast<size_t>(r) * k + c], p.scale[r] * 0.5001f) << r << "," << c;
    }
    EXPECT_EQ(sum, p.sum[r]);
    if (mx > 0) {
      EXPECT_FLOAT_EQ(p.scale[r], mx / 127.0f);
    }
    EXPECT_EQ(p.bias[r], 0.0f);
  }
  for (int c = k; c < p.kp; ++c) EXPECT_EQ(p.code(0, c), 0);  // input padding
  // The AVX2 layout holds the same codes: panel, group of 4 inputs, 8 channels, input pair.
  ASSERT_EQ(p.wide.size(), p.data.size());
  for (int r = 0; r < p.n_padded(); ++r) {
    for (int c = 0; c < p.kp; ++c) {
      const size_t at = (static_cast<size_t>(r / kPanel) * (p.kp / 4) + c / 4) * kPanel * 4 + (r % kPanel / 8) * 32 +
                        (c % 4 / 2) * 16 + (r % 8) * 2 + c % 2;
      ASSERT_EQ(p.wide[at], r < n && c < k ? p.code(r, c) : 0) << r << "," << c;
    }
  }
  EXPECT_TRUE(PackedWeights::quantise(w.data(), n, k, nullptr, Isa::Avx512Vnni).wide.empty());
  for (int r = n; r < p.n_padded(); ++r) EXPECT_EQ(p.scale[r], 0.0f);
}

TEST(Int8Quantiser, ActivationsRoundTripPerRow) {
  std::mt19937 rng(5);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  const int m = 5, k = 21;
  std::vector<float> x(static_cast<size_t>(m) * k);
  for (auto& v : x) v = 3.0f * nd(rng);
  for (int c = 0; c < k; ++c) {
    x[static_cast<size_t>(1) * k + c] = std::fabs(x[static_cast<size_t>(1) * k + c]) + 1.0f;   // all positive
    x[static_cast<size_t>(2) * k + c] = -std::fabs(x[static_cast<size_t>(2) * k + c]) - 0.5f;  // all negative
    x[static_cast<size_t>(3) * k + c] = 0.0f;                                                  // all zero
  }
  for (int qmax : {255, 127}) {
    QuantRows q;
    quantise_rows(x.data(), m, k, qmax, q);
    ASSERT_EQ(q.kp, 24);
    EXPECT_EQ(q.zero[1], 0);
    EXPECT_EQ(q.zero[2], qmax);
    for (int r = 0; r < m; ++r) {
      for (int c = 0; c < k; ++c) {
        const int code = q.data[static_cast<size_t>(r) * q.kp + c];
        EXPECT_LE(code, qmax);
        EXPECT_NEAR((code - q.zero[r]) * q.scale[r], x[static_cast<size_t>(r) * k + c], q.scale[r] * 0.5001f)
            << "qmax " << qmax << " row " << r << " col " << c;
      }
    }
  }
}

TEST(Int8Gemm, BestIsaIsSupportedAndOverridable) {
  const Isa best = best_isa();
  EXPECT_TRUE(isa_supported(best));
  EXPECT_TRUE(isa_supported(Isa::Scalar));
  set_isa_override(Isa::Scalar);
  EXPECT_EQ(best_isa(), Isa::Scalar);
  clear_isa_override();
  EXPECT_EQ(best_isa(), best);
  std::printf("[ int8    ] kernels on this CPU: best %s\n", isa_name(best));
}

}  // namespace
}  // namespace mmkg::int8
