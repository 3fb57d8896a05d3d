// PDF figures: regions found from drawings and images, captions, figure text, logos, decoration.
// Fixture PDFs are written with MuPDF (support/pdf_fixtures.h): vector plots as content-stream
// paths, raster images as inline images.
#include <gtest/gtest.h>

#include <zlib.h>

#include <algorithm>
#include <array>
#include <sstream>
#include <tuple>

#include "ingest/parser.h"
#include "ingest/pdf_figures.h"
#include "support/image_fixtures.h"
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

// An inline image with dictionary entries `dict` (abbreviated inline-image keys) and encoded
// `data`, drawn at (x, top) with size (dw, dh) points.
void add_inline(PageSpec& p, float x, float top, float dw, float dh, const std::string& dict, const std::string& data,
                const std::string& fill = "") {
  std::ostringstream g;
  g << "q " << fill << ' ' << dw << " 0 0 " << dh << ' ' << x << ' ' << (792 - top - dh) << " cm\nBI " << dict << " ID\n";
  p.extra += g.str() + data + "\nEI Q\n";
}

// An image XObject named `name` (dictionary entries `entries`, stream `data` as stored) drawn
// like add_inline. Broken data goes here rather than inline: the end of a broken inline image
// cannot be found, and the rest of the content stream goes with it.
void add_xobject(PageSpec& p, const std::string& name, float x, float top, float dw, float dh, const std::string& entries,
                 const std::string& data) {
  p.images.push_back({name, "<< /Type /XObject /Subtype /Image " + entries + " >>", data});
  std::ostringstream g;
  g << "q " << dw << " 0 0 " << dh << ' ' << x << ' ' << (792 - top - dh) << " cm /" << name << " Do Q\n";
  p.extra += g.str();
}

std::string deflate(const std::string& raw) {
  uLongf n = compressBound(raw.size());
  std::string out(n, '\0');
  compress(reinterpret_cast<Bytef*>(out.data()), &n, reinterpret_cast<const Bytef*>(raw.data()), raw.size());
  out.resize(n);
  return out;
}

std::string repeat(int times, const std::string& pixel) {
  std::string s;
  for (int i = 0; i < times; ++i) s += pixel;
  return s;
}

const Figure* by_label(const ParsedDocument& d, const std::string& label) {
  for (const Figure& f : d.figures)
    if (f.label == label) return &f;
  return nullptr;
}

// The colour at the centre of a figure's image.
std::array<int, 3> centre(const Figure& f) {
  auto px = image_fixture::read_png(f.png);
  const unsigned char* c = px.at(px.w / 2, px.h / 2);
  return {c[0], c[1], c[2]};
}

TEST(PdfFigures, UnusualColourSpacesComeOutAsRgb) {
  PageSpec p1 = pdf_fixture::body_page("cmyk", 80);
  add_inline(p1, 150, 160, 200, 120, "/W 8 /H 8 /CS /CMYK /BPC 8", repeat(64, std::string("\0\xff\xff\0", 4)));
  pdf_fixture::add_lines(p1, 72, 300, 10, 12, {"Figure 1: A CMYK red square."});
  add_inline(p1, 150, 420, 200, 120, "/W 8 /H 8 /CS [/I /RGB 1 <FF0000 00C000>] /BPC 8", std::string(64, '\1'));
  pdf_fixture::add_lines(p1, 72, 560, 10, 12, {"Figure 2: An indexed green square."});
  PageSpec p2 = pdf_fixture::body_page("deep", 80);
  add_inline(p2, 150, 160, 200, 120, "/W 8 /H 8 /CS /RGB /BPC 16", repeat(64, std::string("\0\0\0\0\xff\xff", 6)));
  pdf_fixture::add_lines(p2, 72, 300, 10, 12, {"Figure 3: A sixteen-bit blue square."});
  add_inline(p2, 150, 420, 200, 120, "/W 16 /H 16 /IM true /BPC 1", std::string(32, '\0'), "1 0 0 rg");
  pdf_fixture::add_lines(p2, 72, 560, 10, 12, {"Figure 4: A stencil mask painted red."});
  // A PDF's DCT samples are taken as stored (an inverted Adobe JPEG comes with a /Decode array).
  std::string cmyk_jpeg = image_fixture::jpeg(16, 16, 4, repeat(256, std::string("\0\xff\xff\0", 4)));
  add_inline(p2, 150, 600, 150, 90, "/W 16 /H 16 /CS /CMYK /BPC 8 /F /DCT", cmyk_jpeg);
  pdf_fixture::add_lines(p2, 72, 705, 10, 12, {"Figure 5: A CMYK JPEG, red."});
  ParsedDocument d = parse_pdf(pdf_fixture::write_pdf({p1, p2}));
  ASSERT_EQ(d.figures.size(), 5u) << pdf_fixture::dump(d);
  EXPECT_TRUE(d.warnings.empty()) << d.warnings[0];
  auto is = [](std::array<int, 3> c, int r, int g, int b) {
    return std::abs(c[0] - r) < 60 && std::abs(c[1] - g) < 60 && std::abs(c[2] - b) < 60;
  };
  for (auto [label, r, g, b] : {std::tuple{"Figure 1", 255, 0, 0}, {"Figure 2", 0, 192, 0}, {"Figure 3", 0, 0, 255},
                                {"Figure 4", 255, 0, 0}, {"Figure 5", 255, 0, 0}}) {
    const Figure* f = by_label(d, label);
    ASSERT_TRUE(f) << label;
    ASSERT_FALSE(f->png.empty()) << label;
    auto c = centre(*f);
    EXPECT_TRUE(is(c, r, g, b)) << label << ": " << c[0] << "," << c[1] << "," << c[2];
  }
}

