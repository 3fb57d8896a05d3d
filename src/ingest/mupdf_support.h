// Plumbing shared by the parsers built on MuPDF (pdf_parser, pdf_figures, image_decode):
//  - a memory budget per fz_context, so that an image whose decoder needs its full size in
//    memory (indexed colours, JPEG 2000, a corrupt size field) fails with "out of memory"
//    instead of growing the process by gigabytes;
//  - libjpeg's own messages ("Corrupt JPEG data: ..."), which MuPDF leaves on libjpeg's default
//    of printing to stderr, turned into MuPDF warnings of the context decoding on this thread.
//  - the drawing of a page (or a region of it) into a pixmap, shared by the figure extractor
//    (pdf_figures) and the server's page view (pdf_render).
#pragma once

#include <mupdf/fitz.h>

#include <algorithm>
#include <cstddef>
#include <string>

namespace mmkg::mupdf {

/// The cap of one fz_context's memory (a parse, a render, an image decode): an image whose decoder
/// needs more at full size (indexed colours, a lying size field) fails with "out of memory" and
/// costs that image, not the process. 100 megapixels of RGBA are 400 MB.
inline constexpr size_t kContextMemoryLimit = size_t{1} << 30;

/// The allocator of one fz_context with a cap on the bytes live at once. Must outlive the
/// context; one context per budget (not thread-safe, like the context itself).
struct MemoryBudget {
  explicit MemoryBudget(size_t limit);
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  size_t limit;
  size_t used = 0;
  size_t peak = 0;
  int refused = 0;  ///< allocations refused for the cap since the last reset_refused()
  fz_alloc_context alloc;
};

/// A new fz_context allocating through `budget`, with MuPDF's own stderr messages switched off
/// (callers install their callbacks after); nullptr when even that fails.
fz_context* new_context(MemoryBudget& budget, size_t store_size);

/// While alive, libjpeg's messages on this thread become warnings of `ctx` ("jpeg: ...");
/// without one they are dropped. Nests (restores the previous context).
class JpegMessagesTo {
 public:
  explicit JpegMessagesTo(fz_context* ctx);
  ~JpegMessagesTo();
  JpegMessagesTo(const JpegMessagesTo&) = delete;
  JpegMessagesTo& operator=(const JpegMessagesTo&) = delete;

 private:
  fz_context* saved_;
};

/// Runs `f` (MuPDF calls only, no C++ objects with destructors) inside fz_try. Returns false
/// and stores MuPDF's message in `err` if it threw.
template <typename F>
__attribute__((noinline)) bool guarded(fz_context* ctx, std::string* err, F&& f) {
  fz_try(ctx) { f(); }
  fz_catch(ctx) {
    const char* msg = fz_caught_message(ctx);
    if (err) err->assign(msg && *msg ? msg : "unknown MuPDF error");
    return false;
  }
  return true;
}

/// Draws `area` (page space, points; the whole page when null) of page `index` (0-based) into a
/// new white RGB pixmap at `*scale` pixels per point, first lowered so that no side of the
/// pixmap exceeds `max_side`; with `annotations` the page's annotations and widgets too, else
/// only its contents. Hands the pixmap to `use` (MuPDF calls only, like guarded(); it keeps
/// the pixmap with fz_keep_pixmap if it needs it longer), then drops it. Returns false and
/// stores MuPDF's message in `err` if anything threw. The page render of the figure extractor
/// (a region, to PNG) and of the server's page view (a page, highlighted) both draw this way.
template <typename F>
__attribute__((noinline)) bool draw_page(fz_context* ctx, fz_document* doc, int index, const fz_rect* area,
                                         float* scale, int max_side, bool annotations, std::string* err, F&& use) {
  fz_page* volatile page = nullptr;
  fz_pixmap* volatile pix = nullptr;
  fz_device* volatile dev = nullptr;
  bool ok = true;
  fz_try(ctx) {
    page = fz_load_page(ctx, doc, index);
    const fz_rect r = area ? *area : fz_bound_page(ctx, page);
    float side = std::max(r.x1 - r.x0, r.y1 - r.y0) * *scale;
    if (side > max_side) *scale *= max_side / side;
    fz_matrix ctm = fz_scale(*scale, *scale);
    fz_irect box = fz_round_rect(fz_transform_rect(r, ctm));
    pix = fz_new_pixmap_with_bbox(ctx, fz_device_rgb(ctx), box, nullptr, 0);
    fz_clear_pixmap_with_value(ctx, pix, 255);
    dev = fz_new_draw_device(ctx, fz_identity, pix);
    if (annotations) fz_run_page(ctx, page, dev, ctm, nullptr);
    else fz_run_page_contents(ctx, page, dev, ctm, nullptr);
    fz_close_device(ctx, dev);
    use(static_cast<fz_pixmap*>(pix));
  }
  fz_always(ctx) {
    fz_drop_device(ctx, dev);
    fz_drop_pixmap(ctx, pix);
    fz_drop_page(ctx, page);
  }
  fz_catch(ctx) {
    const char* m = fz_caught_message(ctx);
    if (err) err->assign(m && *m ? m : "unknown MuPDF error");
    ok = false;
  }
  return ok;
}

/// One-line version of a MuPDF message (they can contain newlines or be long).
std::string one_line(std::string s);

}  // namespace mmkg::mupdf
