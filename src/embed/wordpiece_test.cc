// Tests of the WordPiece tokenizer: a small hand-made vocabulary for the rules, and the
// all-MiniLM-L6-v2 vocabulary against the Hugging Face tokenizer's ids (reference fixture).
#include "embed/wordpiece.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "support/embed_fixtures.h"

namespace mmkg {
namespace {

WordpieceTokenizer small_tokenizer(int max_tokens = 16) {
  // ids:                     0        1        2        3        4     5        6         7
  return WordpieceTokenizer({"[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "a",
                             // 8    9    10       11       12   13    14
                             "##b", ",", "hello", "naive", "!", "ab", "[MASK]"},
                            max_tokens);
}

TEST(WordpieceRules, GreedyLongestMatchWithContinuations) {
  auto tok = small_tokenizer();
  EXPECT_EQ(tok.encode("unaffable"), (std::vector<int32_t>{2, 4, 5, 6, 3}));
  // "ab" is a whole piece, longer than "a" + "##b".
  EXPECT_EQ(tok.encode("ab"), (std::vector<int32_t>{2, 13, 3}));
  // "abb" -> "ab" "##b"; "unx" cannot be covered -> one [UNK] for the whole word.
  EXPECT_EQ(tok.encode("abb unx"), (std::vector<int32_t>{2, 13, 8, 1, 3}));
}

TEST(WordpieceRules, NormalisesAndSplitsPunctuation) {
  auto tok = small_tokenizer();
  EXPECT_EQ(tok.basic_tokenize("  Hello,NAÏVE!\t\n"),
            (std::vector<std::string>{"hello", ",", "naive", "!"}));
  EXPECT_EQ(tok.encode("Hello,NAÏVE!"), (std::vector<int32_t>{2, 10, 9, 11, 12, 3}));
  // Control and format characters vanish; CJK ideographs become words of their own.
  EXPECT_EQ(tok.basic_tokenize("he\x07llo\u200b 中文x"),
            (std::vector<std::string>{"hello", "中", "文", "x"}));
  // Symbols that are not punctuation (Sm, So) stay inside words; ASCII ones split.
  EXPECT_EQ(tok.basic_tokenize("a≤b a<b"), (std::vector<std::string>{"a≤b", "a", "<", "b"}));
}

TEST(WordpieceRules, EmptyAndWhitespaceGiveClsSep) {
  auto tok = small_tokenizer();
  EXPECT_EQ(tok.encode(""), (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(tok.encode(" \t\r\n\u00a0\u3000"), (std::vector<int32_t>{2, 3}));
}

TEST(WordpieceRules, LongWordIsUnknown) {
  auto tok = small_tokenizer(256);
  // 100 characters: "ab" + 98 x "##b"; one more character makes the whole word [UNK].
  std::string word = "a" + std::string(WordpieceTokenizer::kMaxWordChars - 1, 'b');
  std::vector<int32_t> ids = tok.encode(word);
  ASSERT_EQ(ids.size(), 2u + 99u);
  EXPECT_EQ(ids[1], 13);
  EXPECT_EQ(ids[2], 8);
  EXPECT_EQ(tok.encode(word + "b"), (std::vector<int32_t>{2, 1, 3}));
}

TEST(WordpieceRules, TruncatesToMaxTokensKeepingTheStart) {
  auto tok = small_tokenizer(6);  // [CLS] + 4 pieces + [SEP]
  EXPECT_EQ(tok.encode("a a a unaffable a"), (std::vector<int32_t>{2, 7, 7, 7, 4, 3}));
  EXPECT_EQ(tok.encode("a a a a a a a a a"), (std::vector<int32_t>{2, 7, 7, 7, 7, 3}));
}

TEST(WordpieceRules, LiteralSpecialTokensAreKept) {
  auto tok = small_tokenizer();
  EXPECT_EQ(tok.encode("a [MASK] a[SEP]"), (std::vector<int32_t>{2, 7, 14, 7, 3, 3}));
  // Case matters, as in Hugging Face (special tokens are not normalised).
  EXPECT_EQ(tok.encode("[mask]").front(), 2);
  EXPECT_NE(tok.encode("[mask]")[1], 14);
}

// The Rust `tokenizers` (which sentence-transformers runs) uses Unicode 8.0 categories and a
// CJK range with a typo; these cases come from tokenising every code point with both.
TEST(WordpieceRules, FollowsHuggingFaceUnicodeTables) {
  auto tok = small_tokenizer();
  using V = std::vector<std::string>;
  EXPECT_EQ(tok.basic_tokenize("a\u08D4b"), V{"a\u08D4b"});      // Mn since 9.0: kept
  EXPECT_EQ(tok.basic_tokenize("x\u0890y"), V{"x\u0890y"});      // Cf since 14.0: kept
  EXPECT_EQ(tok.basic_tokenize("a\u2E43b"), V{"a\u2E43b"});      // Po since 9.0: not split
  EXPECT_EQ(tok.basic_tokenize("a\u166Db"), (V{"a", "\u166D", "b"}));  // Po in 8.0
  EXPECT_EQ(tok.basic_tokenize("a\u1734b"), V{"ab"});             // Mn in 8.0: stripped
  EXPECT_EQ(tok.basic_tokenize("a\u1885b"), V{"a\u1885b"});      // Lo in 8.0: kept
  EXPECT_EQ(tok.basic_tokenize("a\U0002B820b"), V{"a\U0002B820b"});
  EXPECT_EQ(tok.basic_tokenize("a\U0002B920b"), (V{"a", "\U0002B920", "b"}));
  EXPECT_EQ(tok.basic_tokenize("x\u0378y"), V{"x\u0378y"});      // unassigned: kept
  EXPECT_EQ(tok.basic_tokenize("a\U000E0001b\uE000c"), V{"abc"});  // Cf, Co: dropped
  EXPECT_EQ(tok.basic_tokenize("a\u2028b\u0085c"), (V{"a", "bc"}));  // Zl: space; NEL (Cc): dropped
}

TEST(WordpieceRules, InvalidUtf8IsDropped) {
  auto tok = small_tokenizer();
  EXPECT_EQ(tok.encode(std::string("a\xff\xc3") + "b"), tok.encode("ab"));
}

TEST(WordpieceRules, RefusesVocabularyWithoutSpecialTokens) {
  EXPECT_THROW(WordpieceTokenizer({"a", "b"}, 16), Error);
  EXPECT_THROW(WordpieceTokenizer::from_file("/nonexistent/vocab.txt", 16), Error);
}

TEST(WordpieceReference, IdsMatchHuggingFaceForEveryFixtureText) {
  MMKG_REQUIRE_MINILM(dir);
  auto tok = WordpieceTokenizer::from_file(dir + "/vocab.txt", 256);
  auto ref = testing::load_minilm_reference();
  ASSERT_GE(ref.size(), 30u);
  for (const auto& r : ref) {
    EXPECT_EQ(tok.encode(r.text), r.input_ids) << "text: " << r.text;
  }
}

TEST(WordpieceReference, KnownPieces) {
  MMKG_REQUIRE_MINILM(dir);
  auto tok = WordpieceTokenizer::from_file(dir + "/vocab.txt", 256);
  EXPECT_EQ(tok.encode("unaffable"), (std::vector<int32_t>{101, 14477, 20961, 3468, 102}));
  EXPECT_EQ(tok.encode("Hello, World!"), (std::vector<int32_t>{101, 7592, 1010, 2088, 999, 102}));
  EXPECT_EQ(tok.encode("naïve café"), (std::vector<int32_t>{101, 15743, 7668, 102}));
  // Hangul syllables decompose (NFD) into jamo pieces; Greek capitals lower-case per character.
  EXPECT_EQ(tok.encode("ΣΑΣ"), (std::vector<int32_t>{101, 1173, 14608, 29733, 102}));
}

}  // namespace
}  // namespace mmkg