TEST(PdfFigures, BrokenImagesCostOneWarningEachNeverTheDocument) {
  PageSpec p1 = pdf_fixture::body_page("jbig", 80);
  add_image(p1, 150, 160, 200, 120, 60, 40);
  pdf_fixture::add_lines(p1, 72, 300, 10, 12, {"Figure 1: A good image."});
  add_xobject(p1, "J", 150, 420, 200, 120,
              "/Width 64 /Height 48 /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /JBIG2Decode",
              std::string(200, '\x5a'));
  pdf_fixture::add_lines(p1, 72, 560, 10, 12, {"Figure 2: A corrupt JBIG2 scan."});
  PageSpec p2 = pdf_fixture::body_page("cut", 80);
  std::string rgb;
  // Busy pixels, so that the first half of the file (past the tables) holds many rows.
  for (int i = 0; i < 160 * 120; ++i) rgb += std::string{char(i * 37 % 251), char(i / 160 * 2), char(i * 11 % 97)};
  std::string jpeg = image_fixture::jpeg(160, 120, 3, rgb);
  add_xobject(p2, "C", 150, 160, 200, 120,
              "/Width 160 /Height 120 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode",
              jpeg.substr(0, jpeg.size() / 2));
  pdf_fixture::add_lines(p2, 72, 300, 10, 12, {"Figure 3: A photograph cut off halfway."});
  add_xobject(p2, "G", 150, 420, 200, 120,
              "/Width 50 /Height 40 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode",
              std::string(300, '\x33'));
  pdf_fixture::add_lines(p2, 72, 560, 10, 12, {"Figure 4: Garbage Flate data."});
  PageSpec p3 = pdf_fixture::body_page("huge", 80);
  add_xobject(p3, "H", 150, 160, 200, 120,
              "/Width 30000 /Height 30000 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode",
              deflate(std::string(3000, '\x80')));
  pdf_fixture::add_lines(p3, 72, 300, 10, 12, {"Figure 5: A panorama that claims to be enormous."});
  ParsedDocument d;
  ::testing::internal::CaptureStderr();
  ASSERT_NO_THROW(d = parse_pdf(pdf_fixture::write_pdf({p1, p2, p3})));
  // libjpeg's own "Corrupt JPEG data" line is routed into MuPDF's warnings, not printed.
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  std::string text = pdf_fixture::all_text(d);
  for (const char* w : {"jbig section", "cut section", "huge section"}) EXPECT_NE(text.find(w), std::string::npos) << w;
  ASSERT_EQ(d.figures.size(), 5u) << pdf_fixture::dump(d);
  std::string all;
  for (const auto& w : d.warnings) all += w + "\n";
  ASSERT_EQ(d.warnings.size(), 4u) << all;
  struct Want {
    const char* label;
    const char* where;
    const char* says;
    bool image_kept;
  };
  for (const Want& w : {Want{"Figure 2", "page 1, Figure 2: its image (JBIG2, 64x48 px) is corrupt", "without its image", false},
                        Want{"Figure 3", "page 2, Figure 3: its image (JPEG, 160x120 px) is damaged", "part of it may be blank", true},
                        Want{"Figure 4", "page 2, Figure 4: its image (Flate, 50x40 px) is corrupt", "without its image", false},
                        Want{"Figure 5", "page 3, Figure 5: its image (Flate, 30000x30000 px) is truncated", "without its image", false}}) {
    EXPECT_EQ(std::count_if(d.warnings.begin(), d.warnings.end(),
                            [&](const std::string& s) { return s.rfind(w.where, 0) == 0 && s.find(w.says) != std::string::npos; }),
              1)
        << w.where << "\n" << all;
    const Figure* f = by_label(d, w.label);
    ASSERT_TRUE(f) << w.label;
    EXPECT_EQ(!f->png.empty(), w.image_kept) << w.label;
    EXPECT_FALSE(f->caption.empty()) << w.label;
  }
  ASSERT_TRUE(by_label(d, "Figure 1"));
  EXPECT_FALSE(by_label(d, "Figure 1")->png.empty());
}

