#include "text/fact_spans.h"

#include <gtest/gtest.h>

#include "text/asked_fact.h"

namespace mmkg {
namespace {

TEST(FactSpans, DatesInTheirUsualForms) {
  auto d = find_dates("She left on 4 July 1921, came back in March 1930 and died on October 2, 1950.");
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].text, "4 July 1921");
  EXPECT_EQ(d[0].year, 1921);
  EXPECT_EQ(d[0].month, 7);
  EXPECT_EQ(d[0].day, 4);
  EXPECT_EQ(d[1].text, "March 1930");
  EXPECT_EQ(d[1].day, 0);
  EXPECT_EQ(d[2].text, "October 2, 1950");
  // Not years: a count, a share, a longer number.
  EXPECT_TRUE(find_dates("It sold 1,456 copies to 52% of 12000 readers.").empty());
  EXPECT_TRUE(find_dates("You may go.").empty());
  FactDate a = find_dates("1901")[0], b = find_dates("3 May 1901")[0], c = find_dates("1 June 1901")[0];
  EXPECT_EQ(compare_dates(a, b), 0);  // a year alone compares by year
  EXPECT_LT(compare_dates(b, c), 0);
}

TEST(FactSpans, NamesAndPlaces) {
  std::string s = "The tune was recorded by Scottish fiddler Morag Lindqvist in Port of Spain, Trinidad, in 1960.";
  EXPECT_EQ(name_at(s, s.find("by") + 3), "Morag Lindqvist");
  EXPECT_EQ(place_at(s, s.find("Port")), "Port of Spain, Trinidad");
  EXPECT_EQ(place_at(s, s.find("Port"), 1), "Port of Spain");
  std::string t = "It was written by J. R. Ostrava and Ana de la Cruz.";
  EXPECT_EQ(name_at(t, t.find("J.")), "J. R. Ostrava");
  EXPECT_EQ(name_at(t, t.find("Ana")), "Ana de la Cruz");
  EXPECT_EQ(name_at(t, t.find("written")), "");
}

TEST(FactSpans, LifeDatesFromTheOpeningParenthesis) {
  LifeDates l = life_dates("Petra Voss (12 May 1890 – 3 June 1951) was a Dutch painter.");
  ASSERT_TRUE(l.born && l.died);
  EXPECT_EQ(l.born->text, "12 May 1890");
  EXPECT_EQ(l.died->text, "3 June 1951");
  l = life_dates("Harald of Vik (d. 20 April 901) was a chieftain.");
  EXPECT_FALSE(l.born);
  ASSERT_TRUE(l.died);
  EXPECT_EQ(l.died->year, 901);
  l = life_dates("Ivo Brand (born 1970) is a chef. He opened a bistro in 2001.");
  ASSERT_TRUE(l.born);
  EXPECT_EQ(l.born->year, 1970);
  EXPECT_FALSE(l.died);
  l = life_dates("Count Odo (835 –) ruled a march.");
  ASSERT_TRUE(l.born);
  EXPECT_EQ(l.born->year, 835);
  // Without a parenthesis: "born ... DATE", "died ... DATE".
  l = life_dates("Mira Holt is a sculptor. She was born on 2 March 1961 and died in 2019.");
  ASSERT_TRUE(l.born && l.died);
  EXPECT_EQ(l.born->day, 2);
  EXPECT_EQ(l.died->year, 2019);
}

