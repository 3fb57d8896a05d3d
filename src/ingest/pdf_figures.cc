// PdfFigureExtractor: the MuPDF half of PDF figure extraction (see pdf_figures.h).
//
// Each page is interpreted once into a display list by the parser; the list is run through
// a recording device here (bounding boxes of images, paths and shadings) and through the
// structured-text device by the parser. Regions are rendered later, from the page reloaded,
// at kDpi: a vector plot rasterises cleanly at that resolution, and a photo or screenshot
// keeps enough pixels for OCR without keeping its full original size.
//
// Like pdf_parser.cc: MuPDF calls run inside fz_try with no C++ object of their own.
#include <mupdf/fitz.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/hash.h"
#include "ingest/parser.h"
#include "ingest/pdf_figures.h"
#include "text/captions.h"

namespace mmkg {

namespace {

constexpr float kDpi = 150;
constexpr int kMaxSide = 2400;     // pixels: a larger region is rendered at a lower resolution
constexpr float kPad = 3;          // points of margin around a region
constexpr int kRepeatedPages = 3;  // an uncaptioned image on this many pages is a logo

// ---- recording device ----

struct Recorder {
  fz_device super;
  std::vector<pdf::Graphic>* out;
  int images_seen;
};

struct PathShape {
  int segments = 0;
  bool boxy = true;
  float lx = 0, ly = 0;
};

void ps_moveto(fz_context*, void* arg, float x, float y) {
  auto* s = static_cast<PathShape*>(arg);
  s->lx = x;
  s->ly = y;
}
void ps_lineto(fz_context*, void* arg, float x, float y) {
  auto* s = static_cast<PathShape*>(arg);
  ++s->segments;
  if (std::fabs(x - s->lx) > 0.01f && std::fabs(y - s->ly) > 0.01f) s->boxy = false;
  s->lx = x;
  s->ly = y;
}
void ps_curveto(fz_context*, void* arg, float, float, float, float, float x3, float y3) {
  auto* s = static_cast<PathShape*>(arg);
  ++s->segments;
  s->boxy = false;
  s->lx = x3;
  s->ly = y3;
}
void ps_closepath(fz_context*, void*) {}
void ps_rectto(fz_context*, void* arg, float, float, float, float) { ++static_cast<PathShape*>(arg)->segments; }

pdf::Rect rect_of(fz_rect r) {
  if (!std::isfinite(r.x0) || !std::isfinite(r.y0) || !std::isfinite(r.x1) || !std::isfinite(r.y1)) return {};
  return {r.x0, r.y0, r.x1, r.y1};
}

bool is_white(fz_context* ctx, fz_colorspace* cs, const float* color) {
  if (!cs || !color) return false;
  int n = fz_colorspace_n(ctx, cs);
  if (fz_colorspace_is_cmyk(ctx, cs)) {
    for (int i = 0; i < n; ++i)
      if (color[i] > 0.02f) return false;
    return true;
  }
  if (!fz_colorspace_is_gray(ctx, cs) && !fz_colorspace_is_rgb(ctx, cs)) return false;
  for (int i = 0; i < n; ++i)
    if (color[i] < 0.98f) return false;
  return true;
}

void record_path(fz_context* ctx, fz_device* dev, const fz_path* path, const fz_stroke_state* stroke, fz_matrix ctm,
                 fz_colorspace* cs, const float* color, float alpha) {
  auto* r = reinterpret_cast<Recorder*>(dev);
  if (alpha <= 0.01f || (!stroke && is_white(ctx, cs, color))) return;
  pdf::Graphic g;
  g.box = rect_of(fz_bound_path(ctx, path, stroke, ctm));
  if (g.box.empty() && !(g.box.w() >= 0 && g.box.h() >= 0)) return;
  PathShape shape;
  fz_path_walker w;
  std::memset(&w, 0, sizeof w);
  w.moveto = ps_moveto;
  w.lineto = ps_lineto;
  w.curveto = ps_curveto;
  w.closepath = ps_closepath;
  w.rectto = ps_rectto;
  fz_walk_path(ctx, path, &w, &shape);
  // Rotated content: a path whose user space is rotated is not axis-aligned on the page.
  if (std::fabs(ctm.b) > 0.01f || std::fabs(ctm.c) > 0.01f) shape.boxy = false;
  g.boxy = shape.boxy;
  r->out->push_back(g);
}

void rec_fill_path(fz_context* ctx, fz_device* dev, const fz_path* path, int, fz_matrix ctm, fz_colorspace* cs,
                   const float* color, float alpha, fz_color_params) {
  record_path(ctx, dev, path, nullptr, ctm, cs, color, alpha);
}
void rec_stroke_path(fz_context* ctx, fz_device* dev, const fz_path* path, const fz_stroke_state* st, fz_matrix ctm,
                     fz_colorspace* cs, const float* color, float alpha, fz_color_params) {
  record_path(ctx, dev, path, st, ctm, cs, color, alpha);
}
void rec_fill_shade(fz_context* ctx, fz_device* dev, fz_shade* shd, fz_matrix ctm, float alpha, fz_color_params) {
  auto* r = reinterpret_cast<Recorder*>(dev);
  if (alpha <= 0.01f) return;
  pdf::Graphic g;
  g.box = rect_of(fz_bound_shade(ctx, shd, ctm));
  r->out->push_back(g);
}
void record_image(fz_context* ctx, fz_device* dev, fz_image* img, fz_matrix ctm) {
  auto* r = reinterpret_cast<Recorder*>(dev);
  pdf::Graphic g;
  g.image = true;
  g.box = rect_of(fz_transform_rect(fz_unit_rect, ctm));
  g.image_w = img->w;
  g.image_h = img->h;
  // Identity across pages: the encoded stream when MuPDF kept it (a PDF image XObject), else
  // the pixel size (a weaker key, enough to spot a logo).
  fz_compressed_buffer* cb = fz_compressed_image_buffer(ctx, img);
  if (cb && cb->buffer) {
    unsigned char* data = nullptr;
    size_t n = fz_buffer_storage(ctx, cb->buffer, &data);
    g.image_key = data && n ? hash64(std::string_view(reinterpret_cast<const char*>(data), n)) : 0;
  }
  if (!g.image_key) g.image_key = (static_cast<uint64_t>(img->w) << 32) ^ static_cast<uint64_t>(img->h) ^ 0x9e3779b97f4a7c15ull;
  ++r->images_seen;
  r->out->push_back(g);
}
void rec_fill_image(fz_context* ctx, fz_device* dev, fz_image* img, fz_matrix ctm, float alpha, fz_color_params) {
  if (alpha > 0.01f) record_image(ctx, dev, img, ctm);
}
void rec_fill_image_mask(fz_context* ctx, fz_device* dev, fz_image* img, fz_matrix ctm, fz_colorspace*, const float*,
                         float alpha, fz_color_params) {
  if (alpha > 0.01f) record_image(ctx, dev, img, ctm);
}

__attribute__((noinline)) bool record_list(fz_context* ctx, fz_display_list* list, std::vector<pdf::Graphic>* out,
                                           std::string* err) {
  fz_device* volatile dev = nullptr;
  bool ok = true;
  fz_try(ctx) {
    Recorder* r = fz_new_derived_device(ctx, Recorder);
    dev = &r->super;
    r->out = out;
    r->images_seen = 0;
    r->super.fill_path = rec_fill_path;
    r->super.stroke_path = rec_stroke_path;
    r->super.fill_shade = rec_fill_shade;
    r->super.fill_image = rec_fill_image;
    r->super.fill_image_mask = rec_fill_image_mask;
    fz_run_display_list(ctx, list, dev, fz_identity, fz_infinite_rect, nullptr);
    fz_close_device(ctx, dev);
  }
  fz_always(ctx) fz_drop_device(ctx, dev);
  fz_catch(ctx) {
    const char* m = fz_caught_message(ctx);
    if (err) err->assign(m ? m : "unknown MuPDF error");
    ok = false;
  }
  return ok;
}

/// Renders `clip` (page space) of page `number` (0-based) at `scale` into PNG bytes. MuPDF
/// calls only; the result lands in `png`, `w`, `h`.
__attribute__((noinline)) bool render_region(fz_context* ctx, fz_document* doc, int number, fz_rect clip, float scale,
                                             fz_buffer** png, int* w, int* h, std::string* err) {
  fz_page* volatile page = nullptr;
  fz_pixmap* volatile pix = nullptr;
  fz_device* volatile dev = nullptr;
  bool ok = true;
  fz_try(ctx) {
    page = fz_load_page(ctx, doc, number);
    fz_matrix ctm = fz_scale(scale, scale);
    fz_irect box = fz_round_rect(fz_transform_rect(clip, ctm));
    pix = fz_new_pixmap_with_bbox(ctx, fz_device_rgb(ctx), box, nullptr, 0);
    fz_clear_pixmap_with_value(ctx, pix, 255);
    dev = fz_new_draw_device(ctx, fz_identity, pix);
    fz_run_page_contents(ctx, page, dev, ctm, nullptr);
    fz_close_device(ctx, dev);
    *w = fz_pixmap_width(ctx, pix);
    *h = fz_pixmap_height(ctx, pix);
    *png = fz_new_buffer_from_pixmap_as_png(ctx, pix, fz_default_color_params);
  }
  fz_always(ctx) {
    fz_drop_device(ctx, dev);
    fz_drop_pixmap(ctx, pix);
    fz_drop_page(ctx, page);
  }
  fz_catch(ctx) {
    const char* m = fz_caught_message(ctx);
    if (err) err->assign(m ? m : "unknown MuPDF error");
    ok = false;
  }
  return ok;
}

std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  if (s.size() > 160) s.resize(160);
  return s;
}

}  // namespace

