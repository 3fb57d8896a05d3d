#include "index/ranker.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "core/error.h"
#include "embed/embedder.h"
#include "index/searcher.h"
#include "store/store.h"
#include "support/embed_fixtures.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

double at(const FeatureRow& r, RankFeature f) { return r[static_cast<size_t>(f)]; }

PoolSignals three_candidates() {
  PoolSignals s;
  s.bm25 = {3.0, 1.0, kNan};       // the third is only in the dense list
  s.bm25_rank = {1, 2, 0};
  s.dense = {0.5, kNan, 0.7};      // the second is only in the BM25 list
  s.dense_rank = {2, 0, 1};
  s.prox = {1.0, 0.5, 0.0};
  s.title_cov = {0, 1, 0};
  s.heading_cov = {0.5, 0, 0};
  s.figure = {false, false, true};
  s.chars = {100, 1000, 10};
  return s;
}

TEST(RankFeatures, ListScoresBecomeZScoresSharesAndReciprocalRanksWithAbsenceAtTheBottom) {
  auto rows = rank_features(three_candidates());
  ASSERT_EQ(rows.size(), 3u);
  // BM25 list {3, 1}: z = +1, -1; the absent candidate takes the list's lowest.
  EXPECT_NEAR(at(rows[0], RankFeature::Bm25Z), 1.0, 1e-9);
  EXPECT_NEAR(at(rows[1], RankFeature::Bm25Z), -1.0, 1e-9);
  EXPECT_NEAR(at(rows[2], RankFeature::Bm25Z), -1.0, 1e-9);
  EXPECT_NEAR(at(rows[0], RankFeature::Bm25Rel), 1.0, 1e-9);
  EXPECT_NEAR(at(rows[1], RankFeature::Bm25Rel), 0.0, 1e-9);
  EXPECT_NEAR(at(rows[2], RankFeature::Bm25Rel), 0.0, 1e-9);
  EXPECT_NEAR(at(rows[0], RankFeature::Bm25Rr), 1.0, 1e-9);
  EXPECT_NEAR(at(rows[1], RankFeature::Bm25Rr), 0.5, 1e-9);
  EXPECT_NEAR(at(rows[2], RankFeature::Bm25Rr), 0.0, 1e-9);
  // Dense list {0.5, 0.7}: the absent candidate gets the lowest cosine, and rank 0 -> 0.
  EXPECT_NEAR(at(rows[1], RankFeature::DenseCos), 0.5, 1e-9);
  EXPECT_NEAR(at(rows[2], RankFeature::DenseCos), 0.7, 1e-9);
  EXPECT_NEAR(at(rows[2], RankFeature::DenseZ), 1.0, 1e-9);
  EXPECT_NEAR(at(rows[1], RankFeature::DenseRr), 0.0, 1e-9);
  EXPECT_NEAR(at(rows[0], RankFeature::DenseRr), 0.5, 1e-9);
  // Proximity z over the pool {1, .5, 0}; title, heading, figure as given; no sentence scores.
  EXPECT_NEAR(at(rows[0], RankFeature::ProxZ), std::sqrt(1.5), 1e-9);
  EXPECT_EQ(at(rows[1], RankFeature::TitleCov), 1.0);
  EXPECT_EQ(at(rows[0], RankFeature::HeadingCov), 0.5);
  EXPECT_EQ(at(rows[2], RankFeature::Figure), 1.0);
  EXPECT_EQ(at(rows[2], RankFeature::FigureQ), 0.0);  // the question does not ask for a figure
  EXPECT_EQ(at(rows[0], RankFeature::SentCos), 0.0);
  EXPECT_GT(at(rows[1], RankFeature::LogLen), at(rows[0], RankFeature::LogLen));
}

TEST(RankFeatures, FigureQuestionsAndSentenceScores) {
  PoolSignals s = three_candidates();
  s.figure_question = true;
  s.sent = {0.2, 0.4, 0.6};
  auto rows = rank_features(s);
  EXPECT_EQ(at(rows[2], RankFeature::FigureQ), 1.0);
  EXPECT_EQ(at(rows[0], RankFeature::FigureQ), 0.0);
  EXPECT_NEAR(at(rows[2], RankFeature::SentCos), 0.6, 1e-9);
  EXPECT_NEAR(at(rows[2], RankFeature::SentZ), std::sqrt(1.5), 1e-9);
  EXPECT_TRUE(asks_about_figure("Which figure shows the residuals?"));
  EXPECT_TRUE(asks_about_figure("what do the plots in section 3 show"));
  EXPECT_FALSE(asks_about_figure("How do I configure the pager?"));
  EXPECT_TRUE(rank_features(PoolSignals{}).empty());
}

