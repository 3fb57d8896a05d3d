// Page rendering for the server's page view: MuPDF draws the page into an RGB pixmap, the
// highlight is painted on its samples (a multiply blend, so text stays legible under it, and an
// opaque outline), and MuPDF encodes the PNG.
//
// As in pdf_parser.cc, every MuPDF call that can throw runs inside fz_try with no C++ object of
// its own, and C++ exceptions are thrown only outside of fz_try blocks.
#include "ingest/pdf_render.h"

#include <mupdf/fitz.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/error.h"
#include "ingest/mupdf_support.h"

namespace mmkg {

namespace fs = std::filesystem;

namespace {

using mupdf::guarded;
using mupdf::one_line;

constexpr float kHighlightPad = 1.5f;  // points added around each highlighted box
// The highlight: white turns into this light yellow, black stays black; the outline is opaque.
constexpr unsigned char kFill[3] = {255, 232, 96};
constexpr unsigned char kLine[3] = {235, 150, 0};

/// Owns the MuPDF objects of one render; drops them in reverse order (drops never throw).
struct Render {
  mupdf::MemoryBudget budget{mupdf::kContextMemoryLimit};
  fz_context* ctx = nullptr;
  fz_stream* stm = nullptr;
  fz_document* doc = nullptr;
  fz_pixmap* pix = nullptr;
  fz_buffer* png = nullptr;

