#include "core/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace mmkg {
namespace {

TEST(Half, KnownBitPatterns) {
  const float v[] = {0.0f, 1.0f, -2.0f, 0.5f, 65504.0f, 1e6f, 5.9604645e-8f};
  const std::vector<uint16_t> h = to_half(v, 7);
  EXPECT_EQ(h, (std::vector<uint16_t>{0x0000, 0x3C00, 0xC000, 0x3800, 0x7BFF, 0x7C00, 0x0001}));
  const std::vector<float> back = from_half(h.data(), h.size());
  EXPECT_EQ(back[1], 1.0f);
  EXPECT_EQ(back[4], 65504.0f);
  EXPECT_TRUE(std::isinf(back[5])) << "beyond the largest half";
  EXPECT_EQ(back[6], 5.9604645e-8f) << "the smallest subnormal";
}

TEST(Half, RoundsToNearestEvenAndRoundTripsWhatItRounded) {
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties go to the even pattern (1.0).
  std::vector<float> v = {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 0.1f, -0.123456f};
  std::vector<float> r = v;
  round_to_half(r);
  EXPECT_EQ(r[0], 1.0f);
  EXPECT_EQ(r[1], 1.0f + 0x1p-9f);
  EXPECT_NEAR(r[2], 0.1f, 0.1f * 0x1p-11f);
  EXPECT_NEAR(r[3], -0.123456f, 0.123456f * 0x1p-11f);
  // A rounded vector is stored and read back exactly.
  const std::vector<uint16_t> h = to_half(r.data(), r.size());
  EXPECT_EQ(from_half(h.data(), h.size()), r);
}

}  // namespace
}  // namespace mmkg