TEST(RankFeatures, GraphSignalsAreTakenAsGivenAndZeroWithoutAGraph) {
  PoolSignals s = three_candidates();
  auto rows = rank_features(s);
  for (const auto& r : rows)
    EXPECT_EQ(at(r, RankFeature::GraphLink) + at(r, RankFeature::GraphPpr) + at(r, RankFeature::GraphBridge), 0.0);
  s.graph_link = {0.0, 1.0, 0.5};
  s.graph_ppr = {0.25, 1.0, 0.0};
  s.graph_bridge = {0.0, 0.0, 1.0};
  rows = rank_features(s);
  EXPECT_EQ(at(rows[1], RankFeature::GraphLink), 1.0);
  EXPECT_EQ(at(rows[0], RankFeature::GraphPpr), 0.25);
  EXPECT_EQ(at(rows[2], RankFeature::GraphBridge), 1.0);
  EXPECT_EQ(rank_feature_names().size(), kRankFeatures);
  EXPECT_EQ(rank_feature_names()[static_cast<size_t>(RankFeature::GraphBridge)], "graph_bridge");
}

TEST(RankFeatures, PoolScoresAreTheModelsScoresZScaledInOrder) {
  auto rows = rank_features(three_candidates());
  LinearModel prox;
  prox.weights.assign(kRankFeatures, 0.0);
  prox.weights[static_cast<size_t>(RankFeature::Prox)] = 2.0;
  prox.bias = 5;
  auto z = pool_scores(prox, rows);  // raw 7, 6, 5: z = +sqrt(1.5), 0, -sqrt(1.5)
  ASSERT_EQ(z.size(), 3u);
  EXPECT_NEAR(z[0], std::sqrt(1.5), 1e-9);
  EXPECT_NEAR(z[1], 0.0, 1e-9);
  EXPECT_NEAR(z[2], -std::sqrt(1.5), 1e-9);
  EXPECT_TRUE(pool_scores(prox, {}).empty());
}

TEST(RankerModel, ParsesWeightsByFeatureNameAndFoldsByQuestion) {
  auto m = FittedModel::parse(R"({"format": "mmkg-ranker", "version": 1, "features": ["prox", "bm25_z"],
      "model": {"bias": -1, "weights": [2, 0.5]},
      "folds": [{"bias": 0, "weights": [1, 0], "questions": ["q1", "q2"]},
                {"bias": 0, "weights": [0, 1], "questions": ["q3"]}]})",
                              "test.json", "ranker", rank_feature_names());
  FeatureRow x{};
  x[static_cast<size_t>(RankFeature::Prox)] = 1.0;
  x[static_cast<size_t>(RankFeature::Bm25Z)] = 4.0;
  EXPECT_DOUBLE_EQ(m->full().score(x), -1 + 2 + 2);
  ASSERT_EQ(m->folds(), 2u);
  ASSERT_NE(m->fold_for("q2"), nullptr);
  EXPECT_DOUBLE_EQ(m->fold_for("q2")->score(x), 1.0);
  EXPECT_DOUBLE_EQ(m->fold_for("q3")->score(x), 4.0);
  EXPECT_EQ(m->fold_for("q9"), nullptr);
}

TEST(RankerModel, ABadFileSaysWhatIsWrongAndHowToFixIt) {
  auto msg = [](const std::string& text) {
    try {
      FittedModel::parse(text, "m.json", "ranker", rank_feature_names());
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(msg("{").find("m.json: not a ranker model"), std::string::npos);
  EXPECT_NE(msg(R"({"format": "other"})").find("format"), std::string::npos);
  EXPECT_NE(msg(R"({"format": "mmkg-ranker", "version": 9, "features": []})").find("retrain"), std::string::npos);
  EXPECT_NE(msg(R"({"format": "mmkg-answerable", "version": 1, "features": []})").find("not a ranker model"),
            std::string::npos);
  EXPECT_NE(msg(R"({"format": "mmkg-ranker", "version": 1, "features": ["colour"], "model": {"bias": 0, "weights": [1]}})")
                .find("unknown feature 'colour'"),
            std::string::npos);
  EXPECT_NE(msg(R"({"format": "mmkg-ranker", "version": 1, "features": ["prox"], "model": {"bias": 0, "weights": [1, 2]}})")
                .find("2 weights for 1 features"),
            std::string::npos);
  EXPECT_NE(msg(R"({"format": "mmkg-ranker", "version": 1, "features": ["prox"]})").find("malformed"), std::string::npos);
  EXPECT_THROW(load_ranker("/nonexistent/ranker.json"), UsageError);
}

TEST(RankerModel, TheBuiltInModelIsTheTrainedOneWithItsFolds) {
  auto m = load_ranker();
  EXPECT_EQ(m->version(), 1);
  EXPECT_GE(m->folds(), 2u);  // scripts/train_ranker.py's outer folds
  double norm = 0;
  for (double w : m->full().weights) norm += std::abs(w);
  EXPECT_GT(norm, 0.0);
}

// Two documents; the question's words are in one chunk of each, and in one file name.
std::unique_ptr<Store> two_documents(const std::string& dir, Embedder& emb) {
  auto store = Store::open(dir);
  const std::vector<std::pair<std::string, std::vector<std::string>>> docs = {
      {"sandwich.txt",
       {"Sandwich estimators give robust standard errors under heteroskedasticity.",
        "Kernel HAC estimators need a bandwidth chosen from the data."}},
      {"survival.txt",
       {"Robust standard errors robust standard errors are also reported by the Cox model.",
        "Kaplan-Meier curves estimate survival over time for censored data."}},
  };
  int d = 0;
  for (const auto& [name, texts] : docs) {
    DocumentRecord doc;
    doc.id = "d" + std::to_string(d++);
    doc.path = "/c/" + name;
    doc.name = name;
    doc.format = "text";
    std::vector<Chunk> cs;
    for (size_t i = 0; i < texts.size(); ++i) {
      Chunk c;
      c.id = doc.id + "-" + std::to_string(i);
      c.seq = static_cast<int>(i);
      c.text = texts[i];
      c.vector = emb.embed({c.text}, EmbedKind::Document);
      cs.push_back(c);
    }
    store->put_document(doc, "", cs, std::nullopt, emb.id());
  }
  return store;
}

std::shared_ptr<const FittedModel> one_feature(const std::string& name, double weight) {
  return FittedModel::parse(R"({"format": "mmkg-ranker", "version": 1, "features": [")" + name +
                                R"("], "model": {"bias": 0, "weights": [)" + std::to_string(weight) + "]}}",
                            name, "ranker", rank_feature_names());
}

