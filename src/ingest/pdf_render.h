// One page of a PDF rendered to PNG with MuPDF, with regions highlighted (the boxes of a cited
// chunk, Chunk::boxes): a translucent yellow fill and an outline drawn on the pixmap after
// rendering. Each call has its own fz_context, so calls may run on several threads at once.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/types.h"

namespace mmkg {

/// The zoom range render_page_png accepts (1 = 72 pixels per inch); other values are clamped.
constexpr double kMinPageZoom = 0.5, kMaxPageZoom = 4.0;
/// The longest side of a rendered page in pixels: a larger page is drawn at a lower zoom.
constexpr int kMaxPageSide = 8000;

struct RenderedPage {
  std::string png;         ///< PNG bytes (RGB, 8 bits)
  int width = 0, height = 0;  ///< pixels
  double zoom = 1;         ///< the zoom used (after clamping): pixels per point
  int pages = 0;           ///< pages in the document
  int boxes = 0;           ///< highlight boxes drawn (those on this page, inside it)
};

/// Renders page `page` (1-based) of the PDF at `pdf_path` at `zoom` (clamped to
/// kMinPageZoom..kMaxPageZoom) and highlights the boxes of `highlight` that lie on this page
/// (page space: points, y down, as Block and Chunk boxes). Throws InputError, naming the file
/// and what to do, for a missing or unreadable file, one that is not a PDF, an encrypted PDF, a
/// page out of range or a page MuPDF cannot draw.
RenderedPage render_page_png(const std::string& pdf_path, int page, double zoom,
                             const std::vector<PageBox>& highlight);

/// The same for a PDF already read: `bytes` is the file, `name` names it in messages.
RenderedPage render_pdf_page_png(std::string_view bytes, const std::string& name, int page, double zoom,
                                 const std::vector<PageBox>& highlight);

}  // namespace mmkg
