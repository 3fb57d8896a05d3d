// Tests for OCR of figure images: words read from figures rendered here with MuPDF's draw device
// (a block diagram, a plot, prose, light-on-dark), the cheap blank path, every pixel format a
// PNG can carry, bad and oversized input, and concurrent use. No test asserts on time.
#include "ingest/ocr.h"

#include <gtest/gtest.h>
#include <leptonica/allheaders.h>
#include <mupdf/fitz.h>
#include <omp.h>
#include <zlib.h>

#include <algorithm>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace mmkg {
namespace {

// ---- figures rendered with MuPDF ----

struct Label {
  float x, y;  ///< baseline start, points from the top-left
  float size;
  std::string text;
  float gray = 0;  ///< 0 black .. 1 white
};
struct Shape {
  float x0, y0, x1, y1;
  bool fill = false;
  float gray = 0;
  bool line = false;  ///< a line from (x0,y0) to (x1,y1) rather than a rectangle
};
struct Scene {
  float w = 400, h = 300;  ///< points
  std::vector<Shape> shapes;  ///< drawn before the labels
  std::vector<Label> labels;
  float background = 1;
};

/// Rasterises `s` (Helvetica labels, stroked or filled shapes) at `scale` pixels per point to a
/// grey PNG.
std::string render_png(const Scene& s, float scale = 1) {
  fz_context* ctx = fz_new_context(nullptr, nullptr, FZ_STORE_DEFAULT);
  if (!ctx) throw std::runtime_error("fz_new_context failed");
  fz_pixmap* pix = nullptr;
  fz_device* dev = nullptr;
  fz_font* font = nullptr;
  fz_text* text = nullptr;
  fz_path* path = nullptr;
  fz_stroke_state* stroke = nullptr;
  fz_buffer* buf = nullptr;
  std::string out;
  volatile bool failed = false;
  fz_var(pix);
  fz_var(dev);
  fz_var(font);
  fz_var(text);
  fz_var(path);
  fz_var(stroke);
  fz_var(buf);
  fz_try(ctx) {
    fz_matrix ctm = fz_scale(scale, scale);
    fz_colorspace* gray = fz_device_gray(ctx);
    pix = fz_new_pixmap(ctx, gray, static_cast<int>(s.w * scale), static_cast<int>(s.h * scale), nullptr, 0);
    fz_clear_pixmap_with_value(ctx, pix, static_cast<int>(s.background * 255));
    dev = fz_new_draw_device(ctx, fz_identity, pix);
    stroke = fz_new_stroke_state(ctx);
    stroke->linewidth = 1.5f;
    for (const Shape& sh : s.shapes) {
      path = fz_new_path(ctx);
      if (sh.line) {
        fz_moveto(ctx, path, sh.x0, sh.y0);
        fz_lineto(ctx, path, sh.x1, sh.y1);
      } else {
        fz_rectto(ctx, path, sh.x0, sh.y0, sh.x1, sh.y1);
      }
      float c[1] = {sh.gray};
      if (sh.fill)
        fz_fill_path(ctx, dev, path, 0, ctm, gray, c, 1, fz_default_color_params);
      else
        fz_stroke_path(ctx, dev, path, stroke, ctm, gray, c, 1, fz_default_color_params);
      fz_drop_path(ctx, path);
      path = nullptr;
    }
    font = fz_new_base14_font(ctx, "Helvetica");
    for (const Label& l : s.labels) {
      text = fz_new_text(ctx);
      fz_show_string(ctx, text, font, fz_make_matrix(l.size, 0, 0, -l.size, l.x, l.y), l.text.c_str(), 0, 0,
                     FZ_BIDI_LTR, FZ_LANG_UNSET);
      float c[1] = {l.gray};
      fz_fill_text(ctx, dev, text, ctm, gray, c, 1, fz_default_color_params);
      fz_drop_text(ctx, text);
      text = nullptr;
    }
    fz_close_device(ctx, dev);
    buf = fz_new_buffer_from_pixmap_as_png(ctx, pix, fz_default_color_params);
    unsigned char* data = nullptr;
    size_t len = fz_buffer_storage(ctx, buf, &data);
    out.assign(reinterpret_cast<const char*>(data), len);
  }
  fz_always(ctx) {
    fz_drop_buffer(ctx, buf);
    fz_drop_path(ctx, path);
    fz_drop_text(ctx, text);
    fz_drop_stroke_state(ctx, stroke);
    fz_drop_font(ctx, font);
    fz_drop_device(ctx, dev);
    fz_drop_pixmap(ctx, pix);
  }
  fz_catch(ctx) { failed = true; }
  fz_drop_context(ctx);
  if (failed) throw std::runtime_error("rendering the test figure failed");
  return out;
}

/// A block diagram: a title, two boxes joined by an arrow, a note with a year.
Scene diagram() {
  Scene s;
  s.w = 420, s.h = 260;
  s.labels = {{120, 30, 16, "Transformer Architecture"},
              {62, 122, 14, "Encoder"},
              {262, 122, 14, "Decoder"},
              {150, 100, 10, "Attention"},
              {40, 230, 11, "Trained on 2024 data, 6 layers each"}};
  s.shapes = {{40, 90, 150, 140}, {240, 90, 350, 140}, {150, 115, 240, 115, false, 0, true},
              {230, 110, 240, 115, false, 0, true}, {230, 120, 240, 115, false, 0, true}};
  return s;
}

/// A line plot: axes with ticks and numbers, axis titles, a legend, two curves with markers.
Scene plot() {
  Scene s;
  s.shapes = {{60, 20, 60, 250, false, 0, true}, {60, 250, 380, 250, false, 0, true}};
  for (int i = 0; i <= 4; ++i) {
    float x = 60 + i * 80, y = 250 - i * 55;
    s.shapes.push_back({x, 250, x, 255, false, 0, true});
    s.labels.push_back({x - 8, 268, 10, std::to_string(i * 250)});
    s.shapes.push_back({55, y, 60, y, false, 0, true});
    s.labels.push_back({35, y + 4, 10, std::to_string(i * 25)});
  }
  float px = 60, py = 240;
  for (int i = 1; i <= 16; ++i) {
    float x = 60 + i * 20, y = 240 - 200.0f * (1 - 1.0f / (1 + i * 0.4f));
    s.shapes.push_back({px, py, x, y, false, 0, true});
    s.shapes.push_back({x - 2, y - 2, x + 2, y + 2, true, 0});
    s.shapes.push_back({px, py + 20, x, y + 20, false, 0.4f, true});
    px = x, py = y;
  }
  s.labels.push_back({170, 292, 11, "Training steps"});
  s.labels.push_back({250, 180, 10, "Baseline model"});
  s.labels.push_back({250, 195, 10, "Our method"});
  s.labels.push_back({120, 15, 12, "Validation accuracy"});
  return s;
}

/// Four lines of screenshot-like prose in 11 pt.
Scene prose() {
  Scene s;
  s.w = 420, s.h = 90;
  s.labels = {{10, 20, 11, "The encoder maps an input sequence to a sequence of"},
              {10, 36, 11, "continuous representations. Given these, the decoder"},
              {10, 52, 11, "then generates an output sequence one element at a"},
              {10, 68, 11, "time. In 2024 the model reached 93.4 percent accuracy."}};
  return s;
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

std::string describe(const OcrResult& r) {
  std::ostringstream o;
  o << "kept=" << r.words_kept << " dropped=" << r.words_dropped << " conf=" << r.confidence
    << " blank=" << r.blank << " error='" << r.error << "' text:\n" << r.text;
  return o.str();
}

// ---- images built with Leptonica ----

struct PixFree {
  void operator()(PIX* p) const { pixDestroy(&p); }
};
using Pix = std::unique_ptr<PIX, PixFree>;

Pix decode(const std::string& png) {
  return Pix(pixReadMem(reinterpret_cast<const l_uint8*>(png.data()), png.size()));
}

std::string encode(PIX* pix) {
  l_uint8* data = nullptr;
  size_t size = 0;
  if (!pix || pixWriteMem(&data, &size, pix, IFF_PNG) != 0) throw std::runtime_error("PNG encoding failed");
  std::string out(reinterpret_cast<const char*>(data), size);
  lept_free(data);
  return out;
}

/// A w x h 8-bit grey PNG of one value, plus uniform noise of +-`noise` levels.
std::string solid_png(int w, int h, int value, int noise = 0) {
  Pix pix(pixCreate(w, h, 8));
  pixSetAllArbitrary(pix.get(), value);
  if (noise == 0) return encode(pix.get());
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> d(-noise, noise);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) pixSetPixel(pix.get(), x, y, std::clamp(value + d(rng), 0, 255));
  return encode(pix.get());
}

std::string be32(uint32_t v) { return std::string{char(v >> 24), char(v >> 16), char(v >> 8), char(v)}; }

/// A PNG chunk with its length and CRC: `type_and_data` is the 4-letter type, then the data.
std::string png_chunk(const std::string& type_and_data) {
  uLong crc = crc32(0, reinterpret_cast<const Bytef*>(type_and_data.data()), type_and_data.size());
  return be32(static_cast<uint32_t>(type_and_data.size() - 4)) + type_and_data + be32(static_cast<uint32_t>(crc));
}

/// A PNG whose header claims w x h 8-bit grey pixels, followed by almost no image data.
std::string png_claiming(uint32_t w, uint32_t h) {
  auto chunk = png_chunk;
  std::string ihdr = "IHDR" + be32(w) + be32(h) + std::string("\x08\x00\x00\x00\x00", 5);
  std::string idat = "IDAT" + std::string("\x78\x9c\x63\x00\x00\x00\x01\x00\x01", 9);
  return std::string("\x89PNG\r\n\x1a\n", 8) + chunk(ihdr) + chunk(idat) + chunk("IEND");
}

// ---- engine ----

TEST(OcrEngine, AvailableWithEnglish) {
  std::string why;
  ASSERT_TRUE(ocr_available(&why)) << why;
  std::string id = ocr_engine_id();
  EXPECT_EQ(id.rfind("tesseract 5.", 0), 0u) << id;
  EXPECT_TRUE(has(id, " eng psm11 ")) << id;
}

// ---- words read ----

TEST(OcrRead, DiagramWordsWithConfidence) {
  // At 1 px per point the box labels are ~8 px high letters: without the upscale Tesseract
  // misses "Encoder", "Decoder" and "Attention".
  OcrResult r = ocr_png(render_png(diagram()));
  ASSERT_TRUE(r.error.empty()) << describe(r);
  EXPECT_FALSE(r.blank);
  for (const char* w : {"Transformer Architecture", "Encoder", "Decoder", "Attention", "2024", "layers"})
    EXPECT_TRUE(has(r.text, w)) << w << "\n" << describe(r);
  EXPECT_GT(r.confidence, 60) << describe(r);
  EXPECT_LE(r.confidence, 100);
  EXPECT_GE(r.words_kept, 10) << describe(r);
  // Line structure: the two boxes are separate lines, a line's words are joined by one space.
  EXPECT_TRUE(has(r.text, "Encoder\n") || has(r.text, "\nEncoder")) << describe(r);
  EXPECT_FALSE(has(r.text, "Encoder Decoder")) << describe(r);
}

TEST(OcrRead, PlotLabelsAndTicksWithoutStrayMarks) {
  OcrResult r = ocr_png(render_png(plot()));
  ASSERT_TRUE(r.error.empty()) << describe(r);
  for (const char* w : {"Validation accuracy", "Training steps", "Baseline model", "Our method", "250", "1000"})
    EXPECT_TRUE(has(r.text, w)) << w << "\n" << describe(r);
  // Nothing but the labels: tick marks, the axes' corner and curve markers come out of
  // Tesseract as "5" (confidence 31) or "T" (a stray letter) and are dropped; under PSM 3 they
  // were glued to the numbers beside them ("75 4").
  std::set<std::string> labels{"Validation", "accuracy", "Training", "steps", "Baseline", "model", "Our", "method",
                               "0", "25", "50", "75", "100", "250", "500", "750", "1000"};
  std::istringstream words(r.text);
  for (std::string w; words >> w;) EXPECT_TRUE(labels.count(w)) << w << "\n" << describe(r);
  EXPECT_GE(r.words_dropped, 1) << describe(r);
}

TEST(OcrRead, ProseReadLineByLine) {
  OcrResult r = ocr_png(render_png(prose()));
  ASSERT_TRUE(r.error.empty()) << describe(r);
  EXPECT_TRUE(has(r.text, "The encoder maps an input sequence to a sequence of\n")) << describe(r);
  EXPECT_TRUE(has(r.text, "continuous representations. Given these, the decoder")) << describe(r);
  EXPECT_TRUE(has(r.text, "93.4 percent accuracy")) << describe(r);
  EXPECT_GT(r.confidence, 80) << describe(r);
}

TEST(OcrRead, LightTextOnDarkBackground) {
  Scene s = diagram();
  s.background = 0.1f;
  for (Label& l : s.labels) l.gray = 1;
  for (Shape& sh : s.shapes) sh.gray = 1;
  OcrResult r = ocr_png(render_png(s));
  ASSERT_TRUE(r.error.empty()) << describe(r);
  for (const char* w : {"Transformer", "Encoder", "Decoder", "2024"})
    EXPECT_TRUE(has(r.text, w)) << w << "\n" << describe(r);
  EXPECT_GT(r.confidence, 60);
}

TEST(OcrRead, DarkBannerInsideLightImage) {
  // Mostly light: the image is not inverted, and Tesseract's per-line invert pass reads the banner.
  Scene s = prose();
  s.h = 140;
  s.shapes.push_back({0, 90, 420, 135, true, 0.15f});
  s.labels.push_back({20, 118, 14, "Decoder output banner", 1});
  OcrResult r = ocr_png(render_png(s));
  EXPECT_TRUE(has(r.text, "continuous representations")) << describe(r);
  EXPECT_TRUE(has(r.text, "Decoder output banner")) << describe(r);
}

TEST(OcrRead, JunkFragmentsAreDropped) {
  Scene s;
  s.w = 420, s.h = 120;
  s.labels = {{20, 40, 16, "Encoder"}, {160, 40, 16, "..."}, {220, 40, 16, "x"}, {260, 40, 16, "(b)"},
              {320, 40, 16, "--->"}, {20, 90, 16, "Decoder"}, {160, 90, 16, "I"}, {220, 90, 16, "7"}};
  OcrResult r = ocr_png(render_png(s));
  ASSERT_TRUE(r.error.empty()) << describe(r);
  EXPECT_TRUE(has(r.text, "Encoder")) << describe(r);
  EXPECT_TRUE(has(r.text, "Decoder")) << describe(r);
  EXPECT_TRUE(has(r.text, "7")) << describe(r);  // a digit is a word
  for (const char* junk : {"...", "(b)", "--", " x"}) EXPECT_FALSE(has(r.text, junk)) << junk << "\n" << describe(r);
  EXPECT_GE(r.words_dropped, 2) << describe(r);
}

TEST(OcrRead, LowConfidenceScribblesAreDropped) {
  // Zigzag lines and two words printed over each other: Tesseract reads them as words
  // ("LINING", "Bigaager") with confidences well under 60.
  Scene s;
  s.w = 420, s.h = 160;
  s.labels = {{20, 40, 16, "Encoder"}, {20, 140, 12, "Decoder"}, {22, 141, 12, "Xyzzy"},
              {200, 140, 7, "WWWW"}, {201, 140.5f, 7, "MMMM"}};
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < 12; ++i) {
      float x = 20 + k * 130 + i * 8;
      s.shapes.push_back({x, i % 2 ? 90.f : 100.f, x + 8, i % 2 ? 100.f : 90.f, false, 0, true});
    }
  OcrResult r = ocr_png(render_png(s));
  ASSERT_TRUE(r.error.empty()) << describe(r);
  EXPECT_EQ(r.text, "Encoder") << describe(r);
  EXPECT_GE(r.words_dropped, 2) << describe(r);
  EXPECT_GT(r.confidence, 90) << describe(r);
}

