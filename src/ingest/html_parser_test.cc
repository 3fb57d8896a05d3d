// Tests for the HTML parser: block mapping, tables, boilerplate removal, titles, robustness.
#include <gtest/gtest.h>

#include "support/parser_fixtures.h"

#include <string>

#include "core/error.h"
#include "ingest/parser.h"

namespace mmkg {
namespace {

ParsedDocument html_parse(const std::string& html) { return make_html_parser()->parse("t.html", html); }

using testing::render_blocks;

TEST(HtmlParserTest, NameAndFormat) {
  EXPECT_STREQ(make_html_parser()->name(), "html");
  EXPECT_EQ(html_parse("<p>x</p>").format, "html");
}

TEST(HtmlParserTest, HeadingsAndParagraphs) {
  const auto d = html_parse(
      "<!doctype html><html><head><title> The  Page </title></head><body>"
      "<h1>Main <em>Title</em></h1>\n<p>First   paragraph\n spans lines &amp; has entities.</p>"
      "<h2>Sub</h2><p>Second<br>line two</p><h6>Tiny</h6></body></html>");
  EXPECT_EQ(render_blocks(d), "H1:Main Title|P:First paragraph spans lines & has entities.|H2:Sub|"
                       "P:Second\nline two|H6:Tiny");
  EXPECT_EQ(d.title, "The Page");
}

TEST(HtmlParserTest, TitleFallsBackToFirstH1) {
  EXPECT_EQ(html_parse("<h2>Intro</h2><h1>Real Title</h1><p>x</p>").title, "Real Title");
  EXPECT_EQ(html_parse("<h3>Only h3</h3><p>x</p>").title, "Only h3");
}

TEST(HtmlParserTest, Lists) {
  const auto d = html_parse("<ul><li>one</li><li>two <b>bold</b><ul><li>nested</li></ul></li></ul>"
                       "<ol><li><p>para in item</p></li></ol><dl><dt>Term</dt><dd>Definition</dd></dl>");
  EXPECT_EQ(render_blocks(d), "L:one|L:two bold|L:nested|P:para in item|P:Term|P:Definition");
}

TEST(HtmlParserTest, TableIsOneBlock) {
  const auto d = html_parse(
      "<p>Before</p><table><caption>Table 1: Scores</caption>"
      "<thead><tr><th>Model</th><th>BLEU</th></tr></thead>"
      "<tbody><tr><td>Base</td><td>27.3</td></tr><tr><td>Big <i>model</i></td><td>28.4</td></tr>"
      "<tr><td></td><td></td></tr></tbody></table><p>After</p>");
  // The table is a table figure (its rows as a Markdown table) between its caption and "After".
  EXPECT_EQ(render_blocks(d), "P:Before|F:Table 1: Scores|P:After");
  ASSERT_EQ(d.figures.size(), 1u);
  EXPECT_TRUE(d.figures[0].table);
  EXPECT_EQ(d.figures[0].caption, "Table 1: Scores");
  EXPECT_EQ(d.figures[0].table_markdown, "| Model | BLEU |\n|---|---|\n| Base | 27.3 |\n| Big model | 28.4 |");
  EXPECT_EQ(d.figures[0].block, 2u);
  // Without figures the rows stay in the body, as a Markdown table.
  ParseContext off;
  off.figures = false;
  const auto plain = make_html_parser()->parse("t.html", "<table><tr><td>a|b</td><td>c</td></tr><tr><td>1</td><td>2</td></tr></table>", off);
  EXPECT_EQ(render_blocks(plain), "T:| a\\|b | c |\n|---|---|\n| 1 | 2 |");
}

TEST(HtmlParserTest, LayoutTableIsWalkedAsContent) {
  const auto d = html_parse("<table><tr><td><h1>Site</h1><p>Welcome text.</p></td><td><p>Side</p></td></tr></table>");
  EXPECT_EQ(render_blocks(d), "H1:Site|P:Welcome text.|P:Side");
}

TEST(HtmlParserTest, ScriptsStylesAndChromeAreSkipped) {
  const auto d = html_parse(
      "<html><head><style>p{color:red}</style><script>var a='<p>no</p>';</script></head><body>"
      "<header><a href=/>Logo</a><h1>Article Title</h1><p>tagline</p></header>"
      "<nav><ul><li>Home</li><li>About</li></ul></nav>"
      "<main><p>Real content.</p><noscript>Enable JS</noscript><template><p>tpl</p></template>"
      "<svg><text>svg text</text></svg><form><label>Name</label><input></form>"
      "<div hidden>secret</div><div aria-hidden=\"true\">icon</div></main>"
      "<footer><p>Copyright</p></footer><script>track()</script></body></html>");
  EXPECT_EQ(render_blocks(d), "H1:Article Title|P:Real content.");
}

TEST(HtmlParserTest, PreFigcaptionBlockquoteAndDivText) {
  const auto d = html_parse(
      "<pre><code>int x = 1;\n  return x;\n</code></pre>"
      "<figure><img src=a.png alt=pic><figcaption>Figure 2: A plot</figcaption></figure>"
      "<blockquote><p>Quoted</p></blockquote>"
      "<div>Direct div text <span>with span</span><div>inner div</div> tail text</div>");
  EXPECT_EQ(render_blocks(d), "C:int x = 1;\n  return x;|F:Figure 2: A plot|P:Quoted|"
                       "P:Direct div text with span|P:inner div|P:tail text");
}

TEST(HtmlParserTest, DecodesLegacyBytes) {
  const auto d = html_parse("<p>caf\xE9 \x93quoted\x94</p>");
  EXPECT_EQ(render_blocks(d), "P:caf\xC3\xA9 \xE2\x80\x9Cquoted\xE2\x80\x9D");
}

TEST(HtmlParserTest, EmptyOrMarkupOnlyIsAnError) {
  EXPECT_THROW(html_parse(""), InputError);
  EXPECT_THROW(html_parse(" \n\t "), InputError);
  EXPECT_THROW(html_parse("<html><head><script>x()</script></head><body><nav>menu</nav></body></html>"),
               InputError);
}

TEST(HtmlParserTest, MalformedAndDeepMarkupDoesNotCrash) {
  EXPECT_NO_THROW(html_parse("<p>unclosed <b>bold <i>both</p><p>next</table></td>&bogus; <"));
  std::string deep;
  for (int i = 0; i < 20000; ++i) deep += "<div>";
  deep += "x";
  EXPECT_THROW(html_parse(deep), InputError);  // refused up front rather than crawling
  // A script's raw text ends at its closing tag in any case: an upper-case <SCRIPT> must not hide
  // the rest of the page from the nesting check.
  EXPECT_THROW(html_parse("<SCRIPT>var a = 1;</SCRIPT>" + deep), InputError);
  EXPECT_THROW(html_parse("<Style>p {}</STYLE>" + deep), InputError);
  EXPECT_EQ(html_parse("<p>a</p><SCRIPT>if (1 < 2) { x = '<div><div>'; }</Script><p>b</p>").blocks.size(), 2u);
  std::string wide;
  for (int i = 0; i < 20000; ++i) wide += "<p>para " + std::to_string(i) + "<li>item";
  EXPECT_EQ(html_parse(wide).blocks.size(), 40000u);
}

}  // namespace
}  // namespace mmkg