// A valid embedded JBIG2 stream (PDF's JBIG2Decode, no file header): a page information
// segment, then one immediate lossless generic region coded with MMR (its data is CCITT G4,
// which MuPDF can write), then end of page. `rows` is 1 bit a pixel, rows padded to bytes.
std::string jbig2_mmr(int w, int h, const std::string& rows) {
  auto be32 = [](std::string& s, uint32_t v) {
    for (int k = 3; k >= 0; --k) s.push_back(static_cast<char>(v >> (8 * k)));
  };
  auto segment = [&](std::string& out, uint32_t number, uint8_t type, const std::string& data) {
    be32(out, number);
    out.push_back(static_cast<char>(type));  // page association in 1 byte
    out.push_back('\0');                     // refers to no segment
    out.push_back('\1');                     // page 1
    be32(out, static_cast<uint32_t>(data.size()));
    out += data;
  };
  // MuPDF's G4 writer takes grey samples (1 white); JBIG2's 1 is black.
  std::string grey = rows;
  for (char& c : grey) c = static_cast<char>(~c);
  fz_context* ctx = fz_new_context(nullptr, nullptr, FZ_STORE_DEFAULT);
  fz_buffer* g4 = fz_compress_ccitt_fax_g4(ctx, reinterpret_cast<const unsigned char*>(grey.data()), w, h);
  unsigned char* data = nullptr;
  size_t n = fz_buffer_storage(ctx, g4, &data);
  std::string mmr(reinterpret_cast<const char*>(data), n);
  fz_drop_buffer(ctx, g4);
  fz_drop_context(ctx);
  std::string page_info, region, out;
  be32(page_info, static_cast<uint32_t>(w));
  be32(page_info, static_cast<uint32_t>(h));
  be32(page_info, 0);
  be32(page_info, 0);
  page_info += std::string("\0\0\0", 3);  // flags, striping
  be32(region, static_cast<uint32_t>(w));
  be32(region, static_cast<uint32_t>(h));
  be32(region, 0);
  be32(region, 0);
  region.push_back('\0');  // combination operator OR
  region.push_back('\1');  // generic region flags: MMR
  region += mmr;
  segment(out, 0, 48, page_info);
  segment(out, 1, 38, region);
  segment(out, 2, 49, "");
  return out;
}

TEST(PdfFigures, ValidJbig2ImageIsDrawn) {
  // Left half black, right half white: 64 x 48, 8 bytes a row.
  std::string rows;
  for (int y = 0; y < 48; ++y) rows += std::string(4, '\xff') + std::string(4, '\0');
  PageSpec p = pdf_fixture::body_page("scan", 80);
  add_xobject(p, "S", 150, 160, 200, 150,
              "/Width 64 /Height 48 /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /JBIG2Decode",
              jbig2_mmr(64, 48, rows));
  pdf_fixture::add_lines(p, 72, 330, 10, 12, {"Figure 1: A scanned page in JBIG2."});
  ParsedDocument d = parse_pdf(pdf_fixture::write_pdf({p}));
  ASSERT_EQ(d.figures.size(), 1u) << pdf_fixture::dump(d);
  EXPECT_TRUE(d.warnings.empty()) << d.warnings[0];
  ASSERT_FALSE(d.figures[0].png.empty());
  auto px = image_fixture::read_png(d.figures[0].png);
  const unsigned char* left = px.at(px.w / 4, px.h / 2);
  const unsigned char* right = px.at(3 * px.w / 4, px.h / 2);
  EXPECT_LT(left[0], 60) << "JBIG2 1 bits are black";
  EXPECT_GT(right[0], 200);
}

TEST(PdfFigures, HugeInlineImageCostsTheRestOfItsPageNotTheDocument) {
  // MuPDF decodes an inline image while it reads the page: 30000x30000 RGB is 2.7 GB, over the
  // memory budget. The text before it stays; the page is not lost, the document not failed.
  PageSpec p = pdf_fixture::body_page("inline", 80);
  add_inline(p, 150, 300, 200, 120, "/W 30000 /H 30000 /CS /RGB /BPC 8", std::string(3000, '\x80'));
  ParsedDocument d;
  ASSERT_NO_THROW(d = parse_pdf(pdf_fixture::write_pdf({p})));
  EXPECT_NE(pdf_fixture::all_text(d).find("inline section"), std::string::npos);
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_EQ(d.warnings[0].rfind("page 1 could not be read to its end (an inline image needs more than the 1024 MiB", 0),
            0u)
      << d.warnings[0];
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