TEST(OcrRead, SingleSmallWordOnLargeCanvasIsNotBlank) {
  Scene s;
  s.w = s.h = 1200;
  s.labels = {{500, 600, 14, "Encoder"}};
  OcrResult r = ocr_png(render_png(s));
  EXPECT_FALSE(r.blank) << describe(r);
  EXPECT_TRUE(has(r.text, "Encoder")) << describe(r);
}

TEST(OcrRead, LargeImageIsDownscaledAndRead) {
  // 5040 x 3120 px (15.7 Mpx): over the 4000 px side limit, read after downscaling.
  OcrResult r = ocr_png(render_png(diagram(), 12));
  ASSERT_TRUE(r.error.empty()) << describe(r);
  for (const char* w : {"Transformer", "Encoder", "Decoder"}) EXPECT_TRUE(has(r.text, w)) << w << "\n" << describe(r);
}

TEST(OcrRead, SmallTextIsUpscaledAndRead) {
  // 11 pt at 0.7 px per point: capitals ~6 px high, read after scaling up 3x (toward 24 px).
  OcrResult r = ocr_png(render_png(prose(), 0.7f));
  ASSERT_TRUE(r.error.empty()) << describe(r);
  EXPECT_FALSE(r.blank) << describe(r);
  EXPECT_GE(r.text_lines, 4) << describe(r);
  EXPECT_GE(r.scale, 2.5) << describe(r);
  for (const char* w : {"input sequence", "representations", "decoder"}) EXPECT_TRUE(has(r.text, w)) << w << "\n" << describe(r);
}

