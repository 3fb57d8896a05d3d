// PDF figures: regions found from drawings and images, captions, figure text, logos, decoration.
// Fixture PDFs are written with MuPDF (support/pdf_fixtures.h): vector plots as content-stream
// paths, raster images as inline images.
#include <gtest/gtest.h>

#include <sstream>

#include "ingest/parser.h"
#include "ingest/pdf_figures.h"
#include "support/pdf_fixtures.h"

namespace mmkg {
namespace {

using pdf_fixture::PageSpec;

// A line plot in the box (x, top) .. (x + w, top + h), top measured from the page top: axes, a
// zig-zag curve of many segments, tick labels and an axis title as text.
void add_plot(PageSpec& p, float x, float top, float w, float h) {
  std::ostringstream g;
  const float y0 = 792 - top - h;  // PDF space: bottom of the box
  g << "q 1 w 0 0 0 RG " << x << ' ' << y0 << " m " << x + w << ' ' << y0 << " l S\n";
  g << x << ' ' << y0 << " m " << x << ' ' << y0 + h << " l S\n";
  for (int i = 0; i < 20; ++i) {
    float xa = x + w * i / 20, xb = x + w * (i + 1) / 20;
    float ya = y0 + h * (0.2f + 0.6f * ((i * 7) % 10) / 10.0f), yb = y0 + h * (0.2f + 0.6f * (((i + 1) * 7) % 10) / 10.0f);
    g << xa << ' ' << ya << " m " << xb << ' ' << yb << " l S\n";
  }
  g << "Q\n";
  p.extra += g.str();
  for (int i = 0; i <= 4; ++i)
    p.runs.push_back({x + w * i / 4 - 4, top + h + 12, 8, std::to_string(i * 25)});
  p.runs.push_back({x + w / 2 - 20, top + h + 24, 9, "epochs"});
  p.runs.push_back({x + 10, top + 10, 8, "validation loss"});
}

// An inline grey image of w x h pixels drawn at (x, top) with size (dw, dh) points.
void add_image(PageSpec& p, float x, float top, float dw, float dh, int w, int h, int seed = 0) {
  std::string pixels;
  for (int j = 0; j < h; ++j)
    for (int i = 0; i < w; ++i) pixels += static_cast<char>(((i * 13 + j * 7 + seed * 31) % 200) + 30);
  std::ostringstream g;
  g << "q " << dw << " 0 0 " << dh << ' ' << x << ' ' << (792 - top - dh) << " cm\nBI /W " << w << " /H " << h
    << " /CS /G /BPC 8 ID\n";
  p.extra += g.str() + pixels + "\nEI Q\n";
}

ParsedDocument parse_pdf(const std::string& bytes, bool figures = true) {
  ParseContext ctx;
  ctx.figures = figures;
  return make_pdf_parser()->parse("fig.pdf", bytes, ctx);
}

TEST(PdfFigures, VectorPlotWithCaptionBelow) {
  PageSpec p = pdf_fixture::body_page("intro", 80);
  add_plot(p, 120, 160, 300, 200);
  pdf_fixture::add_lines(p, 72, 420, 10, 12, {"Figure 1: Training loss of the quokka model over epochs."});
  pdf_fixture::add_lines(p, 72, 460, 11, 14,
                         {"As Figure 1 shows, the loss falls quickly during the first epochs and then",
                          "flattens out, which is what we expected from the learning rate schedule."});
  ParsedDocument d = parse_pdf(pdf_fixture::write_pdf({p}));
  ASSERT_EQ(d.figures.size(), 1u) << pdf_fixture::dump(d);
  const Figure& f = d.figures[0];
  EXPECT_EQ(f.source, "vector");
  EXPECT_EQ(f.label, "Figure 1");
  EXPECT_EQ(f.caption, "Figure 1: Training loss of the quokka model over epochs.");
  EXPECT_EQ(f.page, 1);
  EXPECT_EQ(f.text_source, "pdf");
  EXPECT_NE(f.text.find("epochs"), std::string::npos) << f.text;
  EXPECT_NE(f.text.find("validation loss"), std::string::npos) << f.text;
  ASSERT_GT(f.png.size(), 100u);
  EXPECT_EQ(f.png.substr(0, 4), "\x89PNG");
  // 300 x 200 pt (plus labels) at 150 dpi.
  EXPECT_GT(f.width, 600);
  EXPECT_LT(f.width, 800);
  EXPECT_GT(f.height, 400);
  // The tick labels left the body text; the caption and the prose stayed.
  std::string body = pdf_fixture::all_text(d);
  EXPECT_EQ(body.find("validation loss"), std::string::npos) << body;
  EXPECT_NE(body.find("Figure 1: Training loss"), std::string::npos);
  EXPECT_NE(body.find("As Figure 1 shows"), std::string::npos);
  // Placed before its caption's block.
  ASSERT_LT(f.block, d.blocks.size());
  EXPECT_EQ(d.blocks[f.block].text.rfind("Figure 1:", 0), 0u);
}

TEST(PdfFigures, RasterImageWithCaptionAboveAndTinyImageIgnored) {
  PageSpec p = pdf_fixture::body_page("methods", 80);
  pdf_fixture::add_lines(p, 72, 170, 10, 12, {"Fig. 2. A photograph of the apparatus."});
  add_image(p, 150, 180, 240, 160, 120, 80);
  add_image(p, 500, 700, 8, 8, 4, 4, 1);  // an icon
  ParsedDocument d = parse_pdf(pdf_fixture::write_pdf({p}));
  ASSERT_EQ(d.figures.size(), 1u) << pdf_fixture::dump(d);
  EXPECT_EQ(d.figures[0].source, "raster");
  EXPECT_EQ(d.figures[0].label, "Figure 2");
  EXPECT_EQ(d.figures[0].caption, "Fig. 2. A photograph of the apparatus.");
}

TEST(PdfFigures, UncaptionedImageKeptLogoOnEveryPageDropped) {
  std::vector<PageSpec> pages;
  for (int i = 0; i < 4; ++i) {
    PageSpec p = pdf_fixture::body_page("part" + std::to_string(i), 120);
    add_image(p, 480, 30, 80, 40, 64, 32, 7);  // the same logo on every page
    if (i == 2) add_image(p, 100, 300, 300, 200, 150, 100, 3);
    pages.push_back(p);
  }
  ParsedDocument d = parse_pdf(pdf_fixture::write_pdf(pages));
  ASSERT_EQ(d.figures.size(), 1u) << pdf_fixture::dump(d);
  EXPECT_EQ(d.figures[0].page, 3);
  EXPECT_EQ(d.figures[0].label, "");
  EXPECT_EQ(d.figures[0].source, "raster");
}

TEST(PdfFigures, BoxesAndRulesAreNotFigures) {
  PageSpec p = pdf_fixture::body_page("boxed", 120);
  // A frame around the paragraph and a rule under it.
  p.extra += "q 0.5 w 66 600 480 80 re S 72 580 m 540 580 l S Q\n";
  ParsedDocument d = parse_pdf(pdf_fixture::write_pdf({p}));
  EXPECT_TRUE(d.figures.empty()) << d.figures.size();
}

TEST(PdfFigures, DisabledByContext) {
  PageSpec p = pdf_fixture::body_page("intro", 80);
  add_plot(p, 120, 160, 300, 200);
  pdf_fixture::add_lines(p, 72, 420, 10, 12, {"Figure 1: Training loss."});
  ParsedDocument d = parse_pdf(pdf_fixture::write_pdf({p}), false);
  EXPECT_TRUE(d.figures.empty());
  // Without figure extraction the labels stay in the text, as before.
  EXPECT_NE(pdf_fixture::all_text(d).find("validation loss"), std::string::npos);
}

TEST(PdfFigures, BrokenImageDataDoesNotFailTheDocument) {
  PageSpec p = pdf_fixture::body_page("broken", 80);
  pdf_fixture::add_lines(p, 72, 170, 10, 12, {"Figure 3: A broken image."});
  // Declares 200 x 200 pixels but carries 10 bytes.
  p.extra += "q 200 0 0 150 100 400 cm\nBI /W 200 /H 200 /CS /RGB /BPC 8 /F /DCT ID\n0123456789\nEI Q\n";
  ParsedDocument d;
  ASSERT_NO_THROW(d = parse_pdf(pdf_fixture::write_pdf({p})));
  EXPECT_NE(pdf_fixture::all_text(d).find("broken section"), std::string::npos);
}

// A page of 612 x 792 pt for detect_figures, and a text line on it.
struct TestPage {
  pdf::Page pg;
  TestPage() {
    pg.number = 1;
    pg.x1 = 612;
    pg.y1 = 792;
  }
  void line(float x0, float y0, float x1, const std::string& t) {
    pdf::Line l;
    l.x0 = x0, l.y0 = y0, l.x1 = x1, l.y1 = y0 + 10, l.size = 10;
    l.text_off = static_cast<uint32_t>(pg.text.size());
    l.text_len = static_cast<uint32_t>(t.size());
    l.nchars = l.text_len;
    pg.text += t;
    pg.lines.push_back(l);
  }
};

pdf::Graphic image_at(float x0, float y0, float x1, float y1, uint64_t key) {
  pdf::Graphic g;
  g.box = {x0, y0, x1, y1};
  g.image = true;
  g.image_key = key;
  g.image_w = g.image_h = 200;
  return g;
}

TEST(PdfFigureRegions, CaptionInRightColumnTakesTheRightColumnsDrawing) {
  TestPage tp;
  pdf::Page& pg = tp.pg;
  auto line = [&](float x0, float y0, float x1, const std::string& t) { tp.line(x0, y0, x1, t); };
  line(320, 300, 560, "Figure 4: Right column plot.");
  line(60, 300, 290, "Figure 3: Left column plot.");
  std::vector<pdf::Graphic> gs;
  for (int i = 0; i < 15; ++i) {
    pdf::Graphic a;  // left plot
    a.box = {60.0f + i * 10, 150, 70.0f + i * 10, 280};
    gs.push_back(a);
    pdf::Graphic b;  // right plot
    b.box = {330.0f + i * 10, 160, 340.0f + i * 10, 285};
    gs.push_back(b);
  }
  auto regions = pdf::detect_figures(pg, gs);
  ASSERT_EQ(regions.size(), 2u);
  for (const auto& r : regions) {
    if (r.label == "Figure 4") {
      EXPECT_GE(r.box.x0, 320);
    } else {
      EXPECT_EQ(r.label, "Figure 3");
      EXPECT_LE(r.box.x1, 300);
    }
  }
}

// A fully justified caption (pdfTeX, wide word gaps) comes out of the text layer one word a
// line; its row still reads as the caption, and all its words stay caption, not figure text.
// Seen in the ExpEYES manual (Debian's expeyes-doc-en), whose figures are a schematic next to
// a screenshot: two images, neither of them half the figure, which is still raster.
TEST(PdfFigureRegions, CaptionSplitWordByWordAndSideBySideImages) {
  TestPage tp;
  tp.line(100, 80, 500, "The wiring is shown in the figure below, with the screen it gives when it works.");
  const float y = 242;  // the caption row, 14 pt under the images
  float x = 151;
  for (std::string w : {"Figure", "4.2:", "(a)Inverting", "Amplifier", "making", "180 out", "of", "phase", "sine"}) {
    float x1 = x + 5.5f * static_cast<float>(w.size());
    tp.line(x, y, x1, w);
    x = x1 + 10;  // wider than a space: each word is a line of its own
  }
  tp.line(151, y + 12, 386, "wave.(b)Fullwave rectifier, two inputs and the output.");
  // Two images side by side, 142 x 93 pt each (with a gap between them), on a 315 x 93 pt region
  // with the short labels above: each image is 45% of the region.
  std::vector<pdf::Graphic> gs{image_at(179, 135, 321, 228, 1), image_at(344, 135, 486, 228, 2)};
  auto regions = pdf::detect_figures(tp.pg, gs);
  ASSERT_EQ(regions.size(), 1u);
  const pdf::Region& r = regions[0];
  EXPECT_EQ(r.label, "Figure 4.2");
  EXPECT_EQ(r.caption_line, 1);
  EXPECT_EQ(r.caption_text, "Figure 4.2: (a)Inverting Amplifier making 180 out of phase sine");
  EXPECT_TRUE(r.raster) << "two screenshots side by side are a raster figure";
  for (int i : r.text_lines) EXPECT_GE(i, 11) << "caption word taken as figure text: " << tp.pg.line_text(tp.pg.lines[i]);
  EXPECT_LT(r.box.y1, y);
}

// Images that overlap count once: an image drawn twice over a quarter of a vector plot does not
// make it a raster figure.
TEST(PdfFigureRegions, OverlappingImagesCountOnceForRaster) {
  TestPage tp;
  tp.line(100, 420, 400, "Figure 1: A plot with an inset.");
  std::vector<pdf::Graphic> gs;
  for (int i = 0; i < 20; ++i) {  // the plot: 20 curve segments over 300 x 200 pt
    pdf::Graphic g;
    g.box = {100.0f + 15 * i, 200, 115.0f + 15 * i, 400};
    gs.push_back(g);
  }
  gs.push_back(image_at(250, 200, 400, 300, 5));  // a quarter of the plot, drawn twice
  gs.push_back(image_at(250, 200, 400, 300, 5));
  gs.push_back(image_at(255, 205, 395, 295, 6));
  auto regions = pdf::detect_figures(tp.pg, gs);
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_EQ(regions[0].label, "Figure 1");
  EXPECT_FALSE(regions[0].raster);
  EXPECT_TRUE(regions[0].caption_text.empty()) << "a caption on one line keeps its line's text";
}

// Through MuPDF: a caption written word by word with wide gaps, under two images side by side.
TEST(PdfFigures, JustifiedCaptionUnderTwoImages) {
  PageSpec p = pdf_fixture::body_page("setup", 80);
  add_image(p, 150, 160, 140, 100, 70, 50, 1);
  add_image(p, 310, 160, 140, 100, 70, 50, 2);
  float x = 100;
  for (std::string w : {"Figure", "3:", "Wiring", "and", "the", "screen", "it", "shows."}) {
    p.runs.push_back({x, 280, 10, w});
    x += 6.0f * static_cast<float>(w.size()) + 24;
  }
  ParsedDocument d = parse_pdf(pdf_fixture::write_pdf({p}));
  ASSERT_EQ(d.figures.size(), 1u) << pdf_fixture::dump(d);
  const Figure& f = d.figures[0];
  EXPECT_EQ(f.label, "Figure 3");
  EXPECT_EQ(f.source, "raster");
  EXPECT_EQ(f.caption.rfind("Figure 3", 0), 0u) << f.caption;
  EXPECT_NE(f.caption.find("shows."), std::string::npos) << f.caption;
}

}  // namespace
}  // namespace mmkg
