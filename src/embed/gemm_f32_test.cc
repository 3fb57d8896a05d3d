// Tests of the fp32 kernels (gemm_f32.h): every kernel this CPU runs gives the scalar reference's
// bits on every shape the encoder uses and on awkward ones (row and column tails, row strides);
// a row's result does not depend on the other rows of the call; both packings agree; the sums are
// right (against double precision).
#include "embed/gemm_f32.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace mmkg {
namespace {

struct Problem {
  int m, n, k, lda, ldc;
  std::vector<float> a, w, bias, c0;
};

Problem make(int m, int n, int k, uint32_t seed) {
  Problem p{m, n, k, k + 3, n + 5, {}, {}, {}, {}};
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  p.a.resize(static_cast<size_t>(m) * p.lda);
  p.w.resize(static_cast<size_t>(n) * k);
  p.bias.resize(static_cast<size_t>(n));
  p.c0.resize(static_cast<size_t>(m) * p.ldc);
  for (auto* v : {&p.a, &p.w, &p.bias, &p.c0}) {
    for (float& x : *v) x = d(rng);
  }
  return p;
}

std::vector<float> run(f32::Isa isa, const Problem& p, const f32::Epilogue& e) {
  f32::Packed w;
  f32::pack_rows(p.w.data(), p.n, p.k, p.k, w);
  std::vector<float> c = p.c0;
  f32::gemm(isa, p.a.data(), p.m, p.lda, w, c.data(), p.ldc, e);
  return c;
}

std::vector<f32::Isa> supported() {
  std::vector<f32::Isa> out;
  for (f32::Isa isa : {f32::Isa::Scalar, f32::Isa::Avx2, f32::Isa::Avx512}) {
    if (f32::isa_supported(isa)) out.push_back(isa);
  }
  return out;
}

TEST(GemmF32, KernelsGiveTheScalarBitsAndTheRightSums) {
  const int shapes[][3] = {{1, 1, 1},    {5, 17, 7},   {12, 32, 32},   {13, 33, 33},  {25, 64, 384},
                           {97, 100, 45}, {200, 1152, 384}, {37, 384, 1536}, {128, 32, 128}, {3, 250, 32}};
  uint32_t seed = 1;
  for (const auto& s : shapes) {
    const Problem p = make(s[0], s[1], s[2], seed++);
    for (const f32::Epilogue& e : {f32::Epilogue{}, f32::Epilogue{0.125f, p.bias.data(), false},
                                   f32::Epilogue{1.0f, p.bias.data(), true}, f32::Epilogue{0.3f, nullptr, true}}) {
      const auto ref = run(f32::Isa::Scalar, p, e);
      for (f32::Isa isa : supported()) {
        const auto got = run(isa, p, e);
        ASSERT_EQ(std::memcmp(got.data(), ref.data(), sizeof(float) * got.size()), 0)
            << f32::isa_name(isa) << " m=" << p.m << " n=" << p.n << " k=" << p.k << " alpha=" << e.alpha;
      }
      // Right sums; and the padding between rows (ldc > n) is not written.
      for (int i = 0; i < p.m; ++i) {
        for (int j = 0; j < p.ldc; ++j) {
          const size_t at = static_cast<size_t>(i) * p.ldc + j;
          if (j >= p.n) {
            ASSERT_EQ(ref[at], p.c0[at]) << "wrote past column n";
            continue;
          }
          double sum = 0, mag = 0;
          for (int q = 0; q < p.k; ++q) {
            const double t = double(p.a[static_cast<size_t>(i) * p.lda + q]) * p.w[static_cast<size_t>(j) * p.k + q];
            sum += t;
            mag += std::fabs(t);
          }
          double want = sum * e.alpha + (e.bias ? e.bias[j] : 0.0) + (e.accumulate ? p.c0[at] : 0.0);
          ASSERT_NEAR(ref[at], want, 1e-5 * (mag + 1)) << "m=" << p.m << " n=" << p.n << " k=" << p.k;
        }
      }
    }
  }
}

// What makes a text's vector independent of its batch: row i of a product is the same bits whether
// it is computed alone, at another position, or among other rows.
TEST(GemmF32, RowsDoNotDependOnTheirBatchMates) {
  const Problem p = make(100, 1152, 384, 7);
  f32::Packed w;
  f32::pack_rows(p.w.data(), p.n, p.k, p.k, w);
  for (f32::Isa isa : supported()) {
    std::vector<float> all(static_cast<size_t>(p.m) * p.n);
    f32::gemm(isa, p.a.data(), p.m, p.lda, w, all.data(), p.n, {});
    for (int start : {0, 1, 11, 12, 50, 99}) {
      for (int len : {1, 2, 7, 13, 40}) {
        if (start + len > p.m) continue;
        std::vector<float> part(static_cast<size_t>(len) * p.n);
        f32::gemm(isa, p.a.data() + static_cast<size_t>(start) * p.lda, len, p.lda, w, part.data(), p.n, {});
        ASSERT_EQ(std::memcmp(part.data(), all.data() + static_cast<size_t>(start) * p.n, sizeof(float) * part.size()), 0)
            << f32::isa_name(isa) << " rows " << start << "+" << len;
      }
    }
  }
}

TEST(GemmF32, PackTransposedEqualsPackRowsOfTheTranspose) {
  const int k = 45, n = 70, ldv = 81;
  std::vector<float> v(static_cast<size_t>(k) * ldv), t(static_cast<size_t>(n) * k);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 97) - 40.0f;
  for (int p = 0; p < k; ++p) {
    for (int j = 0; j < n; ++j) t[static_cast<size_t>(j) * k + p] = v[static_cast<size_t>(p) * ldv + j];
  }
  f32::Packed a, b;
  f32::pack_transposed(v.data(), k, n, ldv, a);
  f32::pack_rows(t.data(), n, k, k, b);
  ASSERT_EQ(a.n, b.n);
  ASSERT_EQ(a.k, b.k);
  const size_t used = static_cast<size_t>(a.n_padded()) * a.k;
  EXPECT_EQ(std::memcmp(a.data.data(), b.data.data(), sizeof(float) * used), 0);
  // A buffer reused for a smaller matrix is repacked, its padding columns zero.
  f32::pack_rows(t.data(), 3, k, k, b);
  for (int p = 0; p < k; ++p) {
    for (int j = 3; j < f32::kPanel; ++j) ASSERT_EQ(b.data[static_cast<size_t>(p) * f32::kPanel + j], 0.0f);
  }
}

TEST(GemmF32, IsaOverride) {
  const f32::Isa best = f32::best_isa();
  f32::set_isa_override(f32::Isa::Scalar);
  EXPECT_EQ(f32::best_isa(), f32::Isa::Scalar);
  f32::clear_isa_override();
  EXPECT_EQ(f32::best_isa(), best);
  EXPECT_TRUE(f32::isa_supported(f32::Isa::Scalar));
}

}  // namespace
}  // namespace mmkg
