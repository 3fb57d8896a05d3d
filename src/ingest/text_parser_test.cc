// Tests for the plain-text parser: paragraph joining, lists, heading cues, titles, limits.
#include <gtest/gtest.h>

#include "support/parser_fixtures.h"

#include <chrono>
#include <string>

#include "core/error.h"
#include "ingest/parser.h"

namespace mmkg {
namespace {

ParsedDocument text_parse(const std::string& text) { return make_text_parser()->parse("t.txt", text); }

using testing::render_blocks;

const std::string kPara =
    "This paragraph is long enough to count as body text under a heading, because it says a "
    "few things in complete sentences.";

TEST(TextParserTest, NameAndFormat) {
  auto p = make_text_parser();
  EXPECT_STREQ(p->name(), "text");
  EXPECT_EQ(text_parse("Hello there.").format, "text");
}

TEST(TextParserTest, JoinsWrappedProseAndSplitsParagraphs) {
  const auto d = text_parse(
      "The first paragraph is hard-wrapped at a\n"
      "reasonable width, as editors like to do, and\n"
      "ends here.\n"
      "\n"
      "Second   paragraph\twith  odd   spacing.\n");
  EXPECT_EQ(render_blocks(d),
            "P:The first paragraph is hard-wrapped at a reasonable width, as editors like to do, "
            "and ends here.|P:Second paragraph with odd spacing.");
}

TEST(TextParserTest, ListLinesKeepTheirBreaks) {
  const auto d = text_parse(
      "Things to buy:\n"
      "- milk\n"
      "- eggs and\n"
      "  bacon\n"
      "* bread\n"
      "\xE2\x80\xA2 jam\n"
      "1. one\n"
      "2) two\n");
  EXPECT_EQ(render_blocks(d), "P:Things to buy:|L:milk|L:eggs and bacon|L:bread|L:jam|L:one|L:two");
}

TEST(TextParserTest, ShortLinesAreNotJoined) {
  const auto d = text_parse("Jane Doe\n12 Main Street\nSpringfield\n");
  EXPECT_EQ(render_blocks(d), "P:Jane Doe\n12 Main Street\nSpringfield");
}

TEST(TextParserTest, NumberedSectionHeadings) {
  const auto d = text_parse(
      "Attention Is All You Need\n\n"
      "3 Model Architecture\n\n" + kPara + "\n\n"
      "3.1 Scaled Dot-Product Attention\n\n" + kPara + "\n\n"
      "3.2.1 Heads Directly Above Text\n" + kPara + "\n\n"
      "A.1 General Notation\n\n" + kPara + "\n");
  EXPECT_EQ(render_blocks(d),
            "H1:Attention Is All You Need|H1:3 Model Architecture|P:" + kPara +
                "|H2:3.1 Scaled Dot-Product Attention|P:" + kPara +
                "|H3:3.2.1 Heads Directly Above Text|P:" + kPara + "|H2:A.1 General Notation|P:" +
                kPara);
  EXPECT_EQ(d.title, "Attention Is All You Need");
}

TEST(TextParserTest, ChapterHeadings) {
  const auto d = text_parse("Chapter 2: Foundations\n\n" + kPara + "\n\nChapter 3\n\nResults\n\n" + kPara +
                       "\n\nPART IV\n\n" + kPara);
  EXPECT_EQ(render_blocks(d), "H1:Chapter 2: Foundations|P:" + kPara + "|H1:Chapter 3: Results|P:" + kPara +
                           "|H1:PART IV|P:" + kPara);
  EXPECT_EQ(d.title, "Chapter 2: Foundations");
}

TEST(TextParserTest, NumberedLookalikesAreNotHeadings) {
  // Lower-case continuation, a sentence, a table-of-contents entry.
  const auto d = text_parse("intro text\n\n1.5 million people live there.\n\n2.1\tMethods\t14\n\n" + kPara);
  for (const Block& b : d.blocks) EXPECT_NE(b.kind, BlockKind::Heading) << b.text;
}

TEST(TextParserTest, UnderlinedTitles) {
  const auto d = text_parse("My Document\n===========\n\n" + kPara + "\n\nA Section\n---------\n" + kPara +
                       "\n");
  EXPECT_EQ(render_blocks(d), "H1:My Document|P:" + kPara + "|H2:A Section|P:" + kPara);
}

TEST(TextParserTest, RuleLinesAreSeparatorsNotText) {
  const auto d = text_parse("First part.\n\n----------\n\nSecond part.\n");
  EXPECT_EQ(render_blocks(d), "P:First part.|P:Second part.");
}

TEST(TextParserTest, AllCapsLinesAreHeadings) {
  const auto d = text_parse("Some opening words.\n\nINTRODUCTION\n\n" + kPara +
                       "\n\nMETHODS AND DATA\nWe measured everything twice.\n");
  EXPECT_EQ(render_blocks(d), "P:Some opening words.|H2:INTRODUCTION|P:" + kPara +
                           "|H2:METHODS AND DATA|P:We measured everything twice.");
}

TEST(TextParserTest, ShortLineBeforeLongerParagraphIsHeading) {
  const auto d = text_parse("Field Notes\n\nBackground\n\n" + kPara + "\n\nThanks\n\nBye.\n");
  // First line: level 1 and the title. "Background" precedes body text: level 2.
  // "Thanks" precedes a shorter paragraph: stays a paragraph.
  EXPECT_EQ(render_blocks(d), "H1:Field Notes|H2:Background|P:" + kPara + "|P:Thanks|P:Bye.");
  EXPECT_EQ(d.title, "Field Notes");
}

TEST(TextParserTest, SentencesAndNumbersAreNotHeadings) {
  const auto d = text_parse("It rained.\n\nWhat now?\n\n2023\n\n" + kPara);
  for (const Block& b : d.blocks) EXPECT_NE(b.kind, BlockKind::Heading) << b.text;
  EXPECT_EQ(d.title, "It rained.");  // no heading: first line
}

TEST(TextParserTest, OneParagraphPerLongLine) {
  // Exported text often puts each paragraph on one long line with no blank lines between.
  const std::string abs1 = kPara + " " + kPara;
  const std::string abs2 = kPara + " More words. " + kPara;
  const auto d = text_parse("Get our newsletter today!\nA Study of Attention Heads\n" + abs1 +
                       "\nSparse Attention for Long Inputs\n" + abs2 + "\n");
  EXPECT_EQ(render_blocks(d), "P:Get our newsletter today!|H2:A Study of Attention Heads|P:" + abs1 +
                           "|H2:Sparse Attention for Long Inputs|P:" + abs2);
}

TEST(TextParserTest, LongTitlesBeforeParagraphLines) {
  // A title too long for the short-line rule still heads an unwrapped paragraph line.
  const std::string title =
      "A Unified View of Attention and Residual Sinks: Outlier-Driven Rescaling for Training";
  const std::string abs = kPara + " " + kPara;
  const auto d = text_parse(title + " Deep Networks\n" + abs + "\n");
  EXPECT_EQ(render_blocks(d), "H1:" + title + " Deep Networks|P:" + abs);
  const auto d2 = text_parse(abs + "\n" + title + " Deep Networks\n" + abs + "\n");
  EXPECT_EQ(render_blocks(d2), "P:" + abs + "|H2:" + title + " Deep Networks|P:" + abs);
}

TEST(TextParserTest, CaptionsAndFormulasAreNotHeadings) {
  const auto d = text_parse("Table 3.1: Comparison of architectures\n\n" + kPara +
                       "\n\nFigure 2. Attention weights\n\nAlgorithm 1 Efficient Attention\n\n"
                       "Table 1 shows the results.\n\nTotal cost: $O(n^2 d)$\n\n" + kPara);
  EXPECT_EQ(render_blocks(d), "F:Table 3.1: Comparison of architectures|P:" + kPara +
                           "|F:Figure 2. Attention weights|F:Algorithm 1 Efficient Attention|"
                           "P:Table 1 shows the results.|P:Total cost: $O(n^2 d)$|P:" + kPara);
}

TEST(TextParserTest, TitleFromDecoratedFirstLine) {
  const auto d = text_parse("====== Attention Mechanism ====== The **attention mechanism** is a "
                       "component, and this whole file is a single line of flattened wiki text.");
  EXPECT_EQ(d.title, "Attention Mechanism");
}

TEST(TextParserTest, TableOfContentsKeepsLines) {
  const auto d = text_parse("Contents\n\nAbstract\tii\n1 Introduction\t4\n1.1 The Attention Paradigm\t4\n");
  ASSERT_EQ(d.blocks.size(), 2u);
  EXPECT_EQ(d.blocks[0].kind, BlockKind::Heading);
  EXPECT_EQ(d.blocks[1].text, "Abstract ii\n1 Introduction 4\n1.1 The Attention Paradigm 4");
}

TEST(TextParserTest, TitleIsTrimmedTo200Chars) {
  std::string line;
  while (line.size() < 300) line += "word ";
  const auto d = text_parse(line + "\n");
  EXPECT_LE(d.title.size(), 200u);
  EXPECT_EQ(d.title.substr(0, 10), "word word ");
}

TEST(TextParserTest, DecodesLegacyEncodings) {
  const auto d = text_parse("Caf\xE9 au lait\n\nIt\x92s a na\xEFve little paragraph about coffee and milk.");
  EXPECT_EQ(d.title, "Caf\xC3\xA9 au lait");
  EXPECT_FALSE(d.warnings.empty());
}

TEST(TextParserTest, EmptyOrWhitespaceOnlyIsAnError) {
  for (const std::string s : {"", "   \n\t\n  \r\n", "\xEF\xBB\xBF  \n"}) {
    try {
      text_parse(s);
      ADD_FAILURE() << "no error for whitespace input";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("empty file"), std::string::npos) << e.what();
    }
  }
}

TEST(TextParserTest, BinaryIsAnError) {
  EXPECT_THROW(text_parse(std::string("\x89PNG\r\n\x1A\n\0\0\0\x0dIHDR", 16)), InputError);
}

TEST(TextParserTest, HugeSingleLineIsLinear) {
  std::string text;
  text.reserve(50u << 20);
  while (text.size() < (50u << 20)) text += "lorem ipsum dolor sit amet,  consectetur\tadipiscing ";
  const auto t0 = std::chrono::steady_clock::now();
  const auto d = text_parse(text);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(d.blocks.size(), 1u);
  EXPECT_EQ(d.blocks[0].kind, BlockKind::Paragraph);
  EXPECT_GT(d.blocks[0].text.size(), 40u << 20);
  EXPECT_EQ(d.blocks[0].text.find("  "), std::string::npos);
  EXPECT_LE(d.title.size(), 200u);
  EXPECT_LT(secs, 10.0);
}

TEST(TextParserTest, ManyShortLinesAreFine) {
  std::string text;
  for (int i = 0; i < 200000; ++i) text += "A short line of text that ends.\n\n";
  const auto d = text_parse(text);
  EXPECT_EQ(d.blocks.size(), 200000u);
}

}  // namespace
}  // namespace mmkg
