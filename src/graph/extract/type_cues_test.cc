#include "graph/extract/type_cues.h"

#include <gtest/gtest.h>

#include "graph/extract/rules.h"
#include "graph/model/extractor.h"
#include "graph/model/graph_types.h"

namespace mmkg::graph {
namespace {

ChunkExtraction run_cues(const std::string& text) {
  auto ex = make_rule_extractor();
  ExtractInput in;
  in.chunk_id = "c1";
  in.doc_id = "d1";
  in.text = text;
  return ex->extract(in);
}

std::string type_of(const ChunkExtraction& r, const std::string& surface) {
  for (const auto& t : r.terms)
    if (t.surface == surface) return t.type.empty() ? "-" : t.type;
  return "(absent)";
}

std::string dump_types(const ChunkExtraction& r) {
  std::string s;
  for (const auto& t : r.terms) s += t.surface + " [" + t.type + "]\n";
  return s;
}

TEST(TypeCues, DataSetsAssociationsAndTwoAuthorsBeforeAYear) {
  auto r = run_cues("We fit the NAFLD data set of 17549 subjects; the example comes from Koch and Edwards (1988).");
  EXPECT_EQ(type_of(r, "NAFLD"), "dataset") << dump_types(r);
  EXPECT_EQ(type_of(r, "NAFLD data set"), "dataset") << dump_types(r);
  EXPECT_EQ(type_of(r, "Koch"), "person") << dump_types(r);
  EXPECT_EQ(type_of(r, "Edwards"), "person") << dump_types(r);
  r = run_cues("It appeared in the Journal of the American Statistical Association last year.");
  EXPECT_EQ(type_of(r, "American Statistical Association"), "organization") << dump_types(r);
  // "data set" after common words only names no data set
  r = run_cues("A larger data set gives narrower bands.");
  EXPECT_NE(type_of(r, "larger data set"), "dataset") << dump_types(r);
}

TEST(TypeCues, TypeHeadNouns) {
  EXPECT_EQ(rules::type_of_head("dataset"), "dataset");
  EXPECT_EQ(rules::type_of_head("package"), "software");
  EXPECT_EQ(rules::type_of_head("algorithm"), "method");
  EXPECT_EQ(rules::type_of_head("university"), "organization");
  EXPECT_EQ(rules::type_of_head("attention"), "");
}

TEST(TypeCues, NameWithItsTypeNoun) {
  auto r = run_cues("We train on the ImageNet dataset and fit the curves with the mgcv package.");
  EXPECT_EQ(type_of(r, "ImageNet"), "dataset") << dump_types(r);
  EXPECT_EQ(type_of(r, "ImageNet dataset"), "dataset") << dump_types(r);
  EXPECT_EQ(type_of(r, "mgcv"), "software") << dump_types(r);
  r = run_cues("The models were fitted with the R package lme4 on a laptop.");
  EXPECT_EQ(type_of(r, "lme4"), "software") << dump_types(r);
  r = run_cues("The authors work at Stanford University in California.");
  EXPECT_EQ(type_of(r, "Stanford University"), "organization") << dump_types(r);
}

TEST(TypeCues, PeopleFromCitations) {
  auto r = run_cues("This idea was introduced by Vaswani et al. in a short paper.");
  EXPECT_EQ(type_of(r, "Vaswani"), "person") << dump_types(r);
  r = run_cues("Smoothing splines (Wahba, 1990) are penalised regression functions.");
  EXPECT_EQ(type_of(r, "Wahba"), "person") << dump_types(r);
  r = run_cues("References. Everitt BS, Hothorn T (2009). A handbook of statistical analyses.");
  EXPECT_EQ(type_of(r, "Everitt BS"), "person") << dump_types(r);
  r = run_cues("As Breslow (1972) showed, the hazard estimator is consistent.");
  EXPECT_EQ(type_of(r, "Breslow"), "person") << dump_types(r);
}

TEST(TypeCues, AuthorLinesButNotListsOfTopics) {
  auto r = run_cues("Ashish Vaswani, Noam Shazeer, Niki Parmar, and Jakob Uszkoreit wrote the paper.");
  EXPECT_EQ(type_of(r, "Noam Shazeer"), "person") << dump_types(r);
  EXPECT_EQ(type_of(r, "Jakob Uszkoreit"), "person") << dump_types(r);
  r = run_cues("It helps Machine Translation, Image Captioning, Speech Recognition and more.");
  EXPECT_NE(type_of(r, "Image Captioning"), "person") << dump_types(r);
}

TEST(TypeCues, AppositionCopulaAndDefinedAcronyms) {
  auto r = run_cues("We propose FlashAttention, an algorithm that computes exact attention with fewer memory reads.");
  EXPECT_EQ(type_of(r, "FlashAttention"), "method") << dump_types(r);
  r = run_cues("Models are scored with the Mean Squared Error (MSE) on held-out folds.");
  EXPECT_EQ(type_of(r, "MSE"), "metric") << dump_types(r);
  EXPECT_EQ(type_of(r, "Mean Squared Error"), "metric") << dump_types(r);
  // no cue: no type beyond the default
  r = run_cues("Sparse attention reduces the quadratic cost of long sequences.");
  EXPECT_EQ(type_of(r, "Sparse attention"), "-") << dump_types(r);
}

}  // namespace
}  // namespace mmkg::graph
