#include "text/tokens.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace mmkg {
namespace {

// Real counts of SmolLM2-135M-Instruct's tokenizer (llama-cpp-python, vocab only) and cl100k_base
// for texts of the kinds the corpus holds: prose, LaTeX, a heading with an acronym, numbers.
struct Anchor {
  const char* text;
  size_t smollm2, cl100k;
};
const Anchor kAnchors[] = {
    {"The numerically stable implementation subtracts the maximum from all values before the softmax is computed.",
     18, 18},
    {R"($$\text{score}_{\text{scaled}}(\mathbf{q}, \mathbf{k}) = \frac{\mathbf{q}^T \mathbf{k}}{\sqrt{d_k}} \quad (2.15)$$)",
     52, 52},
    {"## LKCA: Large Kernel Convolutional Attention", 12, 11},
    {"In 2017, Vaswani et al. reported 28.4 BLEU on WMT 2014 English-to-German.", 36, 29},
};

TEST(TokenCounter, EstimateOverCountsRealTokenizersButNotByMuch) {
  auto c = make_token_counter("estimate");
  EXPECT_EQ(c->name(), "estimate");
  for (const auto& a : kAnchors) {
    const size_t n = c->count(a.text);
    // Over-counts 97% of the corpus's chunks; the rest (short headings with acronyms like this
    // one) by at most 10%.
    if (std::string(a.text).rfind("##", 0) != 0) {
      EXPECT_GE(n, a.smollm2) << a.text;
      EXPECT_GE(n, a.cl100k) << a.text;
    }
    EXPECT_GE(static_cast<double>(n), 0.9 * static_cast<double>(a.smollm2)) << a.text;
    EXPECT_LE(static_cast<double>(n), 1.4 * static_cast<double>(a.smollm2)) << a.text;
  }
  // The rule of thumb under-counts mathematics by half.
  auto c4 = make_token_counter("chars:4");
  EXPECT_LT(c4->count(kAnchors[1].text), kAnchors[1].smollm2 * 6 / 10);
}

TEST(TokenCounter, EmptyIsZeroAndMoreTextIsMoreTokens) {
  const TokenCounter& c = default_token_counter();
  EXPECT_EQ(c.count(""), 0u);
  EXPECT_GE(c.count("   "), 1u);  // a run of spaces is a token of its own
  EXPECT_GE(c.count("attention"), 1u);
  std::string s;
  size_t last = 0;
  for (int i = 0; i < 50; ++i) {
    s += "Attention weighs each token by its relevance (see Eq. 3) \xE2\x80\xA6 ";
    const size_t n = c.count(s);
    EXPECT_GT(n, last);
    last = n;
  }
  // Acronyms and non-ASCII characters cost more than ordinary words of the same length.
  EXPECT_GT(c.count("LKCA"), c.count("lkca"));
  EXPECT_GT(c.count("\xC3\xBC\xC3\xBC\xC3\xBC"), c.count("uuu"));
}

TEST(TokenCounter, RatioCounterAndFactoryErrors) {
  auto c = make_token_counter("chars:4");
  EXPECT_EQ(c->name(), "chars:4");
  EXPECT_EQ(c->count("abcd"), 1u);
  EXPECT_EQ(c->count("abcde"), 2u);
  EXPECT_EQ(make_token_counter("")->name(), "estimate");
  for (const char* bad : {"bogus", "chars:", "chars:0", "chars:-2", "chars:x"}) {
    try {
      make_token_counter(bad);
      ADD_FAILURE() << bad;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("estimate or chars:N"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace mmkg
