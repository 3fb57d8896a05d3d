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
#include "ingest/mupdf_support.h"
#include "ingest/parser.h"
#include "ingest/pdf_figures.h"
#include "ingest/pdf_tables.h"
#include "text/captions.h"

namespace mmkg {

/// What a warning about a broken image says of it (outside the anonymous namespace: the
/// extractor's Impl holds it, and a unity build sees this file as a header).
struct PdfImageInfo {
  int w = 0, h = 0;
  std::string kind;  // the encoding: "JPEG", "JBIG2", "Flate", ...
};

namespace {

using mupdf::one_line;

constexpr float kDpi = 150;
constexpr int kRenderMaxSide = 2400;  // pixels: a larger region is rendered at a lower resolution
constexpr float kPad = 3;          // points of margin around a region
constexpr int kRepeatedPages = 3;  // an uncaptioned image on this many pages is a logo
constexpr int kMaxImageWarnings = 20;  // per document: then one line with the count of the rest

const char* encoding_name(int type) {
  switch (type) {
    case FZ_IMAGE_RAW: return "uncompressed";
    case FZ_IMAGE_FAX: return "CCITT fax";
    case FZ_IMAGE_FLATE: return "Flate";
    case FZ_IMAGE_LZW: return "LZW";
    case FZ_IMAGE_RLD: return "RunLength";
    case FZ_IMAGE_JBIG2: return "JBIG2";
    case FZ_IMAGE_JPEG: return "JPEG";
    case FZ_IMAGE_JPX: return "JPEG 2000";
    case FZ_IMAGE_BMP: return "BMP";
    case FZ_IMAGE_GIF: return "GIF";
    case FZ_IMAGE_PNG: return "PNG";
    case FZ_IMAGE_TIFF: return "TIFF";
    default: return "image";
  }
}

// ---- recording device ----

constexpr size_t kMaxRules = 20000;  // per page: beyond this the page is a drawing, not tables

struct Recorder {
  fz_device super;
  std::vector<pdf::Graphic>* out;
  std::vector<pdf::Rule>* rules;
  std::map<uint64_t, PdfImageInfo>* images;
  int images_seen;
};

/// A path's shape: whether it is only axis-aligned straight segments, and those segments (user
/// space) for the table rules.
struct PathShape {
  int segments = 0;
  bool boxy = true;
  float lx = 0, ly = 0;
  float sx = 0, sy = 0;  // start of the subpath (closepath draws back to it)
  std::vector<fz_rect> segs;   // straight segments as (x0, y0) -> (x1, y1)
  std::vector<fz_rect> rects;  // rectangles
};

void ps_moveto(fz_context*, void* arg, float x, float y) {
  auto* s = static_cast<PathShape*>(arg);
  s->lx = s->sx = x;
  s->ly = s->sy = y;
}
void ps_lineto(fz_context*, void* arg, float x, float y) {
  auto* s = static_cast<PathShape*>(arg);
  ++s->segments;
  if (std::fabs(x - s->lx) > 0.01f && std::fabs(y - s->ly) > 0.01f) s->boxy = false;
  if (s->boxy && s->segs.size() < kMaxRules) s->segs.push_back({s->lx, s->ly, x, y});
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
void ps_closepath(fz_context* ctx, void* arg) {
  auto* s = static_cast<PathShape*>(arg);
  if (s->lx != s->sx || s->ly != s->sy) ps_lineto(ctx, arg, s->sx, s->sy);
}
void ps_rectto(fz_context*, void* arg, float x0, float y0, float x1, float y1) {
  auto* s = static_cast<PathShape*>(arg);
  ++s->segments;
  if (s->rects.size() < kMaxRules) s->rects.push_back({x0, y0, x1, y1});
}

/// Table rules from an axis-aligned path (page space): its straight segments, and its
/// rectangles: a thin filled one (LaTeX's \hline) is one rule, any other its four edges.
void add_rules(const PathShape& shape, fz_matrix ctm, bool filled, std::vector<pdf::Rule>& out) {
  auto segment = [&](fz_point a, fz_point b, bool user = true) {
    if (user) {
      a = fz_transform_point(a, ctm);
      b = fz_transform_point(b, ctm);
    }
    if (!std::isfinite(a.x) || !std::isfinite(a.y) || !std::isfinite(b.x) || !std::isfinite(b.y)) return;
    if (out.size() >= kMaxRules) return;
    if (std::fabs(a.y - b.y) < 0.5f && std::fabs(a.x - b.x) >= 0.5f)
      out.push_back({true, (a.y + b.y) / 2, std::min(a.x, b.x), std::max(a.x, b.x)});
    else if (std::fabs(a.x - b.x) < 0.5f && std::fabs(a.y - b.y) >= 0.5f)
      out.push_back({false, (a.x + b.x) / 2, std::min(a.y, b.y), std::max(a.y, b.y)});
  };
  for (const fz_rect& s : shape.segs) segment({s.x0, s.y0}, {s.x1, s.y1});
  for (const fz_rect& r0 : shape.rects) {
    fz_rect r = fz_transform_rect(r0, ctm);
    float w = r.x1 - r.x0, h = r.y1 - r.y0;
    if (filled && h <= 3 && w > h) {
      segment({r.x0, (r.y0 + r.y1) / 2}, {r.x1, (r.y0 + r.y1) / 2}, false);
      continue;
    }
    if (filled && w <= 3 && h > w) {
      segment({(r.x0 + r.x1) / 2, r.y0}, {(r.x0 + r.x1) / 2, r.y1}, false);
      continue;
    }
    segment({r.x0, r.y0}, {r.x1, r.y0}, false);  // r is in page space already
    segment({r.x0, r.y1}, {r.x1, r.y1}, false);
    segment({r.x0, r.y0}, {r.x0, r.y1}, false);
    segment({r.x1, r.y0}, {r.x1, r.y1}, false);
  }
}

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
  if (shape.boxy && r->rules) add_rules(shape, ctm, stroke == nullptr, *r->rules);
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
  PdfImageInfo& info = (*r->images)[g.image_key];
  info.w = img->w;
  info.h = img->h;
  info.kind = encoding_name(cb ? cb->params.type : FZ_IMAGE_UNKNOWN);
}
void rec_fill_image(fz_context* ctx, fz_device* dev, fz_image* img, fz_matrix ctm, float alpha, fz_color_params) {
  if (alpha > 0.01f) record_image(ctx, dev, img, ctm);
}
void rec_fill_image_mask(fz_context* ctx, fz_device* dev, fz_image* img, fz_matrix ctm, fz_colorspace*, const float*,
                         float alpha, fz_color_params) {
  if (alpha > 0.01f) record_image(ctx, dev, img, ctm);
}

__attribute__((noinline)) bool record_list(fz_context* ctx, fz_display_list* list, std::vector<pdf::Graphic>* out,
                                           std::vector<pdf::Rule>* rules, std::map<uint64_t, PdfImageInfo>* images,
                                           std::string* err) {
  fz_device* volatile dev = nullptr;
  bool ok = true;
  fz_try(ctx) {
    Recorder* r = fz_new_derived_device(ctx, Recorder);
    dev = &r->super;
    r->out = out;
    r->rules = rules;
    r->images = images;
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

/// True when the pixmap (RGB, no alpha) holds nothing but white and at most one other colour,
/// up to noise: what a region looks like when its only image failed to decode (left white, or
/// filled with the padding MuPDF puts in place of missing data).
bool flat_pixmap(fz_context* ctx, fz_pixmap* pix) {
  const int w = fz_pixmap_width(ctx, pix), h = fz_pixmap_height(ctx, pix), n = fz_pixmap_components(ctx, pix);
  if (w <= 0 || h <= 0 || n < 3) return false;
  const ptrdiff_t stride = fz_pixmap_stride(ctx, pix);
  const unsigned char* samples = fz_pixmap_samples(ctx, pix);
  const unsigned char* centre = samples + (h / 2) * stride + (w / 2) * n;
  const unsigned char c[3] = {centre[0], centre[1], centre[2]};
  int64_t other = 0;
  for (int y = 0; y < h; ++y) {
    const unsigned char* p = samples + y * stride;
    for (int x = 0; x < w; ++x, p += n) {
      bool white = p[0] >= 245 && p[1] >= 245 && p[2] >= 245;
      bool same = std::abs(p[0] - c[0]) <= 12 && std::abs(p[1] - c[1]) <= 12 && std::abs(p[2] - c[2]) <= 12;
      if (!white && !same) ++other;
    }
  }
  return other * 200 < int64_t{w} * h;  // under 0.5% of the pixels
}

/// Renders `clip` (page space) of page `number` (0-based) at `scale` pixels per point (lowered
/// so that no side exceeds kRenderMaxSide) into PNG bytes. The result lands in `png`, `w`, `h`,
/// `flat` (see flat_pixmap).
bool render_region(fz_context* ctx, fz_document* doc, int number, fz_rect clip, float scale, fz_buffer** png, int* w,
                   int* h, bool* flat, std::string* err) {
  return mupdf::draw_page(ctx, doc, number, &clip, &scale, kRenderMaxSide, /*annotations=*/false, err, [&](fz_pixmap* pix) {
    *w = fz_pixmap_width(ctx, pix);
    *h = fz_pixmap_height(ctx, pix);
    *flat = flat_pixmap(ctx, pix);
    *png = fz_new_buffer_from_pixmap_as_png(ctx, pix, fz_default_color_params);
  });
}

// ---- MuPDF's messages while one figure is drawn ----

/// Collects the warnings and errors MuPDF reports while installed (it reports every error
/// when thrown, even one caught inside MuPDF, such as a decoder failing in the middle of a page).
struct Messages {
  std::vector<std::string> list;
  static void on(void* user, const char* msg) {
    auto* m = static_cast<Messages*>(user);
    // "... repeated N times ...": the flush of a message already collected.
    if (msg && std::strncmp(msg, "...", 3) != 0 && m->list.size() < 32) m->list.push_back(msg);
  }
};

/// Swaps the context's callbacks for `m` until destroyed; flushes MuPDF's buffered (repeated)
/// warnings on both ends so that each lands with the figure that caused it.
class Capture {
 public:
  Capture(fz_context* ctx, Messages* m) : ctx_(ctx) {
    fz_flush_warnings(ctx);
    warn_ = fz_warning_callback(ctx, &warn_user_);
    error_ = fz_error_callback(ctx, &error_user_);
    fz_set_warning_callback(ctx, Messages::on, m);
    fz_set_error_callback(ctx, Messages::on, m);
  }
  ~Capture() {
    fz_flush_warnings(ctx_);
    fz_set_warning_callback(ctx_, warn_, warn_user_);
    fz_set_error_callback(ctx_, error_, error_user_);
  }
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;

 private:
  fz_context* ctx_;
  fz_warning_cb* warn_;
  fz_error_cb* error_;
  void* warn_user_ = nullptr;
  void* error_user_ = nullptr;
};

bool contains(const std::string& s, std::initializer_list<const char*> words) {
  for (const char* w : words)
    if (s.find(w) != std::string::npos) return true;
  return false;
}

/// The message that best says what went wrong with an image, or "" when none is about images.
/// The generic follow-ups ("read error; treating as end of file", "padding truncated image")
/// only count when nothing more specific came before them.
std::string image_trouble(const std::vector<std::string>& msgs) {
  std::string generic;
  for (const std::string& m : msgs) {
    std::string low = m;
    for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!contains(low, {"image", "jpeg", "jpx", "jbig2", "zlib", "flate", "lzw", "fax", "rld", "dct", "decod",
                        "truncated", "premature", "corrupt", "padding", "memory", "colorspace", "color space"}))
      continue;
    if (contains(low, {"read error", "padding truncated image"})) {
      if (generic.empty()) generic = m;
      continue;
    }
    return m;
  }
  return generic;
}

/// A table found from the page's text and rules: its rows as Markdown, no image (the rows are
/// the content; a picture of them adds nothing search can use).
Figure table_figure(int page, const pdf::Region& r, const std::string& caption, const std::string& markdown) {
  Figure fig;
  fig.table = true;
  fig.source = "table";
  fig.page = page;
  fig.x0 = r.box.x0;
  fig.y0 = r.box.y0;
  fig.x1 = r.box.x1;
  fig.y1 = r.box.y1;
  fig.label = r.label;
  fig.caption = caption;
  fig.table_markdown = markdown;
  return fig;
}

}  // namespace

struct PdfFigureExtractor::Impl {
  fz_context* ctx;
  const mupdf::MemoryBudget* budget;
  struct Found {
    int page;  // 1-based
    pdf::Region region;
    std::string caption_first;  // the caption's first line, to find its paragraph later
    std::string text;           // the text inside the region
    std::string table_markdown; // a table found from its text and rules: its rows (no image)
    bool caption_above = false; // tables: the caption precedes the rows
  };
  std::vector<Found> found;
  std::map<uint64_t, std::set<int>> image_pages;  // image key -> pages it is drawn on
  std::map<uint64_t, PdfImageInfo> images;           // image key -> what a warning says of it
  std::vector<pdf::Graphic> scratch;
  std::vector<pdf::Rule> rules;
  int record_failures = 0;
  std::string first_failure;
  // Problems of figures, by index in ParsedDocument::figures at render time: reported by
  // place(), once reading order gives uncaptioned figures their number.
  std::vector<std::pair<size_t, std::string>> problems;
  int more_problems = 0;

