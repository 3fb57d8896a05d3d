// Tests for images referenced by Markdown and HTML: resolution, confinement to the root,
// warnings, duplicates, captions, labels and positions in reading order.
#include "ingest/figure_refs.h"
#include "ingest/markup_scan.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ingest/files.h"
#include "ingest/parser.h"
#include "support/image_fixtures.h"
#include "support/parser_fixtures.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

namespace fx = image_fixture;
namespace fs = std::filesystem;

std::string read_file_for_test(const std::string& path) { return read_file(path, 64 << 20); }

/// Warnings that mention `needle`.
int warnings_with(const ParsedDocument& d, const std::string& needle) {
  int n = 0;
  for (const std::string& w : d.warnings) n += w.find(needle) != std::string::npos;
  return n;
}

std::string all_warnings(const ParsedDocument& d) {
  std::string s;
  for (const std::string& w : d.warnings) s += w + "\n";
  return s;
}

const Figure* figure_with_caption(const ParsedDocument& d, const std::string& caption) {
  for (const Figure& f : d.figures)
    if (f.caption == caption) return &f;
  return nullptr;
}

/// root/doc/ holds the document and its images; root/outside.png lies above it.
struct Fixture {
  testing::TempDir dir;
  std::string doc_dir;
  Fixture() {
    doc_dir = dir.file("doc");
    dir.write("doc/img/a.png", fx::rgb_png(40, 30));
    dir.write("doc/img/c.png", fx::rgb_png(50, 20));
    dir.write("doc/img/d.png", fx::rgb_png(20, 20));
    dir.write("doc/my pics/b.jpg", fx::jpeg(32, 32, 3, fx::solid(32, 32, "\x10\x20\x30")));
    dir.write("doc/bad.png", "\x89PNG\r\n\x1a\n this is not really a png");
    dir.write("doc/tiny.png", fx::rgb_png(1, 1));
    dir.write("outside.png", fx::rgb_png(30, 30));
  }
  std::string write(const std::string& name, const std::string& text) const { return dir.write("doc/" + name, text); }
};

TEST(FigureRefs, Labels) {
  EXPECT_EQ(figure_label("Figure 3: Loss curves."), "Figure 3");
  EXPECT_EQ(figure_label("  Fig. 2b. Detail"), "Fig. 2b");
  EXPECT_EQ(figure_label("FIGURE S1 - supplement"), "FIGURE S1");
  EXPECT_EQ(figure_label("Fig 4.2 shows"), "Fig 4.2");
  EXPECT_EQ(figure_label("Figure 12"), "Figure 12");
  EXPECT_EQ(figure_label("Figures 3 and 4"), "");
  EXPECT_EQ(figure_label("Figure it out"), "");
  EXPECT_EQ(figure_label("Figure 3x4 grid"), "");
  EXPECT_EQ(figure_label("A plot"), "");
}

TEST(FigureRefs, UrlDecodeEntitiesAndTagScan) {
  EXPECT_EQ(url_decode("my%20pics/b%2Ejpg"), "my pics/b.jpg");
  EXPECT_EQ(url_decode("100%"), "100%");
  EXPECT_EQ(url_decode("a%zz"), "a%zz");
  EXPECT_EQ(decode_entities("a &amp; b &#233; &#x263A; &bogus;"), "a & b \xC3\xA9 \xE2\x98\xBA &bogus;");
  const auto tags = scan_tags("<p><IMG SRC=\"a.png\" alt='x &amp; y'><!-- <img src=no.png> -->"
                              "<img src=b.png/><imgx src=c.png><opf:img src=d.png>", "img");
  ASSERT_EQ(tags.size(), 3u);
  EXPECT_EQ(*find_attr(tags[0], "src"), "a.png");
  EXPECT_EQ(*find_attr(tags[0], "alt"), "x & y");
  EXPECT_EQ(*find_attr(tags[1], "src"), "b.png/") << "unquoted values run to the space or '>'";
  EXPECT_EQ(*find_attr(tags[2], "src"), "d.png");
  EXPECT_EQ(find_attr(tags[0], "title"), nullptr);
  EXPECT_TRUE(scan_tags("<img src=\"never closed", "img").size() <= 1);
}