TEST(FactSpans, PropertiesAsPassagesStateThem) {
  const std::string p =
      "# Lena Marsh\n\nLena Marsh (4 April 1902 – 9 May 1967) was a Canadian physician. She was born in Halifax, "
      "Nova Scotia. She was educated at McGill University and later taught at Dalhousie University. "
      "She died of pneumonia in Toronto in 1967.";
  EXPECT_EQ(read_property(p, FactProperty::BirthDate)->text, "4 April 1902");
  EXPECT_EQ(read_property(p, FactProperty::DeathDate)->text, "9 May 1967");
  EXPECT_EQ(read_property(p, FactProperty::BirthPlace)->text, "Halifax, Nova Scotia");
  EXPECT_EQ(read_property(p, FactProperty::DeathPlace)->text, "Toronto");
  EXPECT_EQ(read_property(p, FactProperty::Nationality)->text, "Canadian");
  EXPECT_EQ(read_property(p, FactProperty::CauseOfDeath)->text, "pneumonia");
  EXPECT_EQ(read_property(p, FactProperty::Education)->text, "McGill University");
  EXPECT_EQ(read_property(p, FactProperty::Employer)->text, "Dalhousie University");
  EXPECT_NE(read_property(p, FactProperty::BirthPlace)->sentence.find("born in Halifax"), std::string::npos);
  const std::string film = "Gray Harbour is a 1958 Finnish drama film directed by Olli Rask and Tove Lind.";
  EXPECT_EQ(read_property(film, FactProperty::Released)->text, "1958");
  EXPECT_EQ(read_property("Kallo is a village in Tarn County, Veldria.", FactProperty::Nationality)->text, "Veldria");
  // Places in the dated parenthesis; a compound nationality gives its first.
  const std::string q = "Tomas Rey (5 May 1901 in Lyon, Rhone – 2 June 1977 in Nice) was a French-Swiss poet.";
  EXPECT_EQ(read_property(q, FactProperty::BirthPlace)->text, "Lyon, Rhone");
  EXPECT_EQ(read_property(q, FactProperty::DeathPlace)->text, "Nice");
  EXPECT_EQ(read_property(q, FactProperty::Nationality)->text, "French");
  EXPECT_EQ(read_property("Brask is a village in the Aldo district of Veldria.", FactProperty::Nationality)->text, "Veldria");
  EXPECT_FALSE(read_property("Nothing is said here.", FactProperty::DeathDate));
  EXPECT_FALSE(read_property("", FactProperty::BirthPlace));
}

TEST(FactSpans, RelationsOfThePassageSubject) {
  const std::string film = "Gray Harbour is a 1958 Finnish drama film directed by Olli Rask and Tove Lind. "
                           "The music was composed by Eino Varg.";
  auto d = related_names(film, "director", "Gray Harbour");
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].name, "Olli Rask");
  EXPECT_EQ(d[1].name, "Tove Lind");
  ASSERT_FALSE(related_names(film, "composer", "Gray Harbour").empty());
  EXPECT_EQ(related_names(film, "composer", "Gray Harbour")[0].name, "Eino Varg");
  EXPECT_TRUE(related_names(film, "father", "Gray Harbour").empty());
  EXPECT_EQ(related_names("\"Slow Tide\" is a song written by Ines Moor in 1961.", "composer", "Slow Tide")[0].name,
            "Ines Moor");

  const std::string king = "Odo II was a count. He was the eldest son of Count Odo I and Adela of Brie. "
                           "He married Gisela of Arles in 880.";
  EXPECT_EQ(related_names(king, "father", "Odo II")[0].name, "Count Odo I");
  EXPECT_EQ(related_names(king, "mother", "Odo II")[0].name, "Adela of Brie");
  EXPECT_EQ(related_names(king, "wife", "Odo II")[0].name, "Gisela of Arles");
  // "wife of X" names the subject's husband, never its wife.
  EXPECT_TRUE(related_names("Gisela of Arles was the wife of Odo II.", "wife", "Gisela of Arles").empty());
  EXPECT_EQ(related_names("Gisela of Arles was the wife of Odo II.", "husband", "Gisela of Arles")[0].name, "Odo II");
  // The child's passage names the parent: the parent's child, read the other way.
  EXPECT_FALSE(names_as_inverse("Berta was a daughter of Odo II.", "child", "Odo II").empty());
  EXPECT_TRUE(names_as_inverse("Berta was a daughter of Odo III.", "child", "Odo II").empty());
  EXPECT_EQ(related_names("He is known for his friendship with Ada Brun, whom he married in 1918.", "wife", "Odo II")[0].name,
            "Ada Brun");
  EXPECT_EQ(passage_gender(king), 1);
  EXPECT_EQ(passage_gender("Adela of Brie was a noblewoman. She founded an abbey; her sons ruled."), -1);
  EXPECT_TRUE(same_name("Count Odo I", "Odo I"));
  EXPECT_TRUE(same_name("Dark Water (1999 film)", "dark water"));
  EXPECT_FALSE(same_name("Odo I", "Odo II"));
}