TEST(OcrRead, LargeTextIsDownscaledAndRead) {
  // A 40 pt title at 4 px per point (1200 x 320 px, under every size limit): lower-case letters
  // ~85 px high, over twice the 24 px target, so the image is read at about half its size.
  Scene s;
  s.w = 300, s.h = 80;
  s.labels = {{10, 55, 40, "Encoder output"}};
  OcrResult r = ocr_png(render_png(s, 4));
  ASSERT_TRUE(r.error.empty()) << describe(r);
  EXPECT_GT(r.text_height, 60) << describe(r);
  EXPECT_LT(r.scale, 0.8) << describe(r);
  EXPECT_GT(r.scale, 0.4) << describe(r);
  EXPECT_TRUE(has(r.text, "Encoder output")) << describe(r);
}

// ---- pixel formats ----

TEST(OcrFormats, EveryPngPixelFormatReadsTheSameWords) {
  Pix gray = decode(render_png(diagram()));
  ASSERT_TRUE(gray);
  ASSERT_EQ(pixGetDepth(gray.get()), 8);
  Pix rgb(pixConvertTo32(gray.get()));
  Pix bits16(pixConvert8To16(gray.get(), 8));
  Pix palette(pixConvertGrayToColormap(gray.get()));
  Pix binary(pixThresholdToBinary(gray.get(), 128));
  // RGBA whose every pixel is black: only alpha draws the text (transparent background).
  Pix alpha_only(pixCreate(pixGetWidth(gray.get()), pixGetHeight(gray.get()), 32));
  Pix opacity(pixInvert(nullptr, gray.get()));
  pixSetRGBComponent(alpha_only.get(), opacity.get(), L_ALPHA_CHANNEL);
  pixSetSpp(alpha_only.get(), 4);
  struct Case {
    const char* name;
    PIX* pix;
  };
  for (Case c : {Case{"rgb", rgb.get()}, Case{"16-bit", bits16.get()}, Case{"palette", palette.get()},
                 Case{"1-bit", binary.get()}, Case{"rgba", alpha_only.get()}}) {
    ASSERT_NE(c.pix, nullptr) << c.name;
    OcrResult r = ocr_png(encode(c.pix));
    EXPECT_TRUE(r.error.empty()) << c.name << "\n" << describe(r);
    for (const char* w : {"Transformer", "Encoder", "Decoder", "2024"})
      EXPECT_TRUE(has(r.text, w)) << c.name << ": " << w << "\n" << describe(r);
  }
}

