#include "text/words.h"

#include <gtest/gtest.h>

#include "core/hash.h"

namespace mmkg {
namespace {

TEST(Text, CollapseWhitespace) {
  EXPECT_EQ(collapse_ws("  a \n\t b  "), "a b");
  EXPECT_EQ(collapse_ws(""), "");
}

TEST(Text, WordsSplitLikeUnicode61) {
  EXPECT_EQ(words("Multi-Head Attention (MHA)!"), (std::vector<std::string>{"multi", "head", "attention", "mha"}));
  EXPECT_EQ(words("naïve café"), (std::vector<std::string>{"naïve", "café"}));
  EXPECT_EQ(words("a\xE2\x80\x94" "b"), (std::vector<std::string>{"a", "b"}));  // em dash separates
}

TEST(Text, Utf8PrefixNeverSplitsCharacters) {
  EXPECT_EQ(utf8_prefix("héllo", 2), "h");
  EXPECT_EQ(utf8_prefix("héllo", 3), "hé");
  EXPECT_EQ(utf8_prefix("abc", 10), "abc");
}

TEST(Text, StemAndStopWords) {
  EXPECT_EQ(stem("relying"), stem("relies"));
  EXPECT_EQ(stem("attention"), "attent");
  EXPECT_TRUE(is_stopword("what"));
  EXPECT_FALSE(is_stopword("attention"));
  EXPECT_EQ(content_stems("What is the attention?"), (std::vector<std::string>{"attent"}));
}

TEST(Hash, StableHexIds) {
  EXPECT_EQ(hash_hex("abc").size(), 16u);
  EXPECT_EQ(hash_hex("abc"), hash_hex("abc"));
  EXPECT_NE(hash_hex("abc"), hash_hex("abd"));
  Hasher h;
  h.update("ab");
  h.update("c");
  EXPECT_EQ(h.hex(), hash_hex("abc"));
}

}  // namespace
}  // namespace mmkg
