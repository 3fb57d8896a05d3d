// Declarations shared by the layout-recovery sources (pdf_layout.cc, pdf_furniture.cc,
// pdf_columns.cc). Not part of the public interface: include pdf_layout.h instead.
#pragma once

#include <string_view>
#include <vector>

#include "ingest/pdf_chars.h"
#include "ingest/pdf_layout.h"

namespace mmkg::pdf::detail {

// ---- character classes (ASCII; the text is UTF-8) ----

using pdf::is_ascii_alpha;  // pdf_chars.h
inline bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
inline char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

/// Roman numeral check: canonical form only ("iv" yes, "iiii" no), below 200 ("mix" is no page).
/// Defined in pdf_furniture.cc.
bool is_roman(std::string_view s);

inline bool line_bold(const Line& l) { return l.nchars > 0 && l.nbold * 10 >= l.nchars * 8; }

// ---- document statistics (computed in pdf_layout.cc) ----

struct DocStats {
  float body = 10.0f;    ///< most common font size by character count
  float leading = 1.2f;  ///< most common baseline distance / font size inside MuPDF blocks
  bool bold_body = false;  ///< most body-size text is bold: bold says nothing about headings
  bool mono_body = false;  ///< most body-size text is monospaced: no code detection
  CompoundSet compounds;   ///< "left-right" pairs written with a hyphen inside a line
};

// ---- pipeline stages ----

/// Marks running headers/footers and page numbers in the top and bottom margin bands as
/// dropped (pdf_furniture.cc).
void drop_margin_lines(std::vector<Page>& pages, const DocStats& st);

/// Appends the lines `idx` of `pg` (indices into pg.lines, reordered in place) to `out` in
/// reading order, by recursive column analysis (pdf_columns.cc).
void order_lines(const Page& pg, float body, std::vector<int>& idx, std::vector<int>& out);

}  // namespace mmkg::pdf::detail