TEST(AskedFact, LookupsWalkTheirRelations) {
  AskedFact f = asked_fact("When did Odo Ii's mother die?");
  EXPECT_EQ(f.form, AskedFact::Form::Lookup);
  EXPECT_EQ(f.property, FactProperty::DeathDate);
  EXPECT_EQ(f.topic, "Odo Ii");
  EXPECT_EQ(f.chain, std::vector<std::string>({"mother"}));
  f = asked_fact("Where was the composer of film Gray Harbour born?");
  EXPECT_EQ(f.property, FactProperty::BirthPlace);
  EXPECT_EQ(f.topic, "Gray Harbour");
  EXPECT_EQ(f.chain, std::vector<std::string>({"composer"}));
  f = asked_fact("Who is Berta's paternal grandfather?");
  EXPECT_EQ(f.property, FactProperty::Identity);
  EXPECT_EQ(f.chain, std::vector<std::string>({"father", "father"}));
  f = asked_fact("What is the place of birth of the director of film Gray Harbour's father?");
  EXPECT_EQ(f.chain, std::vector<std::string>({"director", "father"}));
  EXPECT_EQ(f.topic, "Gray Harbour");
  EXPECT_EQ(asked_fact("Who is Odo Ii's mother-in-law?").chain, std::vector<std::string>({"spouse", "mother"}));
  // Not factoid lookups: a definition, a how-to.
  EXPECT_EQ(asked_fact("Who is Lena Marsh?").form, AskedFact::Form::None);
  EXPECT_EQ(asked_fact("How do I reset the pump?").form, AskedFact::Form::None);
  // A question that nests relations without end stops reading them (and does not overflow).
  std::string deep = "When did X";
  for (int i = 0; i < 5000; ++i) deep += "'s father";
  f = asked_fact(deep + " die?");
  EXPECT_EQ(f.form, AskedFact::Form::Lookup);
  EXPECT_EQ(f.chain.size(), 6u);
  EXPECT_EQ(asked_fact("").form, AskedFact::Form::None);
  EXPECT_EQ(asked_fact("?").form, AskedFact::Form::None);
}

TEST(AskedFact, ComparisonsAndSameness) {
  AskedFact f = asked_fact("Which film came out first, Gray Harbour or Blue Fjord?");
  EXPECT_EQ(f.form, AskedFact::Form::Choice);
  EXPECT_EQ(f.property, FactProperty::Released);
  EXPECT_TRUE(f.smallest);
  EXPECT_EQ(f.options, std::vector<std::string>({"Gray Harbour", "Blue Fjord"}));
  f = asked_fact("Which film has the director who was born later, Gray Harbour or Blue Fjord?");
  EXPECT_EQ(f.property, FactProperty::BirthDate);
  EXPECT_FALSE(f.smallest);
  EXPECT_EQ(f.chain, std::vector<std::string>({"director"}));
  f = asked_fact("Who lived longer, Lena Marsh or Petra Voss?");
  EXPECT_EQ(f.property, FactProperty::Lifespan);
  EXPECT_FALSE(f.smallest);
  f = asked_fact("Who was born first out of Lena Marsh and Petra Voss?");
  EXPECT_EQ(f.options, std::vector<std::string>({"Lena Marsh", "Petra Voss"}));
  f = asked_fact("Are Kallo and Bree both located in the same country?");
  EXPECT_EQ(f.form, AskedFact::Form::Same);
  EXPECT_EQ(f.property, FactProperty::Nationality);
  EXPECT_EQ(f.options, std::vector<std::string>({"Kallo", "Bree"}));
  f = asked_fact("Do both directors of films Gray Harbour and Blue Fjord have the same nationality?");
  EXPECT_EQ(f.form, AskedFact::Form::Same);
  EXPECT_EQ(f.chain, std::vector<std::string>({"director"}));
  EXPECT_EQ(f.options, std::vector<std::string>({"Gray Harbour", "Blue Fjord"}));
  EXPECT_EQ(asked_fact("Which option is faster, --fast or --slow?").form, AskedFact::Form::None);
}

}  // namespace
}  // namespace mmkg