  /// Logos and page decoration: an uncaptioned image drawn on many pages.
  bool repeated_image(const pdf::Region& r) const {
    if (r.caption_line >= 0 || !r.raster) return false;
    bool repeated = false;
    for (uint64_t k : r.image_keys) {
      auto it = image_pages.find(k);
      if (it != image_pages.end() && static_cast<int>(it->second.size()) >= kRepeatedPages) repeated = true;
    }
    return repeated;
  }

  /// The figure's picture: its region rendered to PNG, at most kRenderMaxSide pixels a side. A
  /// problem (a broken image, a render that failed) is noted as figure `index`'s; the figure
  /// then has no image when nothing of it could be drawn.
  Figure draw(fz_document* doc, const Found& f, size_t index) {
    const pdf::Rect& b = f.region.box;
    fz_rect clip{b.x0 - kPad, b.y0 - kPad, b.x1 + kPad, b.y1 + kPad};
    fz_buffer* buf = nullptr;
    int w = 0, h = 0;
    bool flat = false, rendered = false;
    std::string err;
    Messages msgs;
    const int refused_before = budget ? budget->refused : 0;
    {
      Capture capture(ctx, &msgs);
      mupdf::JpegMessagesTo jpeg(ctx);
      rendered = render_region(ctx, doc, f.page - 1, clip, kDpi / 72.0f, &buf, &w, &h, &flat, &err) && buf;
    }
    const bool out_of_memory = (budget && budget->refused > refused_before) || contains(err, {"out of memory"});
    std::string trouble = rendered ? image_trouble(msgs.list) : one_line(err);
    if (trouble.empty() && !rendered) trouble = "unknown MuPDF error";
    // Nothing of a broken image came out: a flat render is no picture of the figure.
    const bool keep_image = rendered && !(out_of_memory || (!trouble.empty() && flat));
    Figure fig;
    if (keep_image) {
      unsigned char* data = nullptr;
      size_t n = fz_buffer_storage(ctx, buf, &data);
      fig.png.assign(reinterpret_cast<const char*>(data), n);
      fig.width = w;
      fig.height = h;
    }
    if (buf) fz_drop_buffer(ctx, buf);
    if (!trouble.empty() || out_of_memory) {
      std::string problem = describe_problem(f.region, out_of_memory, rendered, keep_image, trouble);
      if (static_cast<int>(problems.size()) < kMaxImageWarnings)
        problems.emplace_back(index, std::move(problem));
      else
        ++more_problems;
    }
    return fig;
  }

