// Layout recovery for PDF text: turns positioned text lines (as extracted by MuPDF) into
// structural blocks in reading order. Pure C++, no MuPDF dependency, so it is unit-testable.
//
// Pipeline (driven by build_blocks in pdf_layout.cc):
//   1. document statistics: body font size, typical line spacing, compound words with hyphens
//      (pdf_layout.cc);
//   2. running headers/footers and page numbers in the top/bottom margin bands are dropped
//      (pdf_furniture.cc);
//   3. per page, lines are ordered by a recursive column analysis (x-projection gutters, bands
//      between full-width lines) (pdf_columns.cc);
//   4. ordered lines are grouped into blocks (spacing, indentation, style changes, bullets,
//      table-of-contents entries), hyphenated line ends are rejoined (pdf_layout.cc);
//   5. blocks become headings (font size / bold) with levels 1..6, paragraphs, list items or
//      code (monospaced lines, kept line by line with their indentation) (pdf_layout.cc).
// Declarations shared between those files are in pdf_layout_internal.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/types.h"

namespace mmkg::pdf {

/// The horizontal extent of one word (a run of characters between spaces) of a line; tables
/// need it to find cell boundaries inside a line.
struct Word {
  float x0 = 0, x1 = 0;
};

/// One horizontal run of text on a page (a MuPDF line, split at wide gaps).
struct Line {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  ///< bounding box, page space (y grows downwards)
  float base = 0;                        ///< baseline y of the first character
  float size = 0;                        ///< dominant font size (by character count)
  uint32_t text_off = 0;                 ///< clean UTF-8 text: Page::text.substr(off, len);
  uint32_t text_len = 0;                 ///< spaces collapsed unless the line is monospaced
  uint32_t nchars = 0;  ///< non-space characters
  uint32_t nbold = 0;   ///< non-space characters in a bold font
  uint32_t nmono = 0;   ///< non-space characters in a monospaced font
  bool rotated = false;      ///< not left-to-right horizontal text (vertical, rotated)
  bool soft_hyphen = false;  ///< line ended with a soft hyphen (U+00AD)
  bool block_start = false;  ///< first line of a MuPDF block (used for spacing statistics)
  bool dropped = false;      ///< running header/footer or page number
  uint32_t word_off = 0;     ///< its words: Page::words[word_off, word_off + word_count), one
  uint32_t word_count = 0;   ///< per space-separated token of the text (0: not recorded)
};

/// The text lines of one page.
struct Page {
  int number = 0;                        ///< 1-based
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  ///< page box
  std::vector<Line> lines;               ///< in extraction order
  std::vector<Word> words;               ///< backing store for Line words
  std::string text;                      ///< backing store for Line text

  std::string_view line_text(const Line& l) const {
    return std::string_view(text).substr(l.text_off, l.text_len);
  }
};

/// Runs the whole pipeline over the pages of one document and appends blocks (with 1-based
/// page numbers) to `out`. Marks dropped header/footer lines in `pages`.
void build_blocks(std::vector<Page>& pages, std::vector<Block>& out);

// ---- pieces exposed for unit tests ----

/// True for margin lines that are only a page number: "3", "- 3 -", "Page 3", "3 / 10",
/// "page 3 of 10", roman numerals ("xiv").
bool is_page_number_text(std::string_view s);

/// Key used to find repeating header/footer lines: lower-cased ASCII, digit runs and roman
/// numeral tokens replaced by '#', whitespace collapsed.
std::string margin_key(std::string_view s);

/// Appends `next` (one line's text) to `text` (a block's text so far): a space between lines,
/// or a rejoined word when `text` ends with a hyphenated word part. `compounds` holds
/// lower-cased "left-right" pairs seen elsewhere with a real hyphen; `soft` is true when the
/// previous line ended with a soft hyphen.
using CompoundSet = std::unordered_set<std::string>;
void join_line(std::string& text, std::string_view next, bool soft, const CompoundSet* compounds);

}  // namespace mmkg::pdf
