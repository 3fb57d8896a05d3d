// The context budget: never over the budget (by the counter), trimmed chunks show verbatim
// sentences of their chunk in document order with "…" gaps, and citations of a trimmed chunk
// still point at that chunk with verbatim quotes (extractive and LLM synthesizers).
#include "retrieve/context_budget.h"

#include <gtest/gtest.h>

#include <random>

#include "text/tokens.h"
#include "support/context_fixtures.h"
#include "support/temp_dir.h"
#include "text/words.h"
#include "index/lexical.h"
#include "store/store.h"

namespace mmkg {
namespace {

using namespace context_fixture;

size_t total(const Retrieval& r) {
  size_t t = 0;
  for (size_t i = 0; i < r.context.size(); ++i) t += default_token_counter().count(format_passage(i + 1, r.context[i]));
  return t;
}

TEST(ContextBudget, WholeChunksWhileTheyFitThenTrimmedToTheirBestSentences) {
  std::vector<Candidate> ranked = {cand("a", "Attention weighs the parts of a sequence; the softmax normalises scores."),
                                   cand("b", kLong)};
  const size_t first = tokens_whole(1, ranked[0]);
  ASSERT_GT(tokens_whole(2, ranked[1]), 45u);
  Retrieval r;
  pack_context(ranked, terms({"softmax", "overflow", "score"}), {8, first + 45, nullptr}, r);
  ASSERT_EQ(r.context.size(), 2u);
  EXPECT_FALSE(r.context[0].trimmed());
  EXPECT_EQ(r.context[0].text, r.context[0].hit.text);
  const Candidate& t = r.context[1];
  ASSERT_TRUE(t.trimmed());
  EXPECT_EQ(r.trimmed_chunks, 1u);
  EXPECT_LE(r.context_tokens, first + 45);
  EXPECT_EQ(r.context_tokens, total(r));
  // The best sentence (softmax + overflow + scores) is kept, the filler is not, "…" marks gaps.
  EXPECT_NE(t.text.find("Without that subtraction the softmax overflows when some scores are very large."),
            std::string::npos) << t.text;
  EXPECT_EQ(t.text.find("Gardening"), std::string::npos) << t.text;
  EXPECT_EQ(t.text.rfind(kGap + " ", 0), 0u) << t.text;
  EXPECT_EQ(t.text.substr(t.text.size() - kGap.size()), kGap) << t.text;
  EXPECT_EQ(t.hit.text, kLong) << "the candidate still holds its whole chunk (citations point at it)";
  for (auto [b, e] : shown_sentences(t)) EXPECT_NE(t.text.find(t.hit.text.substr(b, e - b)), std::string::npos);
  EXPECT_EQ(r.unbudgeted_chars, ranked[0].hit.text.size() + kLong.size());
  EXPECT_GT(r.unbudgeted_tokens, r.context_tokens);
}

TEST(ContextBudget, TrimmedSentencesKeepDocumentOrderWithGaps) {
  Retrieval r;
  pack_context({cand("b", kLong)}, terms({"softmax", "subtract", "maximum", "overflow"}), {8, 48, nullptr}, r);
  ASSERT_EQ(r.context.size(), 1u);
  const Candidate& t = r.context[0];
  ASSERT_TRUE(t.trimmed());
  ASSERT_EQ(t.shown.size(), 2u) << t.text;
  EXPECT_LT(t.shown[0].first, t.shown[1].first);
  EXPECT_EQ(t.text, kGap + " The numerically stable softmax subtracts the maximum score before exponentiating. " + kGap +
                        " Without that subtraction the softmax overflows when some scores are very large. " + kGap);
  EXPECT_LE(r.context_tokens, 48u);
}

TEST(ContextBudget, IrrelevantChunkThatDoesNotFitIsLeftOutAndTheNextOneTried) {
  std::vector<Candidate> ranked = {cand("a", "The softmax turns scores into weights."),
                                   cand("b", "Gardening requires patience, water and good soil for tomatoes to grow well "
                                             "in summer. Tomatoes like sun."),
                                   cand("c", "Scores are scaled.")};
  const size_t budget = tokens_whole(1, ranked[0]) + tokens_whole(2, ranked[2]);
  ASSERT_GT(tokens_whole(2, ranked[1]), tokens_whole(2, ranked[2]));
  Retrieval r;
  pack_context(ranked, terms({"softmax", "score"}), {8, budget, nullptr}, r);
  ASSERT_EQ(r.context.size(), 2u);
  EXPECT_EQ(r.context[0].hit.chunk_id, "a");
  EXPECT_EQ(r.context[1].hit.chunk_id, "c");
  EXPECT_EQ(r.skipped_chunks, 1u);
  EXPECT_LE(r.context_tokens, budget);
}

TEST(ContextBudget, FirstPassageIsCutAtAWordBoundaryWhenNotEvenOneSentenceFits) {
  std::string huge = "The softmax";
  for (int i = 0; i < 200; ++i) huge += " and the scores";
  huge += ".";
  Retrieval r;
  pack_context({cand("h", huge)}, terms({"softmax"}), {8, 40, nullptr}, r);
  ASSERT_EQ(r.context.size(), 1u);
  const Candidate& t = r.context[0];
  EXPECT_LE(r.context_tokens, 40u);
  ASSERT_EQ(t.shown.size(), 1u);
  const std::string kept = huge.substr(t.shown[0].first, t.shown[0].second - t.shown[0].first);
  EXPECT_EQ(kept.rfind("The softmax and the", 0), 0u) << kept;
  EXPECT_NE(kept.back(), ' ');
  EXPECT_EQ(huge[t.shown[0].second], ' ') << "cut between words";
  EXPECT_EQ(t.text, kept + " " + kGap);
}

TEST(ContextBudget, ZeroMeansNoTokenLimitAndMaxChunksStillApplies) {
  std::vector<Candidate> ranked;
  for (int i = 0; i < 12; ++i) ranked.push_back(cand("c" + std::to_string(i), kLong));
  Retrieval r;
  pack_context(ranked, terms({"softmax"}), {8, 0, nullptr}, r);
  EXPECT_EQ(r.context.size(), 8u);
  EXPECT_EQ(r.trimmed_chunks, 0u);
  EXPECT_EQ(r.context_tokens, r.unbudgeted_tokens);
}

TEST(ContextBudget, NeverOverTheBudgetOnRandomChunks) {
  std::mt19937 rng(7);
  const std::vector<std::string> vocab = {"softmax", "attention", "score", "the", "of", "$$\\frac{q}{k}$$", "LKCA",
                                          "2017", "gardening", "\xC3\xBC" "ber", "(3.1)", "overflow"};
  const auto counter = make_token_counter("chars:3");
  for (int round = 0; round < 200; ++round) {
    std::vector<Candidate> ranked;
    const int n = 1 + static_cast<int>(rng() % 10);
    for (int c = 0; c < n; ++c) {
      std::string text;
      const int sents = 1 + static_cast<int>(rng() % 8);
      for (int s = 0; s < sents; ++s) {
        const int len = 2 + static_cast<int>(rng() % 30);
        text += "Word";
        for (int w = 0; w < len; ++w) text += " " + vocab[rng() % vocab.size()];
        text += ". ";
      }
      ranked.push_back(cand("c" + std::to_string(c), text));
    }
    const size_t budget = 20 + rng() % 400;
    for (const TokenCounter* tc : std::vector<const TokenCounter*>{nullptr, counter.get()}) {
      Retrieval r;
      pack_context(ranked, terms({"softmax", "overflow", "score"}), {8, budget, tc}, r);
      const TokenCounter& used = tc ? *tc : default_token_counter();
      size_t sum = 0;
      std::string all;
      for (size_t i = 0; i < r.context.size(); ++i) {
        sum += used.count(format_passage(i + 1, r.context[i]));
        all += format_passage(i + 1, r.context[i]);
        for (auto [b, e] : shown_sentences(r.context[i]))
          EXPECT_LE(e, r.context[i].hit.text.size());
      }
      EXPECT_LE(sum, budget) << "round " << round;
      EXPECT_EQ(sum, r.context_tokens);
      EXPECT_LE(used.count(all), budget) << "the whole context, counted at once";
    }
  }
}

}  // namespace
}  // namespace mmkg

namespace mmkg {
namespace {

TEST(ContextForModel, TheLargestContextTheWindowHoldsBetween1500And6000Tokens) {
  const ContextSize local = context_for_model(4096);  // the local SmolLM2 server's window
  EXPECT_EQ(local.tokens, 2996u);
  EXPECT_EQ(local.chunks, 15u);
  const ContextSize unknown = context_for_model(0);  // a remote model: 8192 assumed
  EXPECT_EQ(unknown.tokens, 6000u);
  EXPECT_EQ(unknown.chunks, 32u);
  EXPECT_EQ(context_for_model(128000).tokens, 6000u);  // no more than measured
  const ContextSize tiny = context_for_model(2048);
  EXPECT_EQ(tiny.tokens, 1500u);  // never below the extractive default
  EXPECT_EQ(tiny.chunks, 8u);
}

}  // namespace
}  // namespace mmkg