// ---- blank images: no Tesseract ----

TEST(OcrBlank, WhiteGreyAndNoisyImagesAreBlank) {
  struct Case {
    const char* name;
    std::string png;
  };
  for (const Case& c : {Case{"white", solid_png(800, 600, 255)}, Case{"grey", solid_png(800, 600, 128)},
                        Case{"black", solid_png(300, 300, 0)}, Case{"noisy grey", solid_png(640, 480, 200, 3)},
                        Case{"white render", render_png(Scene{})}}) {
    OcrResult r = ocr_png(c.png);
    EXPECT_TRUE(r.blank) << c.name << "\n" << describe(r);
    EXPECT_TRUE(r.error.empty()) << c.name;
    EXPECT_TRUE(r.text.empty()) << c.name;
    EXPECT_EQ(r.words_kept + r.words_dropped, 0) << c.name;
    EXPECT_EQ(r.confidence, -1) << c.name;
  }
}

/// A photo-like image without text: `n` filled grey blobs of random size (6-60 px) and place,
/// over a noisy background: plenty of letter-sized ink, no line of letters.
std::string blobs_png(int w, int h, int n, unsigned seed) {
  Pix pix(pixCreate(w, h, 8));
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> noise(-6, 6), size(6, 60), gray(0, 90);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) pixSetPixel(pix.get(), x, y, 225 + noise(rng));
  for (int i = 0; i < n; ++i) {
    int bw = size(rng), bh = size(rng);
    int x0 = std::uniform_int_distribution<int>(0, w - bw)(rng), y0 = std::uniform_int_distribution<int>(0, h - bh)(rng);
    int v = gray(rng);
    for (int y = y0; y < y0 + bh; ++y)  // an ellipse inside the box
      for (int x = x0; x < x0 + bw; ++x) {
        double dx = (x - x0 - bw / 2.0) / (bw / 2.0), dy = (y - y0 - bh / 2.0) / (bh / 2.0);
        if (dx * dx + dy * dy <= 1) pixSetPixel(pix.get(), x, y, v);
      }
  }
  return encode(pix.get());
}