TEST(FittedFusion, TheModelFileDecidesTheOrderAndTheCaptureSeesEachCandidatesFeatures) {
  MMKG_REQUIRE_MINILM(model);
  testing::TempDir dir;
  auto emb = make_embedder("native");
  auto store = two_documents(dir.str(), *emb);
  LazyEmbedder native(emb.get());
  Searcher s(*store, native, {.fusion = Fusion::Fitted});
  SearchOptions o;
  o.k = 4;
  o.neighbours = false;
  const std::string q = "sandwich robust standard errors";
  SearchOptions b;
  b.mode = SearchMode::Bm25;
  const std::string best = s.search(q, b).at(0).chunk_id;
  auto ranked_by = [&](std::shared_ptr<const FittedModel> model) {
    Searcher t(*store, native, {.fusion = Fusion::Fitted, .ranker = std::move(model)});
    return t.search(q, o);
  };
  // The file name alone: both sandwich chunks lead, the one without the question's words too.
  auto by_title = ranked_by(one_feature("title_cov", 1.0));
  ASSERT_GE(by_title.size(), 2u);
  EXPECT_EQ(by_title[0].doc, "sandwich.txt");
  EXPECT_EQ(by_title[1].doc, "sandwich.txt");
  EXPECT_EQ(ranked_by(one_feature("bm25_rr", 1.0)).at(0).chunk_id, best);
  Searcher reversed(*store, native, {.fusion = Fusion::Fitted, .ranker = one_feature("bm25_rr", -1.0)});
  EXPECT_NE(reversed.search(q, o).at(0).chunk_id, best);  // BM25's best is no longer first
  // A fold model overrides the file's full model for the searches that name it.
  LinearModel title;
  title.weights.assign(kRankFeatures, 0.0);
  title.weights[static_cast<size_t>(RankFeature::TitleCov)] = 1.0;
  SearchOptions folded = o;
  folded.fold_model = &title;
  EXPECT_EQ(reversed.search(q, folded).at(0).doc, "sandwich.txt");
  EXPECT_NE(reversed.search(q, o).at(0).chunk_id, best);
  // The capture: the search's pool, with a row per pooled candidate.
  int calls = 0;
  size_t pooled = 0;
  double sandwich_title = -1;
  SearchOptions captured = o;
  captured.capture = [&](const std::vector<SearchHit>& pool, const std::vector<FeatureRow>& rows) {
    ++calls;
    pooled = pool.size();
    EXPECT_EQ(rows.size(), pool.size());
    for (size_t i = 0; i < pool.size(); ++i) {
      if (pool[i].doc == "sandwich.txt") sandwich_title = at(rows[i], RankFeature::TitleCov);
      EXPECT_GT(at(rows[i], RankFeature::SentCos), 0.0) << pool[i].chunk_id;  // the embedder is there
    }
  };
  reversed.search(q, captured);
  reversed.search(q, o);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(pooled, 4u);
  EXPECT_GT(sandwich_title, 0.0);
  EXPECT_EQ(parse_fusion("fitted"), Fusion::Fitted);
  EXPECT_STREQ(fusion_name(Fusion::Fitted), "fitted");
}

}  // namespace
}  // namespace mmkg
