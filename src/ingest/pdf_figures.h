// Figures in PDFs. Two halves:
//  - detect_figures (pure C++, unit-tested without MuPDF): from a page's graphics (image and
//    path bounding boxes recorded while the page is interpreted) and its text lines, finds figure
//    regions: the graphics above (or below) each "Figure N:" caption, grown over the drawing and
//    the short text inside it (axis labels, legends); uncaptioned images that are not
//    decoration (tiny images, rules and boxes); large uncaptioned drawings;
//  - FigureExtractor (pdf_figures.cc, MuPDF): records the graphics of each page, renders each
//    region at a fixed resolution to PNG, drops images repeated on many pages (logos), and
//    attaches the caption paragraph and the figure's position in reading order once the
//    page's blocks exist.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/types.h"
#include "ingest/pdf_layout.h"

namespace mmkg::pdf {

struct Rect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  float w() const { return x1 - x0; }
  float h() const { return y1 - y0; }
  float area() const { return w() > 0 && h() > 0 ? w() * h() : 0; }
  bool empty() const { return !(x1 > x0 && y1 > y0); }
  void add(const Rect& r) {
    if (r.empty()) return;
    if (empty()) { *this = r; return; }
    if (r.x0 < x0) x0 = r.x0;
    if (r.y0 < y0) y0 = r.y0;
    if (r.x1 > x1) x1 = r.x1;
    if (r.y1 > y1) y1 = r.y1;
  }
};

/// The box of a text line.
inline Rect line_box(const Line& l) { return {l.x0, l.y0, l.x1, l.y1}; }

/// One drawing operation of a page, in page space (points, y down).
struct Graphic {
  Rect box;
  bool image = false;         ///< an image (fill_image / fill_image_mask); else a path or shading
  uint64_t image_key = 0;     ///< images: identity across pages (hash of the encoded stream)
  int image_w = 0, image_h = 0;  ///< images: intrinsic pixel size
  bool boxy = false;          ///< paths: only axis-aligned straight segments (a rule, box, cell)
};

/// A figure region found on a page.
struct Region {
  Rect box;
  int caption_line = -1;      ///< index into Page::lines of the caption's first line; -1 if none
  std::string label;          ///< "Figure 3" / "Table 2", from the caption
  std::string caption_text;   ///< the caption's row when it spans several lines (a justified
                              ///< caption split word by word); empty: the caption line's text
  bool table = false;
  bool raster = false;        ///< mostly one image (else drawn as vector graphics)
  std::vector<uint64_t> image_keys;  ///< the images inside (to spot logos repeated on many pages)
  std::vector<int> text_lines;       ///< indices of Page::lines inside the region (not the caption)
  bool drop_text_from_body = false;  ///< the inner lines are figure text (labels), not prose
};

/// Finds the figure regions of one page. Pure function of its inputs.
std::vector<Region> detect_figures(const Page& page, const std::vector<Graphic>& graphics);

}  // namespace mmkg::pdf

namespace mmkg {

struct ParseContext;
namespace mupdf {
struct MemoryBudget;
}

/// Drives figure extraction for one PDF parse (pdf_parser.cc). MuPDF types are opaque here so
/// that the header stays free of MuPDF.
///
/// A figure whose image cannot be decoded (corrupt or truncated data, a decoder error, more
/// memory than `budget` allows) is kept, with its caption and text, and costs one warning
/// naming its page and figure: without its image when nothing of the image could be drawn,
/// with it (partly blank) when some could. MuPDF's messages while a figure is drawn are
/// gathered for that warning; the caller's callbacks see none of them.
class PdfFigureExtractor {
 public:
  PdfFigureExtractor(void* fz_ctx, const mupdf::MemoryBudget* budget);
  ~PdfFigureExtractor();
  PdfFigureExtractor(const PdfFigureExtractor&) = delete;
  PdfFigureExtractor& operator=(const PdfFigureExtractor&) = delete;

  /// Records the graphics of one page from its display list (an fz_display_list*) and detects
  /// its regions; marks the lines that are figure text as dropped from the body.
  void collect(void* fz_display_list, pdf::Page& page);
  /// Renders the regions kept (decoration dropped) from the open document (an fz_document*)
  /// into `out.figures`; problems become warnings.
  void render(void* fz_document, ParsedDocument& out);
  /// After pdf::build_blocks: captions and reading-order positions.
  void place(const std::vector<pdf::Page>& pages, ParsedDocument& out);

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace mmkg