TEST(OcrBlank, PhotoLikeImagesWithoutTextLinesAreNotRead) {
  // Random blobs do line up by chance now and then (three of similar size, level and close: in
  // 4 of these 20 seeds with 30 blobs, 8 of 20 with 60), and such an image is read like any
  // other; the seeds here are ones without such a chance line.
  const int NB = 30;
  // Dozens of letter-sized blobs (the old test, 3 letter-sized components, sent these to
  // Tesseract) but no three in a row at one level: skipped as blank, Tesseract not run.
  for (unsigned seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
    OcrResult r = ocr_png(blobs_png(800, 600, NB, seed));
    EXPECT_TRUE(r.blank) << seed << " lines=" << r.text_lines << "\n" << describe(r);
    EXPECT_TRUE(r.error.empty()) << seed;
    EXPECT_EQ(r.text_lines, 0) << seed;
    EXPECT_EQ(r.scale, 0) << seed << ": Tesseract read it";
    EXPECT_EQ(r.words_kept + r.words_dropped, 0) << seed;
  }
  // The same blobs with one short label on a clear patch: read.
  Pix pix = decode(blobs_png(800, 600, NB, 1));
  Scene label;
  label.w = 800, label.h = 600;
  label.labels = {{300, 560, 18, "Encoder"}};
  Pix text = decode(render_png(label));
  ASSERT_TRUE(pix && text);
  BOX* patch = boxCreate(280, 530, 200, 45);
  pixSetInRect(pix.get(), patch);
  boxDestroy(&patch);
  Pix merged(pixMinOrMax(nullptr, pix.get(), text.get(), L_CHOOSE_MIN));
  OcrResult r = ocr_png(encode(merged.get()));
  EXPECT_FALSE(r.blank) << describe(r);
  EXPECT_GE(r.text_lines, 1) << describe(r);
  EXPECT_TRUE(has(r.text, "Encoder")) << describe(r);
}