struct PdfFigureExtractor::Impl {
  fz_context* ctx;
  struct Found {
    int page;  // 1-based
    pdf::Region region;
    std::string caption_first;  // the caption's first line, to find its paragraph later
    std::string text;           // the text inside the region
  };
  std::vector<Found> found;
  std::map<uint64_t, std::set<int>> image_pages;  // image key -> pages it is drawn on
  std::vector<pdf::Graphic> scratch;
  int record_failures = 0;
  std::string first_failure;
};

PdfFigureExtractor::PdfFigureExtractor(void* ctx) : impl_(new Impl{static_cast<fz_context*>(ctx), {}, {}, {}, 0, {}}) {}
PdfFigureExtractor::~PdfFigureExtractor() { delete impl_; }

void PdfFigureExtractor::collect(void* list, pdf::Page& page) {
  Impl& m = *impl_;
  m.scratch.clear();
  std::string err;
  if (!record_list(m.ctx, static_cast<fz_display_list*>(list), &m.scratch, &err)) {
    if (m.record_failures++ == 0) m.first_failure = "page " + std::to_string(page.number) + ": " + one_line(err);
    // Whatever was recorded before the error is still usable.
  }
  for (const pdf::Graphic& g : m.scratch)
    if (g.image && g.image_key) m.image_pages[g.image_key].insert(page.number);
  for (pdf::Region& r : pdf::detect_figures(page, m.scratch)) {
    Impl::Found f;
    f.page = page.number;
    if (!r.caption_text.empty()) f.caption_first = r.caption_text;
    else if (r.caption_line >= 0) f.caption_first = std::string(page.line_text(page.lines[static_cast<size_t>(r.caption_line)]));
    std::vector<int> order = r.text_lines;
    std::sort(order.begin(), order.end(), [&](int a, int b) {
      const pdf::Line& la = page.lines[static_cast<size_t>(a)];
      const pdf::Line& lb = page.lines[static_cast<size_t>(b)];
      if (std::fabs(la.y0 - lb.y0) > 2) return la.y0 < lb.y0;
      return la.x0 < lb.x0;
    });
    for (int i : order) {
      if (!f.text.empty()) f.text += '\n';
      f.text += page.line_text(page.lines[static_cast<size_t>(i)]);
      if (r.drop_text_from_body) page.lines[static_cast<size_t>(i)].dropped = true;
    }
    f.region = std::move(r);
    m.found.push_back(std::move(f));
  }
}

