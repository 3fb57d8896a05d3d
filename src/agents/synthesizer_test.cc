// The extractive synthesizer through ask() on small stores of its own: the definition opens the
// answer, a part gets a sentence each, numbers asked for are quoted, only evidence is cited, and
// "the documents do not say" when nothing answers.
#include "agents/synthesizer.h"
#include "agents/answerable.h"
#include "agents/sentence_select.h"
#include "core/error.h"

#include <gtest/gtest.h>

#include "agents/ask.h"
#include "support/ask_fixtures.h"
#include "support/store_fixtures.h"
#include "support/temp_dir.h"
#include "store/store.h"

namespace mmkg {
namespace {

class Extractive : public ::testing::Test {
 protected:
  void SetUp() override {
    store = Store::open(dir.str());
    mmkg::testing::put_text_document(
        *store, "t1", "/c/turbines.txt",
        {"Steam turbines are seen in most power stations and in large ships around the world.",
         "A steam turbine is a machine that extracts thermal energy from pressurized steam and turns it into "
         "rotary motion. The blades are made of nickel alloys.",
         "R> fit <- turbine_model(steam ~ load, data = plant)\nThe model fits the steam load of the plant well."});
    mmkg::testing::put_text_document(
        *store, "g1", "/c/generators.txt",
        {"The generator of the plant delivers 350 megawatts at full steam load.",
         "Generators are cooled with hydrogen because hydrogen carries heat away far better than air.",
         "Operators inspect the cooling circuit of every generator once a week."});
    mmkg::testing::put_text_document(
        *store, "h1", "/c/history.txt",
        {"Charles Parsons built the first practical steam turbine in 1884 for generating electricity.",
         "Gardening needs patience, water and good soil for tomatoes to grow."});
  }
  AskResult ask_bm25(const std::string& q) { return testing::ask_with(*store, q, {}, "none"); }
  testing::TempDir dir;
  std::unique_ptr<Store> store;
};

TEST_F(Extractive, DefinitionQuestionOpensWithTheDefinition) {
  AskResult r = ask_bm25("What is a steam turbine?");
  ASSERT_TRUE(r.found) << r.answer;
  EXPECT_EQ(r.answer.rfind("A steam turbine is a machine that extracts thermal energy", 0), 0u) << r.answer;
}

// A question that sets the scene in a statement before it asks: the statement's words find the
// passages, but the sentence that answers is the one for what is asked, not the one that repeats
// the scene.
TEST_F(Extractive, AQuestionAfterASceneIsAnsweredForWhatItAsks) {
  AskResult r = ask_bm25(
      "The generator of the plant delivers 350 megawatts at full steam load, and operators inspect its cooling "
      "circuit once a week. What carries the heat away?");
  ASSERT_TRUE(r.found) << r.answer;
  EXPECT_EQ(r.answer.rfind("Generators are cooled with hydrogen", 0), 0u) << r.answer;
}

TEST(ExtractiveMarkup, WikiHeadingsAndBoldMarkersAreNotQuoted) {
  testing::TempDir dir;
  auto store = Store::open(dir.str());
  mmkg::testing::put_text_document(
      *store, "w1", "/c/engines_wiki.txt",
      {"====== Steam Engine ====== The **steam engine** is a heat engine that performs mechanical work using "
       "steam as its working fluid. ===== History ===== Early engines pumped water out of mines."});
  mmkg::testing::put_text_document(*store, "w2", "/c/boats.txt",
                                   {"Boats on the river were later driven by steam engines and paddles."});
  AskResult r = testing::ask_with(*store, "What is a steam engine?", {}, "none");
  ASSERT_TRUE(r.found) << r.answer;
  EXPECT_EQ(r.answer.rfind("The steam engine is a heat engine that performs mechanical work", 0), 0u) << r.answer;
  EXPECT_EQ(r.answer.find("=="), std::string::npos) << r.answer;
  EXPECT_EQ(r.answer.find("**"), std::string::npos) << r.answer;
  // The citation still quotes the chunk verbatim (its bold markers kept, its heading left out).
  ASSERT_FALSE(r.citations.empty());
  EXPECT_EQ(r.citations[0].quote.rfind("The **steam engine** is a heat engine", 0), 0u) << r.citations[0].quote;
  EXPECT_NE(r.citations[0].text.find(r.citations[0].quote.substr(0, r.citations[0].quote.find(" … "))), std::string::npos);
}

TEST_F(Extractive, EachPartGetsACitedSentenceFromItsOwnPassage) {
  AskResult r = ask_bm25("Why are generators cooled with hydrogen, and who built the first practical steam turbine?");
  ASSERT_TRUE(r.found) << r.answer;
  EXPECT_NE(r.answer.find("carries heat away"), std::string::npos) << r.answer;
  EXPECT_NE(r.answer.find("Charles Parsons"), std::string::npos) << r.answer;
  std::set<std::string> docs;
  for (auto& c : r.citations) docs.insert(c.doc);
  EXPECT_EQ(docs, (std::set<std::string>{"generators.txt", "history.txt"}));
}

TEST_F(Extractive, NumberQuestionQuotesANumber) {
  AskResult r = ask_bm25("How many megawatts does the generator deliver at full steam load?");
  ASSERT_TRUE(r.found) << r.answer;
  EXPECT_EQ(r.answer.rfind("The generator of the plant delivers 350 megawatts", 0), 0u) << r.answer;
}

TEST_F(Extractive, CitesOnlyPassagesItQuotes) {
  AskResult r = ask_bm25("How often do operators inspect the cooling circuit of the generator?");
  ASSERT_TRUE(r.found) << r.answer;
  ASSERT_EQ(r.citations.size(), 1u) << r.answer;
  EXPECT_EQ(r.citations[0].chunk_id, "g1-2");
  for (auto& c : r.citations) EXPECT_NE(c.text.find(c.quote.substr(0, 30)), std::string::npos);
}

TEST_F(Extractive, AnAnaphorBringsTheSentenceItPointsTo) {
  mmkg::testing::put_text_document(
      *store, "s1", "/c/safety.txt",
      {"Operators first vent the pressure vessel through the relief line. This step prevents the boiler from "
       "bursting when the valves stick.",
       "The gauge reading is corrected for the altitude of the plant as follows:\n\n$$p = p_0 - h$$\n\nThis "
       "correction keeps the gauge from overstating the pressure at high altitude."});
  AskResult r = ask_bm25("What prevents the boiler from bursting when the valves stick?");
  ASSERT_TRUE(r.found) << r.answer;
  EXPECT_EQ(r.answer.rfind("Operators first vent the pressure vessel", 0), 0u) << r.answer;
  EXPECT_EQ(r.citations.size(), 1u);
  // Across an equation, to the sentence that introduces it.
  AskResult g = ask_bm25("What keeps the gauge from overstating the pressure at high altitude?");
  ASSERT_TRUE(g.found) << g.answer;
  EXPECT_EQ(g.answer.rfind("The gauge reading is corrected for the altitude", 0), 0u) << g.answer;
}

TEST_F(Extractive, NeverQuotesCode) {
  AskResult r = ask_bm25("How does the turbine model fit the steam load data of the plant?");
  ASSERT_TRUE(r.found) << r.answer;
  EXPECT_EQ(r.answer.find("<-"), std::string::npos) << r.answer;
}

TEST_F(Extractive, UnknownNameOrUncoveredQuestionIsNotAnswered) {
  AskResult r = ask_bm25("Which Siemens turbine did Parsons buy in 1884?");
  EXPECT_FALSE(r.found) << r.answer;
  EXPECT_EQ(r.answer, "The documents do not say: no passage mentions Siemens.") << "says why, in the question's words";
  AskResult u = ask_bm25("What is the boiling point of liquid nitrogen on a mountain?");
  EXPECT_FALSE(u.found) << u.answer;
}

// A "how many" of things the passages discuss but never count: not answered by a number of
// something else (the generator's megawatts); the refusal quotes and cites what the passages do
// say. A number of the asked unit is quoted.
TEST_F(Extractive, ATypedQuantityIsAnsweredOnlyByAValueOfItsType) {
  AskResult r = ask_bm25("How many blades does a steam turbine of the plant have?");
  EXPECT_FALSE(r.found) << r.answer;
  EXPECT_EQ(r.answer.rfind("The documents do not say: no passage gives the number asked for", 0), 0u) << r.answer;
  EXPECT_NE(r.answer.find("The nearest passages say: "), std::string::npos) << r.answer;
  ASSERT_FALSE(r.citations.empty());
  EXPECT_NE(r.answer.find("The blades are made of nickel alloys. [1]"), std::string::npos) << r.answer;
  EXPECT_EQ(r.citations[0].doc, "turbines.txt");
  AskResult m = ask_bm25("How many megawatts does the generator of the plant deliver at full steam load?");
  ASSERT_TRUE(m.found) << m.answer;
  EXPECT_NE(m.answer.find("350 megawatts"), std::string::npos) << m.answer;
}

// A store of its own holding the given documents, asked without a model.
struct SmallStore {
  testing::TempDir dir;
  std::unique_ptr<Store> store = Store::open(dir.str());
  SmallStore& doc(const std::string& id, const std::string& path, const std::vector<std::string>& chunks) {
    mmkg::testing::put_text_document(*store, id, path, chunks);
    return *this;
  }
  AskResult ask(const std::string& q, const AskOptions& o = {}) { return testing::ask_with(*store, q, o, "none"); }
};

TEST(ExtractiveSentences, AStatementBeforeAnEquationIsQuotedAndALabelIsNot) {
  SmallStore st;
  st.doc("p1", "/c/pumps.txt",
      {"Priming: Fill the pump casing with about 20 litres of water before starting the feed pump:\n\n$$V = 20$$\n\n"
       "Benefits:\n\n- quieter start",
       "Feed pumps are driven by electric motors in most plants."});
  AskResult r = st.ask("How much water goes into the feed pump casing before starting it?");
  ASSERT_TRUE(r.found) << r.answer;
  EXPECT_NE(r.answer.find("Fill the pump casing with about 20 litres of water before starting the feed pump. [1]"),
            std::string::npos)
      << "a statement that ends in ':' answers, with a full stop: " << r.answer;
  EXPECT_EQ(r.answer.find("Benefits"), std::string::npos) << r.answer;
}

TEST(ExtractiveSentences, AnAnaphorIsScoredWithItsAntecedentAndFollowsIt) {
  SmallStore st;
  st.doc("s1", "/c/scaling.txt",
      {"Boiler scale builds up quickly when hard feed water is heated in long pipes. This has motivated "
       "softening plants, chemical dosing and magnetic conditioners.",
       "Hard feed water also stains the turbine blades over many years."});
  // One sentence per part, none added for detail: the anaphor must win on its own score, with
  // its antecedent's words, for the answer to hold what motivated the remedies.
  AskOptions o;
  o.synth.max_sentences = 1;
  AskResult r = st.ask("Which remedies were motivated by boiler scale from hard feed water?", o);
  ASSERT_TRUE(r.found) << r.answer;
  EXPECT_NE(r.answer.find("This has motivated softening plants"), std::string::npos) << r.answer;
  EXPECT_LT(r.answer.find("Boiler scale builds up"), r.answer.find("This has motivated")) << "antecedent first: " << r.answer;
  EXPECT_EQ(r.citations.size(), 1u);
}

TEST(ExtractiveSentences, AReasonSaidAfterWhatItExplainsFollowsIt) {
  SmallStore st;
  st.doc("d1", "/c/valves.txt",
      {"A relief valve is fitted to the steam drum above the water line:\n\n$$p < p_{max}$$\n\nwhere p is the drum "
       "pressure. This keeps the drum from bursting when the burners overfire.",
       "Valves are inspected every spring by the plant crew."});
  AskResult r = st.ask("What is the point of fitting a relief valve to the steam drum?");
  ASSERT_TRUE(r.found) << r.answer;
  EXPECT_NE(r.answer.find("This keeps the drum from bursting"), std::string::npos) << r.answer;
  EXPECT_EQ(r.answer.rfind("A relief valve is fitted to the steam drum", 0), 0u) << r.answer;
}

TEST(ExtractiveAnswerable, AParaphraseInGeneralWordsIsAnsweredByThePassageWithItsDomainWords) {
  SmallStore st;
  st.doc("k1", "/c/curves.txt",
      {"Some areas such as oncology always plot the survival curve downhill, while others such as cardiology "
       "prefer the event rate uphill.",
       "The clinical staff arrive early.", "The field team writes reports.", "Nurses draw blood at dawn.",
       "Nurses usually tend to the patients first, going from room to room before the doctors' round.",
       "Kaplan-Meier curves are step functions that drop at each death."});
  st.doc("k2", "/c/wards.txt",
                                   {"Patients on the ward tend to walk in the garden when the weather is good."});
  AskResult r = st.ask("Which clinical fields usually tend to draw survival curves going uphill rather than downhill in their reports?");
  ASSERT_TRUE(r.found) << "general words (clinical, fields, draw, going) are how the question paraphrases: " << r.answer;
  EXPECT_NE(r.answer.find("cardiology"), std::string::npos) << r.answer;
}

TEST(ExtractiveSentences, EachPartThatAsksForADefinitionGetsOne) {
  SmallStore st;
  st.doc("b1", "/c/plant.txt",
         {"Operators check the boiler and the condenser of the steam plant every morning before the shift starts.",
          "The \xE2\x80\x9C" "boiler\xE2\x80\x9D of the steam plant is the vessel in which water is heated into steam.",
          "The condenser is a heat exchanger that turns the exhaust steam back into water.",
          "Spare parts for the boiler and the condenser of the steam plant are kept in the store room."});
  AskResult r = st.ask("In a steam plant, what is meant by the boiler, and what by the condenser?");
  ASSERT_TRUE(r.found) << r.answer;
  EXPECT_NE(r.answer.find("is the vessel in which water is heated"), std::string::npos) << r.answer;
  EXPECT_NE(r.answer.find("is a heat exchanger that turns"), std::string::npos) << r.answer;
  EXPECT_EQ(r.answer.find("Operators check"), std::string::npos) << r.answer;
}

TEST(ExtractiveAnswerable, ANumberAskedForNeedsASentenceWithANumberThatSpeaksToIt) {
  const std::vector<std::string> subject = {
      "The veterans' lung cancer trial compared a standard and a test chemotherapy arm; the median survival "
      "time of each treatment arm is shown by Kaplan-Meier curves in the trial report.",
      "The veterans' lung cancer trial data set has 137 rows, one per patient, with the survival time in days.", "Karnofsky scores measure how well patients manage daily life."};
  const std::string q = "What is the median survival time in each treatment arm of the veterans' lung cancer trial?";
  SmallStore without;
  without.doc("v1", "/c/veterans.txt", subject);
  AskResult r = without.ask(q);
  EXPECT_FALSE(r.found) << "the subject is there, the figure is not: " << r.answer;
  EXPECT_NE(r.answer.find("no passage gives the number asked for"), std::string::npos) << r.answer;
  SmallStore with;
  auto chunks = subject;
  chunks.push_back("In the veterans' lung cancer trial the median survival time was 103 days in the standard treatment arm and 52 days in "
                   "the test arm.");
  with.doc("v1", "/c/veterans.txt", chunks);
  AskResult f = with.ask(q);
  ASSERT_TRUE(f.found) << f.answer;
  EXPECT_NE(f.answer.find("103 days"), std::string::npos) << f.answer;
}

TEST(ExtractiveAnswerable, AFittedModelDecidesInsteadOfTheRuleFromTheSameFeatures) {
  const std::vector<std::string> subject = {
      "The veterans' lung cancer trial compared a standard and a test chemotherapy arm; the median survival "
      "time of each treatment arm is shown by Kaplan-Meier curves in the trial report.",
      "The veterans' lung cancer trial data set has 137 rows, one per patient, with the survival time in days."};
  const std::string q = "What is the median survival time in each treatment arm of the veterans' lung cancer trial?";
  SmallStore st;
  st.doc("v1", "/c/veterans.txt", subject);
  AskResult rule = st.ask(q);
  ASSERT_FALSE(rule.found);  // the rule: the number asked for is missing
  ASSERT_EQ(rule.answerability.size(), kAnswerFeatures);
  EXPECT_GT(rule.answerability[static_cast<size_t>(AnswerFeature::NumberGap)], 1.0 / 3.0);
  EXPECT_GT(rule.answerability[static_cast<size_t>(AnswerFeature::Coverage)], 0.3);
  // A model that weighs coverage alone answers it; one with a cut above any score refuses it,
  // saying the number is what is missing.
  auto model = FittedModel::parse(R"({"format": "mmkg-answerable", "version": 1, "features": ["coverage"],
      "model": {"bias": 0, "weights": [1], "threshold": 0.3}})", "m", "answerable", answer_feature_names());
  AskOptions o;
  o.synth.answerable = &model->full();
  AskResult fitted = st.ask(q, o);
  EXPECT_TRUE(fitted.found) << fitted.answer;
  EXPECT_NEAR(fitted.answerability_score, fitted.answerability[0], 1e-12);
  LinearModel strict = model->full();
  strict.threshold = 2.0;
  o.synth.answerable = &strict;
  AskResult refused = st.ask(q, o);
  EXPECT_FALSE(refused.found);
  EXPECT_NE(refused.answer.find("no passage gives the number asked for"), std::string::npos) << refused.answer;
  EXPECT_THROW(FittedModel::parse(R"({"format": "mmkg-answerable", "version": 1, "features": ["bm25_z"],
      "model": {"bias": 0, "weights": [1]}})", "m", "answerable", answer_feature_names()), UsageError);
}

TEST(ExtractiveSentences, ASentenceSpeaksAboutTheSubjectItsPassageNames) {
  // The passage names its subject once; the sentence that answers says "the curve". Counted
  // with its passage's words, it outranks a sentence of another passage that shares the
  // question's other words but is about something else.
  SmallStore st;
  st.doc("n1", "/c/hazard.txt",
         {"The Nelson estimate of the cumulative hazard starts at zero and steps up at each failure of a "
          "pump. Plotted over the years of service, the curve rises steadily for every pump. Reliability "
          "engineers know the curve as the mean cumulative function."});
  st.doc("n2", "/c/engines.txt",
         {"Reliability engineers call a worn engine part a write-off when repairs cost more than a new one."});
  const std::string q = "What do reliability engineers call the Nelson estimate of failures?";
  AskResult r = st.ask(q);
  ASSERT_TRUE(r.found) << r.answer;
  EXPECT_NE(r.answer.find("mean cumulative function"), std::string::npos) << r.answer;
  EXPECT_EQ(r.answer.find("write-off"), std::string::npos) << r.answer;
  AskOptions own_words_only;
  own_words_only.synth.passage_weight = 0;
  AskResult o = st.ask(q, own_words_only);
  EXPECT_EQ(o.answer.find("mean cumulative function"), std::string::npos)
      << "the fixture must need the passage's words: " << o.answer;
}

TEST(ExtractiveSentences, APartThatRefersBackWithAPronounAsksAboutThePartBefore) {
  // "what do reliability engineers call it?": "it" is the Nelson estimate, so the part is
  // answered by what the estimate is called, not by what engineers call something else.
  SmallStore st;
  st.doc("n1", "/c/hazard.txt",
         {"The Nelson hazard estimate counts the expected number of failures of a pump over time.",
          "In reliability work the Nelson hazard estimate of a pump is also known as the mean cumulative function."});
  st.doc("n2", "/c/engines.txt",
         {"Reliability engineers call a worn engine part a write-off when repairs cost more than a new one."});
  AskOptions o;
  o.synth.max_sentences = 2;
  AskResult r = st.ask("What does the Nelson hazard estimate count for a pump, and what do reliability engineers call it?", o);
  ASSERT_TRUE(r.found) << r.answer;
  EXPECT_NE(r.answer.find("expected number of failures"), std::string::npos) << r.answer;
  EXPECT_NE(r.answer.find("mean cumulative function"), std::string::npos) << r.answer;
  EXPECT_EQ(r.answer.find("write-off"), std::string::npos) << r.answer;
}

TEST(ExtractiveSentences, AQuestionTheTextAsksIsNoAnswer) {
  SmallStore st;
  st.doc("q1", "/c/lids.txt",
         {"How many steel bolts hold the boiler lid in place? The boiler lid is held in place by 12 steel bolts."});
  AskResult r = st.ask("How many steel bolts hold the boiler lid in place?");
  ASSERT_TRUE(r.found) << r.answer;
  EXPECT_EQ(r.answer.rfind("The boiler lid is held in place by 12 steel bolts.", 0), 0u) << r.answer;
  EXPECT_EQ(r.answer.find('?'), std::string::npos) << r.answer;
}

// A sentence of the kind a part asks for (a stated reason for "why", a figure's label for "which
// figure") opens the one-sentence answer to `q` over `chunks`, and does not with the rule off
// (unshaped_share 1: the fixture needs the rule).
void expect_shape_wins(const std::vector<std::string>& chunks, const std::string& q, const std::string& opening) {
  SmallStore st;
  st.doc("s1", "/c/plant.txt", chunks);
  AskOptions one;
  one.synth.max_sentences = 1;
  AskResult r = st.ask(q, one);
  ASSERT_TRUE(r.found) << r.answer;
  EXPECT_EQ(r.answer.rfind(opening, 0), 0u) << r.answer;
  AskOptions no_rule = one;
  no_rule.synth.unshaped_share = 1;
  AskResult o = st.ask(q, no_rule);
  EXPECT_EQ(o.answer.rfind(opening, 0), std::string::npos) << "the fixture must need the rule: " << o.answer;
}

TEST(ExtractiveSentences, AWhyPartPrefersASentenceThatStatesAReason) {
  // The sentence that restates the question's words says what the towers are, not why; the one
  // with "because" answers it, though it shares fewer of the question's words.
  expect_shape_wins({"The cooling towers of a steam plant are built from reinforced concrete shells.",
                     "Cooling towers at a plant are tall because warm air rises inside them and pulls fresh air in at "
                     "the base.",
                     "Gardening needs patience, water and good soil for tomatoes to grow."},
                    "Why are the cooling towers of a steam plant built so tall?",
                    "Cooling towers at a plant are tall because warm air rises");
}

TEST(ExtractiveSentences, ASecondPassageIsCitedOnlyForThePartsOwnWords) {
  // "or is another tool needed?": the gloves sentence shares the subject and "needs", not what the
  // part asks (a tool); it is no evidence, so its passage is not cited. The condenser sentence
  // holds the words only its part has, so its passage is.
  SmallStore st;
  st.doc("b1", "/c/boiler.txt", {"The boiler of the steam plant is fed with softened water from the treatment tank."});
  st.doc("b2", "/c/crew.txt", {"The steam plant crew needs gloves in the boiler room during the winter."});
  st.doc("b3", "/c/condenser.txt", {"The condenser is cleaned every month by the night shift."});
  st.doc("b4", "/c/notes.txt", {"Tool list.", "Visitors need badges."});  // "tool" and "need" in the corpus
  const std::string q = "What is the boiler of the steam plant fed with, or is another tool needed?";
  AskResult r = st.ask(q);
  ASSERT_TRUE(r.found) << r.answer;
  EXPECT_NE(r.answer.find("softened water"), std::string::npos) << r.answer;
  EXPECT_EQ(r.answer.find("gloves"), std::string::npos) << r.answer;
  EXPECT_EQ(r.citations.size(), 1u) << r.answer;
  AskOptions no_rule;
  no_rule.synth.own_part_share = 0;
  AskResult o = st.ask(q, no_rule);
  EXPECT_NE(o.answer.find("gloves"), std::string::npos) << "the fixture must need the rule: " << o.answer;
  AskResult two = st.ask("What is the boiler of the steam plant fed with, and what does the night shift clean every month?");
  ASSERT_TRUE(two.found) << two.answer;
  EXPECT_NE(two.answer.find("The condenser is cleaned"), std::string::npos) << two.answer;
  EXPECT_EQ(two.citations.size(), 2u) << two.answer;
}

TEST(ExtractiveSentences, AWhichFigurePartPrefersASentenceThatNamesAFigure) {
  expect_shape_wins({"The boiler pressure of the steam plant changes over a working day between 10 and 12 bar.",
                     "Figure 3 shows the boiler pressure over the day, with the night shift shaded.",
                     "Gardening needs patience, water and good soil for tomatoes to grow."},
                    "Which figure shows how the boiler pressure of the steam plant changes over a working day?",
                    "Figure 3 shows the boiler pressure");
}

}  // namespace
}  // namespace mmkg