  /// What went wrong with the figure's image, for its warning.
  std::string describe_problem(const pdf::Region& r, bool out_of_memory, bool rendered, bool keep_image,
                               const std::string& trouble) const {
    if (out_of_memory)
      return what_failed(r) + " needs more than the " + std::to_string((budget ? budget->limit : 0) >> 20) +
             " MiB of memory allowed per document to decode; the figure is kept without its image "
             "(downscale the image in the PDF to keep it)";
    if (!rendered) return "could not be drawn (" + trouble + "); the figure is kept without its image";
    // MuPDF's own words for data that simply ends early are no help to a reader.
    const bool short_data = contains(trouble, {"padding truncated image", "read error"});
    return what_failed(r) +
           (short_data ? std::string(" is truncated (its data ends before the image does)")
                       : (keep_image ? " is damaged (" : " is corrupt (") + one_line(trouble) + ")") +
           (keep_image ? "; the figure is kept, part of it may be blank" : "; the figure is kept without its image");
  }

  /// "its image (JBIG2, 200x150 px)", "one of its 3 images", "its drawing".
  std::string what_failed(const pdf::Region& r) const {
    std::vector<const PdfImageInfo*> infos;
    for (uint64_t k : r.image_keys)
      if (auto it = images.find(k); it != images.end()) infos.push_back(&it->second);
    if (infos.empty()) return "its drawing";
    if (infos.size() > 1) return "one of its " + std::to_string(infos.size()) + " images";
    return "its image (" + infos[0]->kind + ", " + std::to_string(infos[0]->w) + "x" + std::to_string(infos[0]->h) +
           " px)";
  }
};

PdfFigureExtractor::PdfFigureExtractor(void* ctx, const mupdf::MemoryBudget* budget)
    : impl_(new Impl{static_cast<fz_context*>(ctx), budget, {}, {}, {}, {}, {}, 0, {}, {}, 0}) {}
PdfFigureExtractor::~PdfFigureExtractor() { delete impl_; }

void PdfFigureExtractor::collect(void* list, pdf::Page& page) {
  Impl& m = *impl_;
  m.scratch.clear();
  m.rules.clear();
  std::string err;
  if (!record_list(m.ctx, static_cast<fz_display_list*>(list), &m.scratch, &m.rules, &m.images, &err)) {
    if (m.record_failures++ == 0) m.first_failure = "page " + std::to_string(page.number) + ": " + one_line(err);
    // Whatever was recorded before the error is still usable.
  }
  for (const pdf::Graphic& g : m.scratch)
    if (g.image && g.image_key) m.image_pages[g.image_key].insert(page.number);
  std::vector<pdf::Region> regions = pdf::detect_figures(page, m.scratch);
  // Tables first: they need the figure regions, which are moved into `found` below.
  for (pdf::TableRegion& t : pdf::detect_tables(page, m.rules, regions)) {
    Impl::Found f;
    f.page = page.number;
    f.region.box = t.box;
    f.region.caption_line = t.caption_line;
    f.region.label = t.label;
    f.region.table = true;
    if (t.caption_line >= 0) f.caption_first = std::string(page.line_text(page.lines[static_cast<size_t>(t.caption_line)]));
    f.table_markdown = markdown_table(t.rows);
    f.caption_above = t.caption_above;
    // The cells leave the body text: they are in the table's chunk (and the export puts the
    // Markdown table back in place).
    for (int i : t.lines) page.lines[static_cast<size_t>(i)].dropped = true;
    m.found.push_back(std::move(f));
  }
  for (pdf::Region& r : regions) {
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
  for (Impl::Found& f : m.found) {
    if (!f.table_markdown.empty()) {
      out.figures.push_back(table_figure(f.page, f.region, f.caption_first, f.table_markdown));
      kept.push_back(std::move(f));
      continue;
    }
    if (m.repeated_image(f.region)) continue;
    Figure fig = m.draw(static_cast<fz_document*>(doc), f, out.figures.size());
    fig.seq = static_cast<int>(out.figures.size());  // render order, for place(); renumbered later
    fig.page = f.page;
    const pdf::Rect& b = f.region.box;
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
  m.found = std::move(kept);
}

void PdfFigureExtractor::place(const std::vector<pdf::Page>& pages, ParsedDocument& out) {
  // Each figure goes before its caption's paragraph (the Markdown export shows the image, then
  // "Figure 1: ..."), a table after its caption when the caption is above it; an uncaptioned
  // figure goes after the last block of its page.
  const auto& blocks = out.blocks;
  std::vector<char> caption_taken(blocks.size(), 0);
  const bool parallel = impl_->found.size() == out.figures.size();  // render() keeps them in step
  for (size_t k = 0; k < out.figures.size(); ++k) {
    Figure& fig = out.figures[k];
    size_t pos = blocks.size();
    bool placed = false;
    if (!fig.caption.empty()) {
      for (size_t i = 0; i < blocks.size(); ++i) {
        if (blocks[i].page != fig.page || caption_taken[i]) continue;
        if (blocks[i].text.compare(0, fig.caption.size(), fig.caption) == 0) {
          fig.caption = blocks[i].text;
          caption_taken[i] = 1;
          pos = parallel && impl_->found[k].caption_above ? i + 1 : i;
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
  // Problems named like the figure stage names figures: "page 3, Figure 6" or, uncaptioned,
  // "page 3, figure 7" (its number in the document, as prepare_figures will give it).
  Impl& m = *impl_;
  std::map<size_t, const std::string*> problem_of;
  for (const auto& [index, text] : m.problems) problem_of[index] = &text;
  for (size_t i = 0; i < out.figures.size(); ++i) {
    const Figure& fig = out.figures[i];
    auto it = problem_of.find(static_cast<size_t>(fig.seq));
    if (it == problem_of.end()) continue;
    out.warnings.push_back("page " + std::to_string(fig.page) + ", " +
                           (fig.label.empty() ? "figure " + std::to_string(i + 1) : fig.label) + ": " + *it->second);
  }
  if (m.more_problems > 0)
    out.warnings.push_back(std::to_string(m.more_problems) + " more figures have broken images (like the ones above); "
                           "they are kept, some without their image");
  m.problems.clear();
  m.more_problems = 0;
}

}  // namespace mmkg