void PdfFigureExtractor::render(void* doc, ParsedDocument& out) {
  Impl& m = *impl_;
  if (m.record_failures > 0)
    out.warnings.push_back("figures: the drawings of " + std::to_string(m.record_failures) +
                           " page(s) could not be read completely (" + m.first_failure + "); some figures may be missing");
  std::vector<Impl::Found> kept;
  int failed = 0;
  for (Impl::Found& f : m.found) {
    // Logos and page decoration: an uncaptioned image drawn on many pages.
    if (f.region.caption_line < 0 && f.region.raster) {
      bool repeated = false;
      for (uint64_t k : f.region.image_keys) {
        auto it = m.image_pages.find(k);
        if (it != m.image_pages.end() && static_cast<int>(it->second.size()) >= kRepeatedPages) repeated = true;
      }
      if (repeated) continue;
    }
    const pdf::Rect& b = f.region.box;
    fz_rect clip{b.x0 - kPad, b.y0 - kPad, b.x1 + kPad, b.y1 + kPad};
    float scale = kDpi / 72.0f;
    float side = std::max(clip.x1 - clip.x0, clip.y1 - clip.y0) * scale;
    if (side > kMaxSide) scale *= kMaxSide / side;
    fz_buffer* buf = nullptr;
    int w = 0, h = 0;
    std::string err;
    if (!render_region(m.ctx, static_cast<fz_document*>(doc), f.page - 1, clip, scale, &buf, &w, &h, &err) || !buf) {
      if (failed++ < 5)
        out.warnings.push_back("page " + std::to_string(f.page) + ": figure " +
                               (f.region.label.empty() ? std::string("(uncaptioned)") : f.region.label) +
                               " could not be rendered (" + one_line(err) + "); figure skipped");
      continue;
    }
    unsigned char* data = nullptr;
    size_t n = fz_buffer_storage(m.ctx, buf, &data);
    Figure fig;
    fig.png.assign(reinterpret_cast<const char*>(data), n);
    fz_drop_buffer(m.ctx, buf);
    fig.width = w;
    fig.height = h;
    fig.page = f.page;
    fig.x0 = b.x0;
    fig.y0 = b.y0;
    fig.x1 = b.x1;
    fig.y1 = b.y1;
    fig.table = f.region.table;
    fig.source = f.region.raster ? "raster" : "vector";
    fig.label = f.region.label;
    fig.caption = f.caption_first;
    if (!f.text.empty()) {
      fig.text = f.text;
      fig.text_source = "pdf";
    }
    out.figures.push_back(std::move(fig));
    kept.push_back(std::move(f));
  }
  if (failed > 5) out.warnings.push_back(std::to_string(failed - 5) + " more figures could not be rendered; skipped");
  m.found = std::move(kept);
}

