// The direct answer's walk on passages of its own: the entity's passage, the relation to the next
// entity, its passage fetched when the context lacks it, the property read there; comparisons
// and sameness; and through ask(), the answer's first line and its citations.
#include "agents/direct_answer.h"

#include <gtest/gtest.h>

#include "agents/ask.h"
#include "store/store.h"
#include "support/ask_fixtures.h"
#include "support/store_fixtures.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

Candidate passage(const std::string& title, const std::string& text, int64_t start = 0) {
  Candidate c;
  c.hit.doc = title + ".md";
  c.hit.doc_id = title;
  c.hit.chunk_id = title + "#" + std::to_string(start);
  c.hit.start = start;
  c.hit.text = "# " + title + "\n\n" + text;
  return c;
}

const char* kOdo = "Odo II (850 – 901) was a count of Vik. He was the eldest son of Count Odo I and Adela of Brie. "
                   "He married Gisela of Arles in 880.";
const char* kAdela = "Adela of Brie (d. 12 June 890) was a noblewoman. She founded the abbey of Brie, where she is buried.";
const char* kGisela = "Gisela of Arles (862 – 930) was a countess. She was born in Arles, Provence.";

TEST(DirectAnswer, WalksTheRelationToTheNextPassage) {
  std::vector<Candidate> ctx = {passage("Odo II", kOdo), passage("Adela of Brie", kAdela)};
  DirectAnswer d = direct_answer(asked_fact("When did Odo Ii's mother die?"), ctx);
  ASSERT_TRUE(d.found) << d.why;
  EXPECT_EQ(d.text, "12 June 890");
  EXPECT_EQ(d.kind, "date");
  ASSERT_EQ(d.paths.size(), 1u);
  ASSERT_EQ(d.paths[0].size(), 3u);  // Odo II, his mother, her date of death
  EXPECT_EQ(d.paths[0][1].entity, "Adela of Brie");
  EXPECT_EQ(d.paths[0][1].relation, "mother");
  EXPECT_EQ(d.paths[0][1].passage, 1u);
  EXPECT_EQ(d.paths[0][1].source, 0u);  // said in Odo II's passage
  EXPECT_NE(d.paths[0][1].sentence.find("son of Count Odo I and Adela of Brie"), std::string::npos);
  EXPECT_TRUE(d.fetched.empty());
}

TEST(DirectAnswer, FetchesTheSecondHopsPassage) {
  std::vector<Candidate> ctx = {passage("Odo II", kOdo)};
  const AskedFact q = asked_fact("Where was Odo Ii's wife born?");
  DirectAnswer none = direct_answer(q, ctx);
  EXPECT_FALSE(none.found);
  EXPECT_EQ(none.why, "no passage is on Gisela of Arles");
  int asked = 0;
  FindHome find = [&](const std::string& name) -> std::vector<SearchHit> {
    ++asked;
    if (name != "Gisela of Arles") return {};
    return {passage("Gisela of Arles", kGisela).hit};
  };
  DirectAnswer d = direct_answer(q, ctx, find);
  ASSERT_TRUE(d.found) << d.why;
  EXPECT_EQ(d.text, "Arles, Provence");
  ASSERT_EQ(d.fetched.size(), 1u);
  EXPECT_EQ(walk_passage(d, ctx, d.paths[0].back().passage)->doc, "Gisela of Arles.md");
  EXPECT_GE(asked, 1);
}

TEST(DirectAnswer, ReadsTheRestOfTheDocumentWhenItsOpeningDoesNotSay) {
  // The opening chunk gives the dates; the place is in the document's second chunk, which the
  // context lacks: the walk fetches the rest of the document and reads it there.
  std::vector<Candidate> ctx = {passage("Ivo Brand", "Ivo Brand (1901 – 1970) was a chef.")};
  Candidate later = passage("Ivo Brand", "Brand retired to the coast and died in Nice in 1970.", 400);
  FindHome find = [&](const std::string& name) -> std::vector<SearchHit> {
    if (name != "Ivo Brand") return {};
    return {ctx[0].hit, later.hit};
  };
  const AskedFact q = asked_fact("Where did Ivo Brand die?");
  EXPECT_FALSE(direct_answer(q, ctx).found);
  DirectAnswer d = direct_answer(q, ctx, find);
  ASSERT_TRUE(d.found) << d.why;
  EXPECT_EQ(d.text, "Nice");
  ASSERT_EQ(d.fetched.size(), 1u);
  EXPECT_EQ(d.fetched[0].start, 400);
}

