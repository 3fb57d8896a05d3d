#include "text/asked_quantity.h"

#include <gtest/gtest.h>

#include "text/question_shape.h"

namespace mmkg {
namespace {

std::vector<std::string> focus(std::string_view q) { return asked_quantity(q).focus; }
QuantityType type(std::string_view q) { return asked_quantity(q).type; }
bool supplies(std::string_view sentence, std::string_view q) {
  return supplies_quantity(sentence, asked_quantity(q), q);
}

TEST(AskedQuantity, ReadsTheTypeAndFocusOfAQuantityQuestion) {
  EXPECT_EQ(type("How many valves does the pump have?"), QuantityType::Count);
  EXPECT_EQ(focus("How many valves does the pump have?"), (std::vector<std::string>{"valves"}));
  EXPECT_EQ(focus("How many spare brass valves ship with it?"), (std::vector<std::string>{"spare", "brass", "valves"}));
  EXPECT_EQ(type("How many minutes does the kiln take to cool?"), QuantityType::Span);
  EXPECT_EQ(type("For how long are the logs kept?"), QuantityType::Span);
  EXPECT_EQ(type("How old were the divers?"), QuantityType::Age);
  EXPECT_EQ(type("By what factor is the new kiln faster?"), QuantityType::Ratio);
  EXPECT_EQ(type("How much faster is the new kiln?"), QuantityType::Ratio);
  EXPECT_EQ(type("Which version of the firmware added logging?"), QuantityType::Version);
  EXPECT_EQ(focus("Which version of the firmware added logging?"), (std::vector<std::string>{"version", "firmware"}));
  EXPECT_EQ(type("Which UDP port does the beacon use?"), QuantityType::Measure);
  EXPECT_EQ(focus("Which UDP port does the beacon use?"), (std::vector<std::string>{"udp", "port"}));
  // The abstract head gives way to its of-phrase; generic modifiers are no focus.
  EXPECT_EQ(focus("What is the maximum number of hops a beacon forwards?"), (std::vector<std::string>{"hops"}));
  EXPECT_EQ(focus("What default drying tolerance does the kiln use?"), (std::vector<std::string>{"drying", "tolerance"}));
}

TEST(AskedQuantity, UntypedQuestionsAskNoQuantity) {
  EXPECT_EQ(type("Is there a limit to how many valves a pump can hold?"), QuantityType::None) << "yes/no";
  EXPECT_EQ(type("What value is it?"), QuantityType::None) << "names only the quantity";
  EXPECT_EQ(type("In which year did the kiln open?"), QuantityType::None) << "a date";
  EXPECT_EQ(type("How strongly does heat change the glaze?"), QuantityType::None);
  EXPECT_EQ(type("Which library parses the logs?"), QuantityType::None);
  EXPECT_EQ(type("How many get dropped?"), QuantityType::None);
}

TEST(AskedQuantity, TheValueMustBeOfTheAskedTypeBesideTheFocus) {
  const char* count = "How many valves does the pump have?";
  EXPECT_TRUE(supplies("The pump has 12 valves and one inlet.", count));
  EXPECT_TRUE(supplies("The pump's valves (default 4) open in turn.", count));
  EXPECT_FALSE(supplies("The pump weighs 12 kg and its valves are brass.", count)) << "a number of something else";
  EXPECT_FALSE(supplies("Figure 3 shows the valves.", count)) << "a label";
  EXPECT_FALSE(supplies("At level 0.05 the valves close.", count)) << "a count is a whole number";
  EXPECT_FALSE(supplies("Valves: the SHA-1 names of the parts.", count)) << "a number joined to a name";
  EXPECT_TRUE(supplies("A sample of 1,456 persons answered.", "How many people answered the survey?"));

  const char* span = "How many minutes does the kiln take to cool?";
  EXPECT_TRUE(supplies("The kiln cools in 45 minutes.", span));
  EXPECT_TRUE(supplies("Cooling takes 90min at most.", span));
  EXPECT_FALSE(supplies("Cooling takes 90s at most.", span)) << "seconds are no count of minutes";
  EXPECT_FALSE(supplies("The kiln holds 45 pots while it cools.", span));
  EXPECT_FALSE(supplies("The kiln was fired on 3 days.", span)) << "days are no count of minutes";
  EXPECT_TRUE(supplies("The logs are kept for 30 days.", "How long are logs kept?"));
  EXPECT_TRUE(supplies("Logs are kept until the disk is cleaned.", "How long are logs kept?"));
  EXPECT_FALSE(supplies("Logs are kept until the disk is cleaned.", span)) << "an end is no count of minutes";

  EXPECT_TRUE(supplies("The divers were aged 20 to 35.", "How old were the divers?"));
  EXPECT_TRUE(supplies("Each diver was 34 years old.", "How old were the divers?"));
  EXPECT_FALSE(supplies("The 12 divers dived to 30 m.", "How old were the divers?"));

  const char* ratio = "By what factor is the new kiln faster?";
  EXPECT_TRUE(supplies("The new kiln is 3 times faster.", ratio));
  EXPECT_TRUE(supplies("It fires 2.4-fold faster.", ratio));
  EXPECT_TRUE(supplies("It is twice as fast.", ratio));
  EXPECT_TRUE(supplies("It is an order of magnitude faster.", ratio));
  EXPECT_FALSE(supplies("The new kiln fires 40 pots faster than the old one did in 2019.", ratio));

  const char* version = "Which version of the firmware added logging?";
  EXPECT_TRUE(supplies("Logging came with firmware 4.2.0.", version));
  EXPECT_TRUE(supplies("Since firmware-1.1-7 the device logs.", version));
  EXPECT_TRUE(supplies("Logging was added in version 5.", version));
  EXPECT_FALSE(supplies("The firmware logs 12 events.", version)) << "a count is no version";

  EXPECT_TRUE(supplies("The glaze melts at 1200 degrees in the kiln.", "At what temperature does the glaze melt?"));
  EXPECT_FALSE(supplies("The glaze melts after 3 firings.", "At what temperature does the glaze melt?"));
  EXPECT_TRUE(supplies("Fill the tank with about 20 litres of water.", "How much water goes into the tank?"));
  EXPECT_EQ(type("How much water goes into the tank?"), QuantityType::Measure) << "water is no comparative";

  const char* port = "Which UDP port does the beacon use?";
  EXPECT_TRUE(supplies("The beacon listens on UDP port 5353.", port));
  EXPECT_FALSE(supplies("The beacon sends 3 packets; its port is configurable.", "Which UDP port does it use?"))
      << "too far from the focus";
  EXPECT_FALSE(supplies("The beacon uses port 5353.", "Does the beacon use port 5353?")) << "not asked";
}

TEST(AskedQuantity, ATypedQuantityMakesThePartANumberPart) {
  auto ps = question_parts("Which UDP port does the beacon use?");
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].kind, AnswerKind::Number);
  EXPECT_EQ(ps[0].quantity.type, QuantityType::Measure);
  ps = question_parts("What is the maximum frame length that the link accepts?");
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].kind, AnswerKind::Number);
}

}  // namespace
}  // namespace mmkg