TEST(MarkdownFigures, LocalImagesBecomeFiguresInReadingOrder) {
  Fixture fx;
  const std::string path = fx.write("readme.md",
      "# Report\n\n"
      "Intro text.\n\n"
      "![Figure 2: Loss curves](img/a.png)\n\n"
      "Between, with an inline ![photo](my%20pics/b.jpg \"A title\") image.\n\n"
      "- item with ![ref image][r]\n\n"
      "<div><img src=\"img/d.png\" alt=\"html img\"></div>\n\n"
      "Again ![dup](img/a.png) and ![dup2](./img/../img/a.png).\n\n"
      "![remote](https://example.com/x.png) ![data](http://x/y.png)\n\n"
      "[r]: img/c.png\n");
  const ParsedDocument d = make_markdown_parser()->parse(path, read_file_for_test(path));
  ASSERT_EQ(d.figures.size(), 4u) << all_warnings(d);
  EXPECT_TRUE(d.warnings.empty()) << all_warnings(d);

  const Figure& a = d.figures[0];
  EXPECT_EQ(a.source, "file");
  EXPECT_EQ(a.caption, "Figure 2: Loss curves");
  EXPECT_EQ(a.alt, "Figure 2: Loss curves");
  EXPECT_EQ(a.label, "Figure 2");
  EXPECT_EQ(a.width, 40);
  EXPECT_EQ(a.height, 30);
  EXPECT_FALSE(a.png.empty());
  EXPECT_TRUE(a.id.empty());
  EXPECT_TRUE(a.image_hash.empty());
  ASSERT_LT(a.block, d.blocks.size());
  EXPECT_EQ(d.blocks[a.block].text, "Figure 2: Loss curves") << "alt text stays in the text";

  const Figure& b = d.figures[1];
  EXPECT_EQ(b.caption, "A title") << "title before alt";
  EXPECT_EQ(b.alt, "photo");
  EXPECT_EQ(b.label, "");
  EXPECT_NE(d.blocks[b.block].text.find("inline photo image"), std::string::npos);

  const Figure& c = d.figures[2];
  EXPECT_EQ(c.caption, "ref image");
  EXPECT_EQ(c.width, 50);
  EXPECT_EQ(d.blocks[c.block].kind, BlockKind::ListItem);

  const Figure& h = d.figures[3];
  EXPECT_EQ(h.alt, "html img");
  EXPECT_EQ(h.block, c.block + 1);
  for (size_t i = 0; i < d.figures.size(); ++i) EXPECT_EQ(d.figures[i].seq, static_cast<int>(i));
}

TEST(MarkdownFigures, UnusableImagesAreWarningsNotFailures) {
  Fixture fx;
  fs::create_symlink(fx.dir.file("outside.png"), fx.dir.file("doc/img/link.png"));
  const std::string path = fx.write("notes.md",
      "Text.\n\n![esc](../outside.png) ![gone](nope.png) ![bad](bad.png) ![link](img/link.png)\n\n"
      "![gone again](nope.png) ![tiny](tiny.png) ![ok](img/a.png)\n");
  const ParsedDocument d = make_markdown_parser()->parse(path, read_file_for_test(path));
  ASSERT_EQ(d.figures.size(), 1u) << all_warnings(d);
  EXPECT_EQ(d.figures[0].alt, "ok");
  EXPECT_EQ(d.warnings.size(), 4u) << all_warnings(d);
  EXPECT_EQ(warnings_with(d, "image \"../outside.png\" skipped: it resolves to"), 1) << all_warnings(d);
  EXPECT_EQ(warnings_with(d, "image \"img/link.png\" skipped: it resolves to"), 1) << "symlinks are followed";
  EXPECT_EQ(warnings_with(d, "image \"nope.png\" skipped: file not found"), 1) << "one warning per image";
  EXPECT_EQ(warnings_with(d, "image \"bad.png\" skipped: "), 1);
  EXPECT_EQ(d.blocks.size(), 3u);

  // A wider root lets the document reach its parent folder (but not further).
  ParseContext ctx;
  ctx.root = fx.dir.str();
  const ParsedDocument wide = make_markdown_parser()->parse(path, read_file_for_test(path), ctx);
  EXPECT_EQ(wide.figures.size(), 2u) << "img/link.png is ../outside.png: " << all_warnings(wide);
  EXPECT_EQ(warnings_with(wide, "outside"), 0) << all_warnings(wide);
}

TEST(MarkdownFigures, LimitsAndSwitchOff) {
  Fixture fx;
  const std::string path = fx.write("limits.md", "Text ![a](img/a.png)\n");
  ParseContext ctx;
  ctx.max_image_bytes = 20;
  ParsedDocument d = make_markdown_parser()->parse(path, read_file_for_test(path), ctx);
  EXPECT_TRUE(d.figures.empty());
  EXPECT_EQ(warnings_with(d, "over the image size limit"), 1) << all_warnings(d);

  ctx = ParseContext{};
  ctx.figures = false;
  fs::remove(fx.dir.file("doc/img/a.png"));
  d = make_markdown_parser()->parse(path, read_file_for_test(path), ctx);
  EXPECT_TRUE(d.figures.empty());
  EXPECT_TRUE(d.warnings.empty()) << "nothing is read, so nothing is missing";
  EXPECT_EQ(testing::render_blocks(d), "P:Text a");
}

