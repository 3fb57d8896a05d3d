#include "core/secret.h"

#include <gtest/gtest.h>

#include <set>

namespace mmkg {
namespace {

TEST(SameSecret, ComparesWholeStrings) {
  EXPECT_TRUE(same_secret("abc", "abc"));
  EXPECT_FALSE(same_secret("abc", "abd"));
  EXPECT_FALSE(same_secret("abc", "abcd"));
  EXPECT_FALSE(same_secret("abcd", "abc"));
  EXPECT_FALSE(same_secret("", "a"));
  EXPECT_TRUE(same_secret("", ""));
}

TEST(ToHex, TwoLowerCaseDigitsPerByte) {
  const unsigned char b[] = {0x00, 0x0f, 0xa5, 0xff};
  EXPECT_EQ(to_hex(b, 4), "000fa5ff");
  EXPECT_EQ(to_hex(b, 0), "");
}

TEST(RandomHex, LengthAlphabetAndNoRepeats) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    const std::string h = random_hex(16);
    ASSERT_EQ(h.size(), 32u);
    EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos) << h;
    seen.insert(h);
  }
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_EQ(random_hex(0), "");
}

}  // namespace
}  // namespace mmkg
