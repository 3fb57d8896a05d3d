// Tables in PDFs, pure C++ (unit-tested without MuPDF). Two kinds of table are found on a page:
//  - ruled grids: horizontal and vertical rules (cell borders) forming at least 2 x 2 cells with
//    text in most of them, captioned or not. Boxes, frames, code backgrounds and single rules
//    have fewer cells and never qualify;
//  - captioned tables ("Table 2: ..."): the rows right below (or above) the caption, bounded by
//    horizontal rules when there are some (booktabs: top, mid and bottom rule), else by the
//    first prose line, gap or other caption. Columns come from vertical rules when the table
//    has them, else from the gutters between aligned text (x ranges of the cells of all rows).
// Uncaptioned tables without vertical rules are not looked for: two-column prose and aligned
// lists look the same, and a false table would take text out of the body.
#pragma once

#include <string>
#include <vector>

#include "ingest/pdf_figures.h"
#include "ingest/pdf_layout.h"
#include "ingest/tables.h"

namespace mmkg::pdf {

/// An axis-aligned straight stroke or thin fill of a page (a table rule, a box edge), in page
/// space: a horizontal rule at y = pos from x = lo to hi, or a vertical one at x = pos.
struct Rule {
  bool horizontal = true;
  float pos = 0, lo = 0, hi = 0;
};

/// A table found on a page.
struct TableRegion {
  Rect box;
  int caption_line = -1;    ///< index into Page::lines of the caption; -1 when uncaptioned
  std::string label;        ///< "Table 2", from the caption
  bool caption_above = true;  ///< the caption precedes the rows in reading order
  TableRows rows;           ///< the cells, first row = header
  std::vector<int> lines;   ///< indices of Page::lines that make up the cells
};

/// The tables of one page. `figures` are the figure regions already found there: their caption
/// lines and areas are not tables. Pure function of its inputs.
std::vector<TableRegion> detect_tables(const Page& page, const std::vector<Rule>& rules,
                                       const std::vector<Region>& figures);

/// The cells of the text lines `lines` of `page` inside `box`: columns between the vertical
/// rules in `rules` that cross the box (else between the gutters of the aligned text), rows
/// between horizontal rules when the table is a full grid (else one per baseline, a line that
/// only continues cells of the row above joined to it). Empty columns and rows are left out.
TableRows table_cells(const Page& page, const std::vector<int>& lines, const Rect& box, const std::vector<Rule>& rules);

}  // namespace mmkg::pdf
