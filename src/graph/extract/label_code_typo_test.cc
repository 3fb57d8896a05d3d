// Entity precision on real manuals and vignettes (issue 13): no terms from the labels read off a
// figure, the name after "the function"/"the package" as the term, no table cells run together,
// no typos as terms.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "graph/extract/terms.h"
#include "graph/extract/rules.h"
#include "graph/model/extractor.h"
#include "graph/model/graph_types.h"
#include "support/extract_fixtures.h"

namespace mmkg::graph {
namespace {

// The name keys of the terms the rule extractor finds in `text`, and their types.
std::vector<TermCandidate> terms_of(const std::string& text) {
  auto ex = make_rule_extractor();
  ExtractInput in;
  in.chunk_id = "c1";
  in.doc_id = "d1";
  in.text = text;
  return ex->extract(in).terms;
}

bool has(const std::vector<TermCandidate>& ts, const std::string& key) {
  for (const auto& t : ts)
    if (name_key(t.surface) == name_key(key)) return true;
  return false;
}

std::string listed(const std::vector<TermCandidate>& ts) {
  std::string s;
  for (const auto& t : ts) s += t.surface + " [" + t.type + "]; ";
  return s;
}

TEST(EntityPrecision, NoTermsFromTheLabelsReadOffAFigureOrATable) {
  const std::string caption = "Figure 25: Labeling strategies for the Titanic data mosaic.\n\n";
  auto fig = terms_of(caption + "Text in the figure: Male Female Male Female Adult Child Class Class Crew Survived Sex Male Female Child\n");
  EXPECT_TRUE(has(fig, "Titanic data mosaic")) << listed(fig);
  for (const char* debris : {"Male Female", "Female Class", "Survived Sex Male Female Child", "Crew Survived Sex"})
    EXPECT_FALSE(has(fig, debris)) << debris << ": " << listed(fig);
  auto table = terms_of("Table 2: Deviance table.\n\nText in the table: Estimate Lower ci Upper ci Treatment Placebo\n");
  EXPECT_FALSE(has(table, "Estimate Lower ci Upper ci")) << listed(table);
  EXPECT_FALSE(has(table, "Treatment Placebo")) << listed(table);
  // the same words in a sentence are prose, and give terms
  auto prose = terms_of("The Titanic data mosaic shades the survival of each passenger class.");
  EXPECT_TRUE(has(prose, "Titanic data mosaic")) << listed(prose);
}

TEST(EntityPrecision, AWordTwiceInAPhraseIsNoTerm) {
  auto ts = terms_of("The mosaic shows High Attitude Attitude Attitude and Female Class Class cells next to the "
                     "conditional independence test.");
  EXPECT_FALSE(has(ts, "High Attitude Attitude Attitude")) << listed(ts);
  EXPECT_FALSE(has(ts, "Female Class Class")) << listed(ts);
  EXPECT_TRUE(has(ts, "conditional independence test")) << listed(ts);
}

TEST(EntityPrecision, TheNameAfterAKindOfCodeObjectIsTheTerm) {
  auto ts = terms_of("The function coeftest computes partial Wald tests, and the argument prewhite switches "
                     "prewhitening on. Both come with the package lmtest.");
  for (const char* name : {"coeftest", "prewhite", "lmtest"}) EXPECT_TRUE(has(ts, name)) << name << ": " << listed(ts);
  for (const char* wrong : {"function coeftest", "argument prewhite", "package lmtest"})
    EXPECT_FALSE(has(ts, wrong)) << wrong << ": " << listed(ts);
  bool software = false;
  for (const auto& t : ts) software = software || (name_key(t.surface) == "lmtest" && t.type == "software");
  EXPECT_TRUE(software) << "the package lmtest is software: " << listed(ts);
  // a capitalised name after a kind word is a name of its own, typed by its cue, not cut
  auto named = terms_of("We train with the method Adam and compare it with SGD.");
  EXPECT_FALSE(has(named, "Adam") && has(named, "method")) << listed(named);
}

TEST(EntityPrecision, ATypoIsOneEditFromAWordAndNoCompoundOrName) {
  for (const char* typo : {"specfying", "possiblility", "proporitional", "anayzes", "measurments", "pakcages"})
    EXPECT_TRUE(rules::misspelt_word(typo)) << typo;
  // words of the domain: plurals of unknown nouns, compounds, names built from a word, short
  // identifiers, spelling variants, and words WordNet knows
  for (const char* word : {"encoders", "voxels", "multipole", "backends", "iplots", "coxme", "heteroskedasticity",
                           "probit", "softmax", "strucchange", "specifying", "possibility"})
    EXPECT_FALSE(rules::misspelt_word(word)) << word;
}

using mmkg::testing::kept_term_keys;

TEST(EntityPrecision, ATypoSeenInOneChunkIsNoTermACoinedWordSeenOftenIs) {
  // "proporitional" is in one chunk (the highest idf); "agentic" in every chunk
  auto kept = kept_term_keys({"Agentic workflows call tools. The proporitional hazard holds here.",
                          "Agentic workflows plan steps and agentic systems call tools.", "Agentic systems need memory."},
                         [](const std::string& w) { return w == "agentic" ? 0.9 : w == "proporitional" ? 3.0 : 1.5; });
  EXPECT_TRUE(kept.count(name_key("agentic workflows"))) << "a coined word the documents repeat";
  for (const auto& k : kept) EXPECT_EQ(k.find("proporitional"), std::string::npos) << k;
}

TEST(EntityPrecision, OneOrTwoLettersAreNoTermUnlessWrittenInCapitals) {
  auto kept = kept_term_keys({"The dy term and the Nn term vanish, while GO annotations and AI agents stay.",
                          "Again dy and Nn vanish; GO annotations help AI agents.", "GO and AI again, with dy and Nn."},
                         [](const std::string&) { return 3.0; });
  EXPECT_FALSE(kept.count("dy"));
  EXPECT_FALSE(kept.count("nn"));
  EXPECT_TRUE(kept.count(name_key("GO")) || kept.count(name_key("GO annotations"))) << "a two-letter acronym";
  EXPECT_TRUE(kept.count(name_key("AI")) || kept.count(name_key("AI agents"))) << "a two-letter acronym";
}

}  // namespace
}  // namespace mmkg::graph

namespace mmkg::graph {
namespace {

TEST(EntityPrecision, AFullNameWhoseSurnameTheDocumentCitesIsAPerson) {
  auto doc = mmkg::testing::ranked_document(
      {"Achim Zeileis wrote the sandwich package with Torsten Hothorn for the Deutsche Forschungsgemeinschaft.",
       "The estimators follow Zeileis (2004) and the tests follow Hothorn et al. closely.",
       "Achim Zeileis and the Deutsche Forschungsgemeinschaft are thanked again."},
      [](const std::string&) { return 3.0; });
  std::map<std::string, std::string> type;
  for (auto& c : doc)
    for (auto& t : c.terms) type[t.surface] = t.type;
  EXPECT_EQ(type["Achim Zeileis"], "person");
  EXPECT_EQ(type["Torsten Hothorn"], "person");
  EXPECT_NE(type["Deutsche Forschungsgemeinschaft"], "person") << "no surname the document cites";
}

}  // namespace
}  // namespace mmkg::graph