TEST(MarkdownFigures, DataUriImages) {
  Fixture fx;
  const std::string png = fx::rgb_png(20, 20);
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string b64;
  for (size_t i = 0; i < png.size(); i += 3) {
    uint32_t v = static_cast<unsigned char>(png[i]) << 16;
    if (i + 1 < png.size()) v |= static_cast<unsigned char>(png[i + 1]) << 8;
    if (i + 2 < png.size()) v |= static_cast<unsigned char>(png[i + 2]);
    b64 += k[(v >> 18) & 63];
    b64 += k[(v >> 12) & 63];
    b64 += i + 1 < png.size() ? k[(v >> 6) & 63] : '=';
    b64 += i + 2 < png.size() ? k[v & 63] : '=';
  }
  const std::string path = fx.write("inline.md", "Inline ![dot](data:image/png;base64," + b64 + ")\n\n"
                                                 "Bad ![x](data:image/png;base64,@@@)\n");
  const ParsedDocument d = make_markdown_parser()->parse(path, read_file_for_test(path));
  ASSERT_EQ(d.figures.size(), 1u) << all_warnings(d);
  EXPECT_EQ(d.figures[0].width, 20);
  EXPECT_EQ(warnings_with(d, "invalid base64"), 1) << all_warnings(d);
}

TEST(HtmlFigures, FigcaptionTitleAltAndPositions) {
  Fixture fx;
  const std::string path = fx.write("page.html",
      "<html><head><title>T</title></head><body>"
      "<header><img src='img/d.png' alt='logo'></header>"
      "<h1>Results</h1>"
      "<figure><img src='img/a.png' alt='chart'><figcaption>Figure 2: Accuracy by epoch</figcaption></figure>"
      "<p>Text before <img src='my%20pics/b.jpg' title='Fig. 3 Photo' alt='p'> text after.</p>"
      "<p><img src='img/c.png' alt='just alt'></p>"
      "<p>Again <img src='img/a.png'> <img src='https://cdn.example.com/x.png'> "
      "<img src='../outside.png' alt='escape'> <img src='missing.png'></p>"
      "</body></html>");
  const ParsedDocument d = make_html_parser()->parse(path, read_file_for_test(path));
  ASSERT_EQ(d.figures.size(), 3u) << all_warnings(d);
  EXPECT_EQ(testing::render_blocks(d),
            "H1:Results|F:Figure 2: Accuracy by epoch|P:Text before text after.|P:Again");

  const Figure* a = figure_with_caption(d, "Figure 2: Accuracy by epoch");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->label, "Figure 2");
  EXPECT_EQ(a->alt, "chart");
  EXPECT_EQ(a->block, 1u) << "before its caption block";

  const Figure* b = figure_with_caption(d, "Fig. 3 Photo");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->label, "Fig. 3");
  EXPECT_EQ(b->block, 2u) << "before the paragraph that holds it";

  const Figure* c = figure_with_caption(d, "just alt");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->block, 3u) << "its paragraph has no text: it precedes the next block";

  EXPECT_EQ(d.warnings.size(), 2u) << all_warnings(d);
  EXPECT_EQ(warnings_with(d, "image \"../outside.png\" skipped: it resolves to"), 1) << all_warnings(d);
  EXPECT_EQ(warnings_with(d, "image \"missing.png\" skipped: file not found"), 1) << all_warnings(d);

  ParseContext off;
  off.figures = false;
  EXPECT_TRUE(make_html_parser()->parse(path, read_file_for_test(path), off).figures.empty());
}

TEST(HtmlFigures, ConverterNoiseIsDropped) {
  Fixture fx;
  // Word processors write empty lines as <p>&nbsp;</p> and image file names as alt text.
  const std::string path = fx.write("export.html",
      "<p>&nbsp;</p><p>Real text.&nbsp;</p><p> &nbsp; </p><img src='img/d.png' alt='OEBPS/images/image0001.png'>");
  const ParsedDocument d = make_html_parser()->parse(path, read_file_for_test(path));
  EXPECT_EQ(testing::render_blocks(d), "P:Real text.");
  ASSERT_EQ(d.figures.size(), 1u);
  EXPECT_EQ(d.figures[0].alt, "");
  EXPECT_EQ(d.figures[0].caption, "");
}

TEST(HtmlFigures, ImageAtTheEndOfTheDocument) {
  Fixture fx;
  const std::string path = fx.write("end.html", "<p>Only text.</p><img src='img/a.png'>");
  const ParsedDocument d = make_html_parser()->parse(path, read_file_for_test(path));
  ASSERT_EQ(d.figures.size(), 1u);
  EXPECT_EQ(d.figures[0].block, d.blocks.size()) << "ends the document";
}

}  // namespace
}  // namespace mmkg