  Render() = default;
  Render(const Render&) = delete;
  Render& operator=(const Render&) = delete;
  ~Render() {
    if (!ctx) return;
    fz_drop_buffer(ctx, png);
    fz_drop_pixmap(ctx, pix);
    fz_drop_document(ctx, doc);
    fz_drop_stream(ctx, stm);
    fz_drop_context(ctx);
  }
};

/// Paints the boxes of `page` onto the pixmap (pixel = point * zoom - pixmap origin). Returns
/// how many boxes were painted (those that overlap the page).
int paint_highlight(fz_context* ctx, fz_pixmap* pix, float zoom, int page, const std::vector<PageBox>& boxes) {
  const int w = fz_pixmap_width(ctx, pix), h = fz_pixmap_height(ctx, pix);
  const int n = fz_pixmap_components(ctx, pix);
  const int ox = fz_pixmap_x(ctx, pix), oy = fz_pixmap_y(ctx, pix);
  const ptrdiff_t stride = fz_pixmap_stride(ctx, pix);
  unsigned char* samples = fz_pixmap_samples(ctx, pix);
  const int line = std::max(1, static_cast<int>(std::lround(1.5f * zoom)));
  // 1: fill, 2: outline. One mark per pixel, so overlapping boxes are not filled twice.
  std::vector<unsigned char> mark(static_cast<size_t>(w) * static_cast<size_t>(h), 0);
  int drawn = 0;
  for (const PageBox& b : boxes) {
    if (b.page != page || !(b.x1 > b.x0) || !(b.y1 > b.y0)) continue;
    const int x0 = std::max(0, static_cast<int>(std::floor((b.x0 - kHighlightPad) * zoom)) - ox);
    const int y0 = std::max(0, static_cast<int>(std::floor((b.y0 - kHighlightPad) * zoom)) - oy);
    const int x1 = std::min(w, static_cast<int>(std::ceil((b.x1 + kHighlightPad) * zoom)) - ox);
    const int y1 = std::min(h, static_cast<int>(std::ceil((b.y1 + kHighlightPad) * zoom)) - oy);
    if (x0 >= x1 || y0 >= y1) continue;
    ++drawn;
    for (int y = y0; y < y1; ++y) {
      const bool edge_row = y < y0 + line || y >= y1 - line;
      unsigned char* m = &mark[static_cast<size_t>(y) * static_cast<size_t>(w)];
      for (int x = x0; x < x1; ++x) {
        const unsigned char v = edge_row || x < x0 + line || x >= x1 - line ? 2 : 1;
        m[x] = std::max(m[x], v);
      }
    }
  }
  if (drawn == 0 || n < 3) return drawn;
  for (int y = 0; y < h; ++y) {
    unsigned char* p = samples + static_cast<ptrdiff_t>(y) * stride;
    const unsigned char* m = &mark[static_cast<size_t>(y) * static_cast<size_t>(w)];
    for (int x = 0; x < w; ++x, p += n) {
      if (m[x] == 1) {
        for (int c = 0; c < 3; ++c) p[c] = static_cast<unsigned char>(p[c] * kFill[c] / 255);
      } else if (m[x] == 2) {
        for (int c = 0; c < 3; ++c) p[c] = kLine[c];
      }
    }
  }
  return drawn;
}

std::string read_whole(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw InputError(path + ": file not found (moved or deleted since it was ingested); put it back, or ingest it "
                            "again from where it is now");
  if (!fs::is_regular_file(path, ec)) throw InputError(path + ": not a regular file; ingest the PDF itself");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read the file (" + std::strerror(errno) + "); check its permissions");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(path + ": cannot read the file to its end; check the disk and its permissions");
  return bytes;
}

}  // namespace

RenderedPage render_page_png(const std::string& pdf_path, int page, double zoom,
                             const std::vector<PageBox>& highlight) {
  const std::string bytes = read_whole(pdf_path);
  return render_pdf_page_png(bytes, pdf_path, page, zoom, highlight);
}

RenderedPage render_pdf_page_png(std::string_view bytes, const std::string& name, int page, double zoom,
                                 const std::vector<PageBox>& highlight) {
  if (bytes.size() < 5 || bytes.find("%PDF-") > 1024)
    throw InputError(name + ": not a PDF file (only PDF pages can be rendered); was it replaced since it was ingested?");
  if (!std::isfinite(zoom)) zoom = 1;
  RenderedPage out;
  out.zoom = std::clamp(zoom, kMinPageZoom, kMaxPageZoom);

  Render r;
  r.ctx = mupdf::new_context(r.budget, 64 << 20);
  if (!r.ctx) throw Error("cannot initialise MuPDF (out of memory); retry later");
  fz_context* ctx = r.ctx;
  mupdf::JpegMessagesTo jpeg(ctx);
  std::string err;
  int needs_password = 0, pages = 0;
  bool ok = guarded(ctx, &err, [&] {
    fz_register_document_handlers(ctx);
    r.stm = fz_open_memory(ctx, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
    r.doc = fz_open_document_with_stream(ctx, "application/pdf", r.stm);
    needs_password = fz_needs_password(ctx, r.doc);
    if (!needs_password) pages = fz_count_pages(ctx, r.doc);
  });
  if (!ok || !r.doc)
    throw InputError(name + ": not a valid PDF (" + one_line(err) + "); the file may be damaged: ingest it again");
  if (needs_password)
    throw InputError(name + ": encrypted PDF (password required); decrypt it (e.g. qpdf --decrypt) to render its pages");
  out.pages = pages;
  if (page < 1 || page > pages)
    throw InputError(name + ": no page " + std::to_string(page) + "; the document has " + std::to_string(pages) +
                     (pages == 1 ? " page" : " pages"));

  // The page at the zoom, lowered so that no side exceeds kMaxPageSide, into a white pixmap.
  float z = static_cast<float>(out.zoom);
  if (!mupdf::draw_page(ctx, r.doc, page - 1, nullptr, &z, kMaxPageSide, /*annotations=*/true, &err,
                        [&](fz_pixmap* pix) { r.pix = fz_keep_pixmap(ctx, pix); }) ||
      !r.pix)
    throw InputError(name + ": page " + std::to_string(page) + " cannot be drawn (" + one_line(err) +
                     "); the file may be damaged");
  out.zoom = z;
  out.width = fz_pixmap_width(ctx, r.pix);
  out.height = fz_pixmap_height(ctx, r.pix);
  out.boxes = paint_highlight(ctx, r.pix, z, page, highlight);
  if (!guarded(ctx, &err, [&] { r.png = fz_new_buffer_from_pixmap_as_png(ctx, r.pix, fz_default_color_params); }) ||
      !r.png)
    throw InputError(name + ": page " + std::to_string(page) + " cannot be encoded as PNG (" + one_line(err) + ")");
  unsigned char* data = nullptr;
  const size_t len = fz_buffer_storage(ctx, r.png, &data);
  out.png.assign(reinterpret_cast<const char*>(data), len);
  return out;
}

}  // namespace mmkg