TEST(OcrBlank, TinyImagesAreBlank) {
  for (int side : {1, 2, 15}) {
    Pix pix(pixCreate(side, side, 8));  // black
    OcrResult r = ocr_png(encode(pix.get()));
    EXPECT_TRUE(r.blank) << side << "\n" << describe(r);
    EXPECT_TRUE(r.error.empty()) << side;
  }
  Pix strip(pixCreate(2000, 10, 8));
  EXPECT_TRUE(ocr_png(encode(strip.get())).blank);
}

TEST(OcrBlank, LargeSolidImageIsDecodedDownscaledAndBlank) {
  OcrResult r = ocr_png(solid_png(5000, 4000, 255));  // 20 Mpx: under the decode limit
  EXPECT_TRUE(r.blank) << describe(r);
  EXPECT_TRUE(r.error.empty()) << describe(r);
}

// ---- bad input: an error, never a crash ----

TEST(OcrBadInput, EmptyCorruptAndTruncatedBytes) {
  ::testing::internal::CaptureStderr();  // libpng and Tesseract chatter must not reach the user
  std::string good = render_png(diagram());
  std::mt19937 rng(11);
  std::string noise(4096, '\0');
  for (char& c : noise) c = static_cast<char>(rng());
  std::string flipped = good;
  for (size_t i = 100; i < flipped.size(); i += 97) flipped[i] = static_cast<char>(~flipped[i]);
  struct Case {
    const char* name;
    std::string bytes;
  };
  for (const Case& c : {Case{"empty", ""}, Case{"text", "not an image at all"}, Case{"noise", noise},
                        Case{"signature only", good.substr(0, 8)}, Case{"header only", good.substr(0, 40)},
                        Case{"truncated", good.substr(0, good.size() / 2)}}) {
    OcrResult r = ocr_png(c.bytes);
    EXPECT_FALSE(r.error.empty()) << c.name << "\n" << describe(r);
    EXPECT_EQ(r.error.find('\n'), std::string::npos) << c.name;
    EXPECT_TRUE(r.text.empty()) << c.name;
    EXPECT_FALSE(r.blank) << c.name;
  }
  // Damage inside the data is caught by the chunk checksums, before libpng sees (and prints) it.
  EXPECT_TRUE(has(ocr_png(flipped).error, "checksum"));
  EXPECT_TRUE(has(ocr_png(good.substr(0, good.size() - 12)).error, "truncated"));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST(OcrBadInput, BrokenAncillaryChunksAreIgnoredSilently) {
  // A colour profile that does not decompress and a text chunk: libpng would warn about the
  // profile on stderr; OCR does not need either.
  std::string good = render_png(diagram());
  std::string extra = png_chunk(std::string("iCCP") + "icc" + std::string(2, '\0') + "not zlib data") +
                      png_chunk(std::string("tEXt") + "Title" + std::string(1, '\0') + "Figure");
  std::string png = good.substr(0, 33) + extra + good.substr(33);  // after the signature and IHDR
  ::testing::internal::CaptureStderr();
  OcrResult r = ocr_png(png);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_TRUE(r.error.empty()) << describe(r);
  EXPECT_TRUE(has(r.text, "Encoder")) << describe(r);
}

TEST(OcrBadInput, HugeDeclaredSizeIsRefusedBeforeDecoding) {
  for (auto [w, h] : {std::pair<uint32_t, uint32_t>{20000, 20000}, {100000, 1000}, {0x7fffffff, 0x7fffffff}}) {
    OcrResult r = ocr_png(png_claiming(w, h));
    EXPECT_FALSE(r.error.empty()) << w << "x" << h << "\n" << describe(r);
    EXPECT_TRUE(r.text.empty());
  }
  EXPECT_TRUE(has(ocr_png(png_claiming(20000, 20000)).error, "20000x20000 px"));
}

// ---- threads ----

TEST(OcrThreads, CallersOpenMpSettingIsRestored) {
  // Tesseract's OpenMP regions run serially during the call only (see SerialOpenMP).
  int before = omp_get_max_active_levels();
  OcrResult r = ocr_png(render_png(prose()));
  EXPECT_TRUE(has(r.text, "93.4")) << describe(r);
  EXPECT_EQ(omp_get_max_active_levels(), before);
}

TEST(OcrThreads, FourThreadsReadTheSameText) {
  std::string png = render_png(diagram());
  OcrResult single = ocr_png(png);
  ASSERT_TRUE(has(single.text, "Encoder")) << describe(single);
  std::vector<OcrResult> results(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      for (int k = 0; k < 2; ++k) results[i] = ocr_png(png);
    });
  for (std::thread& t : threads) t.join();
  for (const OcrResult& r : results) {
    EXPECT_EQ(r.text, single.text) << describe(r);
    EXPECT_EQ(r.words_kept, single.words_kept);
    EXPECT_FLOAT_EQ(r.confidence, single.confidence);
  }
}

}  // namespace
}  // namespace mmkg
