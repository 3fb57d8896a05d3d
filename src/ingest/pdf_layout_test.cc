// Tests for PDF layout recovery (pdf_layout.h): headings and their levels, reading order across
// columns, line joining and hyphenation, list/code/table-of-contents blocks, running headers,
// footers and page numbers. The PdfParser tests here run whole fixture PDFs (written with
// MuPDF, see pdf_fixture_test_util.h) through the parser; the PdfLayout tests call the layout
// helpers directly.
#include <gtest/gtest.h>

#include <cctype>
#include <random>
#include <string>
#include <vector>

#include "ingest/parser.h"
#include "support/pdf_fixtures.h"
#include "ingest/pdf_layout.h"

namespace mmkg {
namespace {

using namespace pdf_fixture;

// ---- headings ----

TEST(PdfParser, HeadingsAtTwoSizesGetLevels) {
  PageSpec p;
  p.runs.push_back({72, 80, 22, "Introduction"});
  add_lines(p, 72, 110, 11, 14,
            {"Attention is a mechanism that lets a model weigh the parts of its input",
             "differently, and it is the main idea of this short document."});
  p.runs.push_back({72, 160, 16, "Background"});
  add_lines(p, 72, 185, 11, 14,
            {"Earlier sequence models used recurrence, which made them slow to train",
             "on long inputs because every step waits for the previous one."});
  p.runs.push_back({72, 235, 16, "Related Work"});
  add_lines(p, 72, 260, 11, 14,
            {"Convolutional models were tried as well and they train in parallel, but",
             "they need many layers to relate distant positions of a sequence."});
  ParsedDocument d = parse(write_pdf({p, body_page("second")}));
  ASSERT_GE(d.blocks.size(), 6u) << dump(d);
  EXPECT_EQ(d.blocks[0].kind, BlockKind::Heading) << dump(d);
  EXPECT_EQ(d.blocks[0].level, 1);
  EXPECT_EQ(d.blocks[0].text, "Introduction");
  EXPECT_EQ(d.blocks[1].kind, BlockKind::Paragraph);
  EXPECT_EQ(d.blocks[1].text,
            "Attention is a mechanism that lets a model weigh the parts of its input "
            "differently, and it is the main idea of this short document.");
  EXPECT_EQ(d.blocks[2].kind, BlockKind::Heading);
  EXPECT_EQ(d.blocks[2].level, 2);
  EXPECT_EQ(d.blocks[2].text, "Background");
  EXPECT_EQ(d.blocks[3].kind, BlockKind::Paragraph);
  EXPECT_EQ(d.blocks[4].kind, BlockKind::Heading);
  EXPECT_EQ(d.blocks[4].level, 2);
  EXPECT_EQ(d.blocks[5].kind, BlockKind::Paragraph);
  EXPECT_EQ(d.title, "Introduction");  // no metadata title: first level-1 heading
}

TEST(PdfParser, BoldHeadingAtBodySize) {
  PageSpec p;
  add_lines(p, 72, 80, 11, 14,
            {"A first paragraph in the regular body font, long enough to be a normal",
             "paragraph that ends with a period."});
  p.runs.push_back({72, 125, 11, "Method Details", true});
  add_lines(p, 72, 145, 11, 14,
            {"The method is described here in the regular body font again, with a few",
             "lines of text that belong to the section above."});
  ParsedDocument d = parse(write_pdf({p}));
  const Block* h = find_block(d, "Method Details");
  ASSERT_TRUE(h) << dump(d);
  EXPECT_EQ(h->kind, BlockKind::Heading) << dump(d);
  EXPECT_GE(h->level, 1);
  EXPECT_LE(h->level, 6);
  EXPECT_EQ(h->text, "Method Details");
  const Block* body = find_block(d, "The method is described");
  ASSERT_TRUE(body);
  EXPECT_EQ(body->kind, BlockKind::Paragraph);
  EXPECT_EQ(find_block(d, "A first paragraph")->kind, BlockKind::Paragraph);
}

// ---- reading order ----

TEST(PdfParser, TwoColumnsReadColumnByColumn) {
  PageSpec p;
  p.runs.push_back({120, 80, 18, "A Study Of Columns In Portable Documents"});
  // Full-width abstract under the title.
  add_lines(p, 72, 115, 10, 12,
            {"This abstract spans the full width of the page above both of the columns of the body",
             "text, and it must come right after the title and before the columns are read out."});
  // Columns written interleaved (left line, right line, ...) so MuPDF's order is wrong.
  const int n = 12;
  for (int i = 0; i < n; ++i) {
    float y = 170 + 12.0f * i;
    p.runs.push_back({72, y, 10, "Left column line " + std::to_string(i + 1) + " text goes here ok"});
    p.runs.push_back({320, y, 10, "Right column line " + std::to_string(i + 1) + " more words here"});
  }
  // A full-width closing line below both columns stays in place.
  p.runs.push_back({72, 340, 10,
                    "A closing note that is as wide as the page again sits below both of the columns."});
  ParsedDocument d = parse(write_pdf({p}));
  std::string text = all_text(d);
  size_t title = text.find("A Study Of Columns");
  size_t abstract = text.find("This abstract spans");
  size_t closing = text.find("A closing note");
  ASSERT_NE(title, std::string::npos) << dump(d);
  ASSERT_NE(abstract, std::string::npos) << dump(d);
  ASSERT_NE(closing, std::string::npos) << dump(d);
  EXPECT_LT(title, abstract);
  size_t prev = abstract;
  for (int i = 1; i <= n; ++i) {
    size_t pos = text.find("Left column line " + std::to_string(i) + " ");
    ASSERT_NE(pos, std::string::npos) << i << "\n" << dump(d);
    EXPECT_GT(pos, prev) << "left line " << i << "\n" << dump(d);
    prev = pos;
  }
  for (int i = 1; i <= n; ++i) {
    size_t pos = text.find("Right column line " + std::to_string(i) + " ");
    ASSERT_NE(pos, std::string::npos) << i << "\n" << dump(d);
    EXPECT_GT(pos, prev) << "right line " << i << "\n" << dump(d);
    prev = pos;
  }
  EXPECT_GT(closing, prev) << dump(d);
  EXPECT_EQ(d.blocks.front().kind, BlockKind::Heading) << dump(d);
}

TEST(PdfParser, ColumnBreakMidSentenceIsJoined) {
  PageSpec p;
  for (int i = 0; i < 6; ++i) {
    float y = 100 + 12.0f * i;
    p.runs.push_back({72, y, 10, "Left side words number " + std::to_string(i) + " in column"});
    p.runs.push_back({320, y, 10, i == 0 ? "continues right here, and the" : "right side words in the column"});
  }
  ParsedDocument d = parse(write_pdf({p}));
  EXPECT_NE(all_text(d).find("in column continues right here"), std::string::npos) << dump(d);
}

TEST(PdfParser, JustifiedTwoColumnPaperFromLayoutEngine) {
  // Deterministic filler text; every paragraph starts with a numbered marker word.
  const char* words[] = {"the", "model", "attention", "layer", "sequence", "token", "training",
                         "data", "network", "results", "method", "we", "show", "that", "our",
                         "approach", "improves", "over", "baseline", "performance", "across",
                         "tasks", "language", "translation", "encoder", "decoder"};
  std::mt19937 rng(11);
  std::string body;
  int paras = 0;
  for (int sec = 1; sec <= 6; ++sec) {
    body += "<h2>" + std::to_string(sec) + " Section heading number " + std::to_string(sec) + "</h2>";
    for (int p = 0; p < 3; ++p) {
      std::string text = "Marker" + std::to_string(++paras) + " opens this paragraph";
      int n = 60 + static_cast<int>(rng() % 60);
      for (int i = 0; i < n; ++i) text += std::string(" ") + words[rng() % 26];
      body += "<p>" + text + ".</p>";
    }
  }
  std::string head =
      "<h1>Attention Over Columns: A Layout Study</h1>"
      "<p>This abstract runs across the full width of the first page, above both columns, and "
      "it is long enough to wrap over several lines of justified text before the body starts "
      "in the two columns below it, which are read one after the other.</p>";
  ParsedDocument d = parse(write_story_pdf(head, body));
  ASSERT_GE(d.pages, 2);
  ASSERT_FALSE(d.blocks.empty());
  EXPECT_EQ(d.blocks[0].kind, BlockKind::Heading) << dump(d);
  EXPECT_EQ(d.blocks[0].level, 1);
  EXPECT_EQ(d.title, "Attention Over Columns: A Layout Study");
  std::string text = all_text(d);
  EXPECT_EQ(text.find("Journal of Layout Tests"), std::string::npos) << dump(d);
  // Markers and section headings come out in order: the columns are read one by one.
  size_t prev = text.find("This abstract runs");
  ASSERT_NE(prev, std::string::npos) << dump(d);
  for (int i = 1; i <= paras; ++i) {
    size_t pos = text.find("Marker" + std::to_string(i) + " opens");
    ASSERT_NE(pos, std::string::npos) << i << "\n" << dump(d);
    EXPECT_GT(pos, prev) << "paragraph " << i << "\n" << dump(d);
    prev = pos;
  }
  int headings = 0;
  for (const Block& b : d.blocks) {
    if (b.kind == BlockKind::Heading && b.text.find("Section heading number") != std::string::npos) {
      ++headings;
      EXPECT_EQ(b.level, 2) << b.text;
    }
    // Paragraphs are whole: each one that starts a page's text in mid-sentence is the tail of
    // the previous page's last paragraph, never a fragment from the other column.
    EXPECT_FALSE(b.kind == BlockKind::Paragraph && b.text.size() <= 3) << dump(d);
  }
  EXPECT_EQ(headings, 6) << dump(d);
}

// ---- line joining and block kinds ----

TEST(PdfParser, HyphenatedLineEndsRejoined) {
  PageSpec p;
  add_lines(p, 72, 100, 11, 14,
            {"Transformers rely on a mechanism called atten-",
             "tion to relate words, and a variant called self-",
             "attention relates the words of one sentence. Self-attention is",
             "everywhere now, and so is the well-known trick of pre-",
             "Training as well as the dash - used as punctuation."});
  ParsedDocument d = parse(write_pdf({p}));
  ASSERT_EQ(d.blocks.size(), 1u) << dump(d);
  const std::string& t = d.blocks[0].text;
  EXPECT_NE(t.find("called attention to relate"), std::string::npos) << t;
  // "self-attention" is written with a hyphen elsewhere: the compound keeps its hyphen.
  EXPECT_NE(t.find("called self-attention relates"), std::string::npos) << t;
  // Next line starts upper-case: the hyphen stays, no space.
  EXPECT_NE(t.find("pre-Training"), std::string::npos) << t;
  EXPECT_NE(t.find("the dash - used"), std::string::npos) << t;
}

TEST(PdfParser, BulletListItems) {
  PageSpec p;
  add_lines(p, 72, 100, 11, 14, {"The list below has three items in it, all of them short:"});
  p.runs.push_back({80, 120, 11, "- first item of the list"});
  p.runs.push_back({80, 134, 11, "- second item of the list"});
  p.runs.push_back({80, 148, 11, "- third item of the list"});
  ParsedDocument d = parse(write_pdf({p}));
  ASSERT_EQ(d.blocks.size(), 4u) << dump(d);
  EXPECT_EQ(d.blocks[1].kind, BlockKind::ListItem);
  EXPECT_EQ(d.blocks[1].text, "first item of the list");
  EXPECT_EQ(d.blocks[3].text, "third item of the list");
}

TEST(PdfParser, CodeBlocksKeepLinesAndIndentation) {
  PageSpec p;
  add_lines(p, 72, 100, 11, 14, {"The program below returns zero, which is all it does:"});
  const float adv = 0.6f * 10;  // Courier advance at 10pt
  p.runs.push_back({72, 124, 10, "int main(void) {", false, true});
  p.runs.push_back({72 + 4 * adv, 136, 10, "return 0;", false, true});
  p.runs.push_back({72 + 4 * adv, 148, 10, "x = 1;", false, true});
  p.runs.push_back({72 + 20 * adv, 148, 10, "// aligned comment", false, true});
  p.runs.push_back({72, 160, 10, "}", false, true});
  add_lines(p, 72, 184, 11, 14, {"After the code, the text goes on as a normal paragraph."});
  ParsedDocument d = parse(write_pdf({p}));
  ASSERT_EQ(d.blocks.size(), 3u) << dump(d);
  EXPECT_EQ(d.blocks[1].kind, BlockKind::Code);
  EXPECT_EQ(d.blocks[1].text,
            "int main(void) {\n    return 0;\n    x = 1;          // aligned comment\n}");
  EXPECT_EQ(d.blocks[2].kind, BlockKind::Paragraph);
}

TEST(PdfParser, TableOfContentsEntriesAreSeparate) {
  PageSpec p;
  p.runs.push_back({72, 80, 18, "Contents"});
  const char* entries[] = {"1 Introduction", "2 Background and related work", "3 Method"};
  for (int i = 0; i < 3; ++i) {
    float y = 110 + 14.0f * i;
    p.runs.push_back({72, y, 11, entries[i], true});
    p.runs.push_back({260, y, 11, ". . . . . . . . . . . . . . . . . . . . " + std::to_string(i + 2)});
  }
  ParsedDocument d = parse(write_pdf({p}));
  ASSERT_EQ(d.blocks.size(), 4u) << dump(d);
  EXPECT_EQ(d.blocks[1].text, "1 Introduction ... 2");
  EXPECT_EQ(d.blocks[1].kind, BlockKind::Paragraph);  // bold, but an entry, not a heading
  EXPECT_EQ(d.blocks[3].text, "3 Method ... 4");
}

// ---- running headers, footers, page numbers ----

TEST(PdfParser, RunningHeadersFootersAndPageNumbersDropped) {
  std::vector<PageSpec> pages;
  const int n = 5;
  for (int i = 1; i <= n; ++i) {
    PageSpec p = body_page("body" + std::to_string(i), 120);
    p.runs.push_back({72, 40, 9, "ACME Corp Quarterly Report 2024"});
    p.runs.push_back({400, 40, 9, "Chapter " + std::to_string(i)});  // varies: digits normalised
    p.runs.push_back({72, 770, 9, "Confidential - do not distribute"});
    if (i % 2 == 0)
      p.runs.push_back({300, 755, 9, std::to_string(i)});
    else
      p.runs.push_back({280, 755, 9, "Page " + std::to_string(i) + " of " + std::to_string(n)});
    pages.push_back(p);
  }
  ParsedDocument d = parse(write_pdf(pages));
  EXPECT_EQ(d.pages, n);
  std::string text = all_text(d);
  EXPECT_EQ(text.find("ACME"), std::string::npos) << dump(d);
  EXPECT_EQ(text.find("Confidential"), std::string::npos) << dump(d);
  EXPECT_EQ(text.find("Chapter"), std::string::npos) << dump(d);
  EXPECT_EQ(text.find("Page "), std::string::npos) << dump(d);
  for (const Block& b : d.blocks) {
    EXPECT_FALSE(b.text.size() <= 2 && std::isdigit(static_cast<unsigned char>(b.text[0])))
        << dump(d);
  }
  for (int i = 1; i <= n; ++i) {
    const Block* b = find_block(d, "The body" + std::to_string(i) + " section");
    ASSERT_TRUE(b) << i << "\n" << dump(d);
    EXPECT_EQ(b->page, i);
  }
}

// ---- layout helpers ----

TEST(PdfLayout, PageNumberLines) {
  for (const char* s : {"3", "- 3 -", "Page 3", "page 3 of 10", "3 / 10", "xiv", "IV", "[12]",
                        "\xE2\x80\x93 7 \xE2\x80\x93", "p. 5", "Seite 4 von 9"})
    EXPECT_TRUE(pdf::is_page_number_text(s)) << s;
  for (const char* s : {"", "Chapter 3", "3 apples", "mix", "civil", "iiii", "2024-01-01 report", "Page"})
    EXPECT_FALSE(pdf::is_page_number_text(s)) << s;
}

TEST(PdfLayout, MarginKeyNormalisesNumbers) {
  EXPECT_EQ(pdf::margin_key("Chapter 12  Results"), "chapter # results");
  EXPECT_EQ(pdf::margin_key("Chapter 3 Results"), "chapter # results");
  EXPECT_EQ(pdf::margin_key("xii Preface"), "# preface");
  EXPECT_EQ(pdf::margin_key("Section 1.2.3"), "section #.#.#");
}

TEST(PdfLayout, JoinLine) {
  pdf::CompoundSet compounds = {"well-known"};
  std::string t = "the atten-";
  pdf::join_line(t, "tion span", false, &compounds);
  EXPECT_EQ(t, "the attention span");
  t = "a well-";
  pdf::join_line(t, "known fact", false, &compounds);
  EXPECT_EQ(t, "a well-known fact");
  t = "end of line";
  pdf::join_line(t, "next line", false, &compounds);
  EXPECT_EQ(t, "end of line next line");
  t = "soft";
  pdf::join_line(t, "ware", true, &compounds);
  EXPECT_EQ(t, "software");
  t = "range 3-";
  pdf::join_line(t, "5 pages", false, &compounds);
  EXPECT_EQ(t, "range 3- 5 pages");
}

}  // namespace
}  // namespace mmkg
