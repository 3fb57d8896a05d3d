// Neighbour smoothing in hybrid search (smooth_neighbours, Searcher::with_neighbours): the pure
// score update, and a small store where the chunk after the one the question's words find holds
// the rest of the answer in other words.
#include <memory>
#include <optional>

#include <gtest/gtest.h>

#include "embed/embedder.h"
#include "index/fusion.h"
#include "index/searcher.h"
#include "store/store.h"
#include "support/embed_fixtures.h"
#include "support/embedded_store_fixtures.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

TEST(SmoothNeighbours, ANeighbourOfAHeadRisesByAShareOfTheHeadsLead) {
  // Ranked scores 10, 8, 6, 2, 0 (keys 0-4); key 5 is a neighbour the list did not hold.
  const std::vector<double> scores = {10, 8, 6, 2, 0};
  NeighbourParams p;
  p.heads = 1;
  p.share = 0.5;
  std::vector<double> out;
  auto order = smooth_neighbours(scores, 6, {{0, 3}, {0, 5}}, p, out);
  // Key 3: 2 + 0.5 × 10 = 7, above key 2 (6) but not above its head; key 5: 0 + 5.
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 3, 2, 5, 4}));
  EXPECT_DOUBLE_EQ(out[3], 7.0);
  EXPECT_DOUBLE_EQ(out[5], 5.0);
  EXPECT_DOUBLE_EQ(out[0], 10.0);  // the head keeps its score
}

TEST(SmoothNeighbours, OnlyHeadsLiftAndAPassageTakesItsBestHeadNotTheSum) {
  const std::vector<double> scores = {5, 4, 3, 1, 0};  // lowest 0: scores are the leads
  NeighbourParams p;
  p.heads = 2;
  p.share = 0.5;
  std::vector<double> out;
  // Key 3 is next to both heads (0 and 1): it gains 0.5 × 5, not 0.5 × (5 + 4). Key 4 is next
  // to key 2, which is no head: unchanged.
  smooth_neighbours(scores, 5, {{0, 3}, {1, 3}, {2, 4}}, p, out);
  EXPECT_DOUBLE_EQ(out[3], 3.5);
  EXPECT_DOUBLE_EQ(out[4], 0.0);
  // Scores are measured from the list's lowest: shifting every score shifts the result alike.
  std::vector<double> shifted = {15, 14, 13, 11, 10}, out2;
  auto o1 = smooth_neighbours(scores, 5, {{0, 3}}, p, out);
  auto o2 = smooth_neighbours(shifted, 5, {{0, 3}}, p, out2);
  EXPECT_EQ(o1, o2);
  EXPECT_DOUBLE_EQ(out2[3] - out[3], 10.0);
  // No pairs, or share 0: the order stands.
  EXPECT_EQ(smooth_neighbours(scores, 5, {}, p, out), (std::vector<size_t>{0, 1, 2, 3, 4}));
  p.share = 0;
  EXPECT_EQ(smooth_neighbours(scores, 5, {{0, 4}}, p, out), (std::vector<size_t>{0, 1, 2, 3, 4}));
}

// A manual where one chunk names the default tie approximation in the question's words and the
// next chunk gives the reason in words the question does not use; other chunks share the
// question's words without answering it, and chunks on other subjects form the background.
std::unique_ptr<Store> manual_store(const std::string& dir, Embedder& emb) {
  auto store = Store::open(dir);
  // ids "<id>-<i>", seq i
  auto put = [&](const std::string& id, const std::vector<std::string>& texts) {
    testing::put_embedded_document(*store, emb, id, texts);
  };
  put("manual", {
      "By default the routine handles tied event times with the Efron approximation.",
      "That choice was made long ago: it is slightly more accurate than the older method, and costs "
      "almost nothing extra to compute.",
      "Gardening tools should be cleaned after each season.",
  });
  put("notes", {
      "The Breslow approximation for tied event times is the simplest one.",
      "Tied event times occur when two subjects fail on the same day.",
      "The routine prints a warning when tied event times are frequent.",
  });
  const std::vector<std::string> other = testing::background_passages(
      {"Residual shadings highlight cells that deviate from independence",
       "Structural change tests look for breaks in regression coefficients",
       "Sandwich estimators give robust standard errors for regression",
       "Mosaic plots draw tiles proportional to cell counts"},
      16);
  put("other", other);
  return store;
}

class Neighbours : public ::testing::Test {
 protected:
  void SetUp() override {
    MMKG_REQUIRE_MINILM(model);
    emb_ = make_embedder("native");
    store_ = manual_store(dir_.str(), *emb_);
    native_ = std::make_unique<LazyEmbedder>(emb_.get());
    searcher_ = std::make_unique<Searcher>(*store_, *native_);
  }
  static size_t rank_of(const std::vector<SearchHit>& hits, const std::string& id) {
    for (size_t i = 0; i < hits.size(); ++i)
      if (hits[i].chunk_id == id) return i + 1;
    return hits.size() + 1;
  }
  static constexpr const char* kQuestion = "Which approximation does the routine use for tied event times by default?";
  testing::TempDir dir_;
  std::unique_ptr<Embedder> emb_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<LazyEmbedder> native_;
  std::unique_ptr<Searcher> searcher_;
};

TEST_F(Neighbours, TheChunkAfterTheAnswerJoinsTheHeadAndTheHeadStays) {
  Searcher& s = *searcher_;
  SearchOptions on;
  on.k = 3;
  // Half the head's lead (the default is 0.2): this small store's distractors share the
  // question's words and stand close behind the head.
  on.neighbour_params.share = 0.5;
  SearchOptions off = on;
  off.neighbours = false;
  const auto with = s.search(kQuestion, on), without = s.search(kQuestion, off);
  ASSERT_FALSE(without.empty());
  EXPECT_EQ(without[0].chunk_id, "manual-0") << "fixture check: the question's words find the answer first";
  EXPECT_GT(rank_of(without, "manual-1"), 3u) << "fixture check: the reason is not in the top 3 without smoothing";
  EXPECT_LE(rank_of(with, "manual-1"), 3u) << "the chunk after the first hit should join the top 3";
  ASSERT_FALSE(with.empty());
  EXPECT_EQ(with[0].chunk_id, "manual-0");
  // Scores stay in descending order, and the unrelated chunk after the reason is not lifted.
  for (size_t i = 1; i < with.size(); ++i) EXPECT_GE(with[i - 1].score, with[i].score);
  EXPECT_GT(rank_of(with, "manual-2"), 3u);
}

TEST_F(Neighbours, OnlyZscoreFusionSmoothsAndBatchesSmoothAsSearchDoes) {
  Searcher& s = *searcher_;
  SearchOptions rel;
  rel.k = 5;
  rel.fusion = Fusion::Relative;
  SearchOptions rel_off = rel;
  rel_off.neighbours = false;
  const auto a = s.search(kQuestion, rel), b = s.search(kQuestion, rel_off);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].chunk_id, b[i].chunk_id);
    EXPECT_DOUBLE_EQ(a[i].score, b[i].score);
  }
  SearchOptions z;
  z.k = 3;
  const auto want = s.search(kQuestion, z);
  for (int parallel : {1, 2}) {
    auto got = s.search_many({{.text = kQuestion}, {.text = "tied event times"}}, z, parallel);
    ASSERT_EQ(got.size(), 2u);
    ASSERT_EQ(got[0].size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[0][i].chunk_id, want[i].chunk_id) << parallel << " at " << i;
  }
}

}  // namespace
}  // namespace mmkg
