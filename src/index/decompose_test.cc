// Question decomposition in hybrid search (Searcher::search with z-score fusion, fuse_parts):
// the pure fusion of a question's list with its parts' lists, and a small store where the
// passage that answers a question's second part only reaches the head through its part.
#include <algorithm>
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
#include "text/question_shape.h"

namespace mmkg {
namespace {

// The parts of `q` as a caller gives them to the searcher (agents/question.h does the same; the
// searcher reads no English).
std::vector<QueryPart> parts_of(const std::string& q) {
  std::vector<QueryPart> out;
  for (const auto& p : question_parts(q)) out.push_back({p.text, refers_to_antecedent(p.text)});
  return out;
}

TEST(FuseParts, APassageThatAnswersOnePartBeatsOneThatOnlySharesTheTopic) {
  // Key 0: the topic passage, first for the whole question and middling for both parts.
  // Key 2: third for the question, but far ahead in the second part's list.
  const FusionList whole = {{0, 3.0}, {1, 2.5}, {2, 2.0}, {3, 1.0}};
  const std::vector<FusionList> parts = {{{0, 1.0}, {1, 1.2}, {3, 0.5}}, {{2, 4.0}, {0, 0.5}}};
  std::vector<double> score;
  auto order = fuse_parts(whole, parts, 4, score);
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order.front(), 2u);        // 2.0 + (0 + 4.0) / 2
  EXPECT_DOUBLE_EQ(score[2], 4.0);
  EXPECT_DOUBLE_EQ(score[0], 3.75);    // 3.0 + (1.0 + 0.5) / 2
}

TEST(FuseParts, WithoutPartsTheQuestionsOrderStandsAndEveryListsKeysAreKept) {
  const FusionList whole = {{3, 2.0}, {1, 1.0}, {0, -0.5}};
  std::vector<double> score;
  EXPECT_EQ(fuse_parts(whole, {}, 5, score), (std::vector<size_t>{3, 1, 0}));
  // A key only a part found is a candidate too (scoring 0 for the question: its pool's mean).
  auto order = fuse_parts(whole, {{{4, 1.0}}}, 5, score);
  EXPECT_EQ(order, (std::vector<size_t>{3, 1, 4, 0}));
}

// A store where two passages are about a question's first part, a few share a word or two with
// it, and one passage, sharing only its word "bread", answers the second part.
std::unique_ptr<Store> topic_store(const std::string& dir, Embedder& emb) {
  auto store = Store::open(dir);
  DocumentRecord doc;
  doc.id = "d";
  doc.path = "/c/covariance.txt";
  doc.name = "covariance.txt";
  doc.format = "text";
  const std::vector<std::string> texts = {
      // The first part's subject, twice.
      "The clustered covariance function estimates covariance matrices for clustered panel data.",
      "For panel data, the covariance function returns clustered covariance matrices of the estimates.",
      // Passages that share a word or two with the question, and answer neither part.
      "Covariance matrices of regression estimates are needed for standard errors.",
      "Panel data follow the same firms over several years.",
      "A function may return several matrices at once.",
      "Clustered sampling draws whole groups of observations at a time.",
      // The second part's answer, sharing only its one content word.
      "Bread and meat: the bread is the inverse Hessian of the objective.",
  };

  // Passages on other subjects, so that each list's z-scores have a background to stand out of.
  const std::vector<std::string> other = {
      "Kaplan-Meier curves estimate survival for censored observations",
      "Structural change tests look for breaks in regression coefficients",
      "The Cox model relates covariates to the hazard of an event",
      "Residual shadings highlight cells that deviate from independence",
      "Competing risks change how the cumulative incidence is estimated",
      "Fluctuation processes cross their boundaries when parameters change",
  };
  std::vector<std::string> all = texts;
  for (size_t i = 0; i < 24; ++i) all.push_back(other[i % other.size()] + ", example " + std::to_string(i) + ".");
  std::vector<Chunk> cs;
  for (size_t i = 0; i < all.size(); ++i) {
    Chunk c;
    c.id = "d-" + std::to_string(i);
    // Passages from places far apart in the document (seq 10 apart): none continues another,
    // so neighbour smoothing (index/neighbours_test.cc) leaves this fixture alone.
    c.seq = static_cast<int>(10 * i);
    c.text = all[i];
    c.vector = emb.embed({c.text}, EmbedKind::Document);
    cs.push_back(c);
  }
  store->put_document(doc, "", cs, std::nullopt, emb.id());
  return store;
}

// The store above, searched with the default fusion (z-score, which decomposes).
class Decompose : public ::testing::Test {
 protected:
  void SetUp() override {
    MMKG_REQUIRE_MINILM(model);
    emb_ = make_embedder("native");
    store_ = topic_store(dir_.str(), *emb_);
    native_ = std::make_unique<LazyEmbedder>(emb_.get());
    searcher_ = std::make_unique<Searcher>(*store_, *native_);
  }
  static constexpr const char* kQuestion =
      "Which function estimates clustered covariance matrices for panel data, and what is the bread?";
  static constexpr const char* kBread = "d-6";  // the passage that answers the second part
  testing::TempDir dir_;
  std::unique_ptr<Embedder> emb_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<LazyEmbedder> native_;
  std::unique_ptr<Searcher> searcher_;
};

// 1-based rank of chunk `id` in `hits`; hits.size() + 1 when absent.
size_t rank_in(const std::vector<SearchHit>& hits, const std::string& id) {
  for (size_t i = 0; i < hits.size(); ++i)
    if (hits[i].chunk_id == id) return i + 1;
  return hits.size() + 1;
}

void expect_same_ids(const std::vector<SearchHit>& a, const std::vector<SearchHit>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].chunk_id, b[i].chunk_id) << what << " at " << i;
}

