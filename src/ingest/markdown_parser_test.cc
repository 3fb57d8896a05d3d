// Tests for the Markdown parser: block mapping, inline flattening, tables, front matter, titles.
#include <gtest/gtest.h>

#include "support/parser_fixtures.h"

#include <string>

#include "core/error.h"
#include "ingest/parser.h"

namespace mmkg {
namespace {

ParsedDocument md_parse(const std::string& text) { return make_markdown_parser()->parse("t.md", text); }

using testing::render_blocks;

TEST(MarkdownParserTest, NameAndFormat) {
  EXPECT_STREQ(make_markdown_parser()->name(), "markdown");
  EXPECT_EQ(md_parse("text").format, "markdown");
}

TEST(MarkdownParserTest, AtxAndSetextHeadings) {
  const auto d = md_parse("# Title\n\n## Section *one*\n\nSetext Top\n==========\n\nSetext Sub\n----------\n\n"
                       "###### Deep ######\n");
  EXPECT_EQ(render_blocks(d), "H1:Title|H2:Section one|H1:Setext Top|H2:Setext Sub|H6:Deep");
  for (const Block& b : d.blocks) EXPECT_EQ(b.page, 0);
}

TEST(MarkdownParserTest, InlineMarkupIsFlattened) {
  const auto d = md_parse(
      "Some *emphasis*, **strong** and a [link](http://x.org \"t\") with `code`,\n"
      "an image ![alt text](img.png) and <b>inline html</b> &amp; entities.  \n"
      "After a hard break.\n");
  EXPECT_EQ(render_blocks(d),
            "P:Some emphasis, strong and a link with code, an image alt text and inline html & "
            "entities.\nAfter a hard break.");
}

TEST(MarkdownParserTest, ListItemsOnePerItemNestedFlattened) {
  const auto d = md_parse(
      "- first item\n"
      "  continues here\n"
      "- second item\n"
      "  - nested a\n"
      "  - nested b\n"
      "- third\n"
      "\n"
      "1. one\n"
      "2. two\n");
  EXPECT_EQ(render_blocks(d),
            "L:first item continues here|L:second item|L:nested a|L:nested b|L:third|L:one|L:two");
}

TEST(MarkdownParserTest, CodeBlocks) {
  const auto d = md_parse("Intro:\n\n```cpp\nint main() {\n  return 0;\n}\n```\n\n    indented code\n    line 2\n");
  EXPECT_EQ(render_blocks(d), "P:Intro:|C:int main() {\n  return 0;\n}|C:indented code\nline 2");
}

TEST(MarkdownParserTest, BlockQuotesBecomeParagraphs) {
  const auto d = md_parse("> Quoted *words*\n> across lines.\n>\n> Second quoted paragraph.\n");
  EXPECT_EQ(render_blocks(d), "P:Quoted words across lines.|P:Second quoted paragraph.");
}

TEST(MarkdownParserTest, HtmlBlocksKeepTextOnly) {
  const auto d = md_parse("<div class=\"note\">\n<p>Hello &amp; <em>welcome</em></p>\n<!-- hidden -->\n"
                       "</div>\n\n<script>\nvar x = 1;\n</script>\n\nAfter.\n");
  EXPECT_EQ(render_blocks(d), "P:Hello & welcome|P:After.");
}

TEST(MarkdownParserTest, PipeTablesAreTables) {
  const std::string md = "Table 1: Results.\n\n| Model | BLEU |\n|-------|-----:|\n| Base  | 27.3 |\n| Big   | 28.4 |\n";
  // Without figures the rows stay in the body, as a Table block.
  ParseContext off;
  off.figures = false;
  const auto plain = make_markdown_parser()->parse("t.md", md, off);
  ASSERT_EQ(plain.blocks.size(), 2u);
  EXPECT_EQ(plain.blocks[1].kind, BlockKind::Table);
  EXPECT_EQ(plain.blocks[1].text, "| Model | BLEU |\n|-------|-----:|\n| Base | 27.3 |\n| Big | 28.4 |");
  // With figures the table is a table figure with its caption; the caption stays in the body.
  const auto d = md_parse(md);
  EXPECT_EQ(render_blocks(d), "P:Table 1: Results.");
  ASSERT_EQ(d.figures.size(), 1u);
  EXPECT_TRUE(d.figures[0].table);
  EXPECT_EQ(d.figures[0].source, "table");
  EXPECT_EQ(d.figures[0].caption, "Table 1: Results.");
  EXPECT_EQ(d.figures[0].table_markdown, "| Model | BLEU |\n|---|---|\n| Base | 27.3 |\n| Big | 28.4 |");
  EXPECT_EQ(d.figures[0].block, 1u);
}

TEST(MarkdownParserTest, PipeInProseIsNotATable) {
  const auto d = md_parse("Use a | b to pipe\nthe output along.\n");
  EXPECT_EQ(render_blocks(d), "P:Use a | b to pipe the output along.");
}

TEST(MarkdownParserTest, FrontMatterIsSkipped) {
  const auto d = md_parse("---\ntitle: \"From Front Matter\"\ntags: [a, b]\n---\n\nBody text.\n\n## Later\n");
  EXPECT_EQ(render_blocks(d), "P:Body text.|H2:Later");
  EXPECT_EQ(d.title, "Later");  // headings win; front matter is the last resort
  const auto d2 = md_parse("---\ntitle: From Front Matter\n---\nJust text.\n");
  EXPECT_EQ(d2.title, "From Front Matter");
}

TEST(MarkdownParserTest, LeadingRuleIsNotFrontMatter) {
  EXPECT_EQ(render_blocks(md_parse("---\n\nText after a rule.\n")), "P:Text after a rule.");
  EXPECT_EQ(render_blocks(md_parse("---\n# Title\n\nText.\n\n---\nMore.\n")), "H1:Title|P:Text.|P:More.");
}

TEST(MarkdownParserTest, TitleIsFirstLevelOneHeading) {
  EXPECT_EQ(md_parse("## Preface\n\ntext\n\n# The Book\n\n# Another\n").title, "The Book");
  EXPECT_EQ(md_parse("### Only Minor\n\ntext\n").title, "Only Minor");
  EXPECT_EQ(md_parse("no headings at all\n").title, "");
}

TEST(MarkdownParserTest, DecodesFirst) {
  // UTF-16LE with BOM.
  const std::string utf16 = std::string("\xFF\xFE", 2) + std::string("#\0 \0C\0a\0f\0\xE9\0\n\0", 14);
  const auto d2 = md_parse(utf16);
  EXPECT_EQ(render_blocks(d2), "H1:Caf\xC3\xA9");
}

TEST(MarkdownParserTest, EmptyIsAnError) {
  EXPECT_THROW(md_parse(""), InputError);
  EXPECT_THROW(md_parse("  \n\n \t\n"), InputError);
  EXPECT_THROW(md_parse("---\ntitle: x\n---\n"), InputError);  // nothing but front matter
}

TEST(MarkdownParserTest, DeepNestingDoesNotCrash) {
  std::string deep(100000, '>');
  deep += " deep quote\n";
  std::string lists;
  for (int i = 0; i < 2000; ++i) lists += std::string(static_cast<size_t>(i) * 2, ' ') + "- item\n";
  EXPECT_NO_THROW(md_parse(deep));
  EXPECT_NO_THROW(md_parse(lists));
}

}  // namespace
}  // namespace mmkg