void PdfFigureExtractor::place(const std::vector<pdf::Page>& pages, ParsedDocument& out) {
  // Each figure goes before its caption's paragraph (the Markdown export shows the image, then
  // "Figure 1: ..."); an uncaptioned figure goes after the last block of its page.
  const auto& blocks = out.blocks;
  std::vector<char> caption_taken(blocks.size(), 0);
  for (Figure& fig : out.figures) {
    size_t pos = blocks.size();
    bool placed = false;
    if (!fig.caption.empty()) {
      for (size_t i = 0; i < blocks.size(); ++i) {
        if (blocks[i].page != fig.page || caption_taken[i]) continue;
        if (blocks[i].text.compare(0, fig.caption.size(), fig.caption) == 0) {
          fig.caption = blocks[i].text;
          caption_taken[i] = 1;
          pos = i;
          placed = true;
          break;
        }
      }
    }
    if (!placed) {
      for (size_t i = 0; i < blocks.size(); ++i)
        if (blocks[i].page > fig.page) {
          pos = i;
          break;
        }
    }
    fig.block = pos;
  }
  // Keep reading order: figures sorted by position (stable for several at one place).
  std::stable_sort(out.figures.begin(), out.figures.end(), [](const Figure& a, const Figure& b) { return a.block < b.block; });
  (void)pages;
}

}  // namespace mmkg