TEST(DirectAnswer, ComparesAndTellsSameness) {
  std::vector<Candidate> ctx = {
      passage("Gray Harbour", "Gray Harbour is a 1958 Finnish drama film directed by Olli Rask."),
      passage("Blue Fjord", "Blue Fjord is a 1949 Norwegian film directed by Tove Lind."),
      passage("Olli Rask", "Olli Rask (3 March 1920 – 1 May 1990) was a Finnish film director."),
      passage("Tove Lind", "Tove Lind (9 May 1911 – 2 July 1999) was a Norwegian film director. She was born in Bergen.")};
  DirectAnswer d = direct_answer(asked_fact("Which film came out first, Gray Harbour or Blue Fjord?"), ctx);
  ASSERT_TRUE(d.found) << d.why;
  EXPECT_EQ(d.text, "Blue Fjord");
  EXPECT_EQ(d.kind, "option");
  d = direct_answer(asked_fact("Which film has the director who was born later, Gray Harbour or Blue Fjord?"), ctx);
  ASSERT_TRUE(d.found) << d.why;
  EXPECT_EQ(d.text, "Gray Harbour");
  d = direct_answer(asked_fact("Who lived longer, Olli Rask or Tove Lind?"), ctx);
  ASSERT_TRUE(d.found) << d.why;
  EXPECT_EQ(d.text, "Tove Lind");
  d = direct_answer(asked_fact("Do both directors of films Gray Harbour and Blue Fjord have the same nationality?"), ctx);
  ASSERT_TRUE(d.found) << d.why;
  EXPECT_EQ(d.text, "no");
  // Finnish and Finland are one country.
  ctx.push_back(passage("Kallo", "Kallo is a village in Uusimaa, Finland."));
  d = direct_answer(asked_fact("Are Kallo and Olli Rask from the same country?"), ctx);
  ASSERT_TRUE(d.found) << d.why;
  EXPECT_EQ(d.text, "yes");
  // An entity without a passage: no answer, and why.
  d = direct_answer(asked_fact("Which film came out first, Gray Harbour or Red Moss?"), ctx);
  EXPECT_FALSE(d.found);
  EXPECT_EQ(d.why, "no passage is on Red Moss");
}

TEST(DirectAnswer, AskOpensWithTheDirectLineAndCitesTheWalk) {
  testing::TempDir dir;
  auto store = Store::open(dir.str());
  testing::put_text_document(*store, "o", "/c/Odo II.txt", {kOdo});
  testing::put_text_document(*store, "a", "/c/Adela of Brie.txt", {kAdela});
  testing::put_text_document(*store, "g", "/c/Gisela of Arles.txt", {kGisela});
  testing::put_text_document(*store, "x", "/c/Gardens.txt", {"Gardening needs patience, water and good soil."});
  AskResult r = testing::ask_with(*store, "When did Odo Ii's mother die?", {}, "none");
  ASSERT_TRUE(r.direct.found) << r.direct.why;
  EXPECT_TRUE(r.found);
  EXPECT_EQ(r.answer.rfind("12 June 890 [", 0), 0u) << r.answer;
  std::set<std::string> cited;
  for (const auto& c : r.citations) cited.insert(c.doc);
  EXPECT_TRUE(cited.count("Odo II.txt")) << r.answer;
  EXPECT_TRUE(cited.count("Adela of Brie.txt")) << r.answer;
  EXPECT_FALSE(cited.count("Gardens.txt"));
  // A question of no factoid form gets no direct line.
  AskResult g = testing::ask_with(*store, "What does gardening need?", {}, "none");
  EXPECT_FALSE(g.direct.found);
  EXPECT_EQ(g.direct.asked.form, AskedFact::Form::None);
}

}  // namespace
}  // namespace mmkg