TEST_F(Decompose, ASecondPartsPassageReachesTheHeadOnlyThroughItsPart) {
  Searcher& s = *searcher_;
  EXPECT_EQ(s.fusion(), Fusion::Zscore);
  const std::string q = kQuestion;
  auto rank_of = [&](const std::vector<SearchHit>& hits) { return rank_in(hits, kBread); };
  SearchOptions on;
  on.k = 3;
  SearchOptions off = on;
  off.decompose = false;
  const size_t with_parts = rank_of(s.search(q, on, parts_of(q))), without = rank_of(s.search(q, off, parts_of(q)));
  EXPECT_LE(with_parts, 3u) << "the bread passage should be in the top 3 with the parts searched";
  EXPECT_GT(without, 3u) << "fixture check: the whole question alone should not find it";
  // The first part's passages still lead: the question's own list keeps its say.
  auto hits = s.search(q, on, parts_of(q));
  ASSERT_FALSE(hits.empty());
  EXPECT_NE(hits[0].chunk_id, kBread);
  // Relative fusion does not decompose (its min-max scores are not comparable across queries).
  SearchOptions rel = on;
  rel.fusion = Fusion::Relative;
  SearchOptions rel_off = rel;
  rel_off.decompose = false;
  expect_same_ids(s.search(q, rel, parts_of(q)), s.search(q, rel_off, parts_of(q)), "relative");
}

TEST_F(Decompose, ABatchedQuestionIsDecomposedAsSearchDoesIt) {
  Searcher& s = *searcher_;
  const std::string q = kQuestion;
  SearchOptions o;
  o.k = 3;
  const auto want = s.search(q, o, parts_of(q));
  for (int parallel : {1, 2}) {
    auto got = s.search_many({{.text = q, .parts = parts_of(q)}, {.text = "panel data"}}, o, parallel);
    ASSERT_EQ(got.size(), 2u);
    expect_same_ids(got[0], want, "parallel " + std::to_string(parallel));
    EXPECT_FALSE(got[1].empty());
  }
  // Without its parts: one query, as search_match() gives it (the bread passage is not in its top 3).
  auto plain = s.search_many({{.text = q}}, o, 1);
  for (auto& h : plain[0]) EXPECT_NE(h.chunk_id, kBread);
}

TEST_F(Decompose, AOnePartQuestionIsSearchedAsBefore) {
  Searcher& s = *searcher_;
  SearchOptions on;
  on.k = 5;
  SearchOptions off = on;
  off.decompose = false;
  const std::string q = "what is the bread of a sandwich estimator?";
  ASSERT_EQ(parts_of(q).size(), 1u);
  auto a = s.search(q, on, parts_of(q));
  auto b = s.search(q, off, parts_of(q));
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].chunk_id, b[i].chunk_id);
    EXPECT_DOUBLE_EQ(a[i].score, b[i].score);
  }
}

// Two documents: the one the question's first part is about holds, far from its first hits, the
// passage that answers the second part ("..., and how does its runtime grow?"), while the other
// document has passages that share the second part's words more closely.
std::unique_ptr<Store> antecedent_store(const std::string& dir, Embedder& emb) {
  auto store = Store::open(dir);
  // Chunks 10 apart in their documents: no neighbour smoothing between them.
  testing::put_embedded_document(
      *store, emb, "zorbfit",
      {"The zorbfit function fits clustered covariance models to panel data.",
       "zorbfit estimates clustered covariance matrices for panel data in one call.",
       "Panel data follow the same firms over several years.",
       "Its runtime is linear: doubling the clusters doubles the time zorbfit needs."},
      10);
  std::vector<std::string> other = testing::background_passages(
      {"Kaplan-Meier curves estimate survival for censored observations",
       "Structural change tests look for breaks in regression coefficients",
       "The Cox model relates covariates to the hazard of an event",
       "Residual shadings highlight cells that deviate from independence"},
      16);
  other.insert(other.begin(), {"How does the runtime grow? The runtime of a sort grows with its input.",
                               "Runtime grows when the cache is cold, and it grows again under load.",
                               "The runtime grows with the compiler's optimisation level."});
  testing::put_embedded_document(*store, emb, "other", other, 10);
  return store;
}

TEST(Antecedent, APartThatRefersBackIsSearchedInTheDocumentsOfTheQuestionsHits) {
  MMKG_REQUIRE_MINILM(model);
  testing::TempDir dir;
  auto emb = make_embedder("native");
  auto store = antecedent_store(dir.str(), *emb);
  LazyEmbedder lazy(emb.get());
  Searcher s(*store, lazy);
  const std::string q = "Which function fits clustered covariance models to panel data, and how does its runtime grow?";
  const std::string answer = "zorbfit-3";
  auto rank_of = [&](const SearchOptions& o) { return rank_in(s.search(q, o, parts_of(q)), answer); };
  SearchOptions scoped;
  scoped.k = 3;
  scoped.antecedent_hits = 3;
  SearchOptions anywhere = scoped;
  anywhere.antecedent_hits = 0;
  EXPECT_LE(rank_of(scoped), 3u) << "the part's answer, in the antecedent's document, should reach the top 3";
  EXPECT_GT(rank_of(anywhere), 3u) << "fixture check: searched over the whole store, the part finds the other document";
  // The first part's passage still leads.
  auto hits = s.search(q, scoped, parts_of(q));
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].doc, "zorbfit.txt");
}

}  // namespace
}  // namespace mmkg