namespace mmkg {
namespace {

// Issue 33: a fitted selector picks each part's sentence from the features of sentence_select.h,
// the hand-set score among them; eval --features records every candidate's row.
TEST(ExtractiveSentences, AFittedSelectorPicksThePartsSentenceAndTheRowsAreRecorded) {
  SmallStore st;
  st.doc("z1", "/c/zorblium.txt",
         {"Zorblium boils at 451 degrees under normal pressure in the laboratory. Zorblium is a pale metal "
          "mined in Norway, and molten zorblium boils quickly once heated."});
  const std::string q = "At what temperature does zorblium boil?";
  AskOptions o;
  o.synth.sentence_rows = true;
  AskResult hand = st.ask(q, o);
  ASSERT_TRUE(hand.found) << hand.answer;
  EXPECT_EQ(hand.answer.rfind("Zorblium boils at 451", 0), 0u) << hand.answer;
  ASSERT_GE(hand.sentence_rows.size(), 2u);
  for (const auto& r : hand.sentence_rows) {
    ASSERT_EQ(r.x.size(), kSelectFeatures);
    EXPECT_EQ(r.part, 0u);
  }
  EXPECT_EQ(hand.sentence_rows[0].x[static_cast<size_t>(SelectFeature::First)], 1.0);
  EXPECT_EQ(hand.sentence_rows[1].x[static_cast<size_t>(SelectFeature::First)], 0.0);
  // A selector that prefers a passage's later sentences picks the second one first.
  auto model = FittedModel::parse(R"({"format": "mmkg-selector", "version": 1, "features": ["first"],
      "model": {"bias": 0, "weights": [-1]}})", "m", "selector", select_feature_names());
  o.synth.sentence_rows = false;
  o.synth.selector = &model->full();
  AskResult fitted = st.ask(q, o);
  ASSERT_TRUE(fitted.found) << fitted.answer;
  EXPECT_EQ(fitted.answer.rfind("Zorblium is a pale metal", 0), 0u) << fitted.answer;
  EXPECT_TRUE(fitted.sentence_rows.empty());
}

}  // namespace
}  // namespace mmkg
