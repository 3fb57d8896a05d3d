// Layout recovery for PDF text lines: document statistics, grouping of ordered lines into
// blocks (line joining and hyphenation, lists, tables of contents, code) and their
// classification as headings, paragraphs, list items or code. See pdf_layout.h for the
// pipeline; running headers/footers are in pdf_furniture.cc, reading order in pdf_columns.cc.
#include "ingest/pdf_layout.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "ingest/pdf_layout_internal.h"

namespace mmkg::pdf {

using detail::ascii_lower;
using detail::DocStats;
using detail::is_ascii_alpha;
using detail::is_digit;
using detail::is_roman;
using detail::line_bold;

namespace {

// Font sizes are compared in buckets of 0.5pt.
constexpr int kSizeBuckets = 1024;

int size_bucket(float s) {
  if (!(s > 0)) return 0;
  return std::clamp(static_cast<int>(std::lround(s * 2.0f)), 0, kSizeBuckets - 1);
}

/// A byte that can be part of a word: ASCII letter or any byte of a non-ASCII character.
bool is_word_byte(unsigned char c) { return is_ascii_alpha(c) || c >= 0x80; }

/// Decodes the code point starting at s[i] (input is valid UTF-8 produced by the extractor).
uint32_t decode_at(std::string_view s, size_t i, size_t* len) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  int n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  if (i + n > s.size()) n = 1;
  uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  *len = static_cast<size_t>(n);
  return cp;
}

bool is_lower_cp(uint32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 0xDF && c <= 0xFF && c != 0xF7) ||
         (c >= 0x3B1 && c <= 0x3C9) || (c >= 0x430 && c <= 0x45F);
}

bool starts_lower(std::string_view s) {
  if (s.empty()) return false;
  size_t len;
  return is_lower_cp(decode_at(s, 0, &len));
}

/// Ends like a sentence: . ! ? : ; possibly followed by closing quotes/brackets.
bool ends_terminal(std::string_view s) {
  size_t i = s.size();
  while (i > 0 && (s[i - 1] == '"' || s[i - 1] == '\'' || s[i - 1] == ')' || s[i - 1] == ']'))
    --i;
  if (i == 0) return false;
  char c = s[i - 1];
  return c == '.' || c == '!' || c == '?' || c == ':' || c == ';';
}

bool style_differs(const Line& a, const Line& b) {
  float d = std::fabs(a.size - b.size);
  if (d > std::max(0.5f, 0.06f * std::max(a.size, b.size))) return true;
  return line_bold(a) != line_bold(b);
}

/// Length in bytes of a list bullet at the start of `s` (bullet plus following space), or 0.
size_t bullet_prefix(std::string_view s) {
  if (s.empty()) return 0;
  size_t len;
  uint32_t c = decode_at(s, 0, &len);
  bool bullet = false, needs_space = false;
  switch (c) {
    case 0x2022: case 0x25E6: case 0x25AA: case 0x25AB: case 0x25CF: case 0x25CB: case 0x25A0:
    case 0x25A1: case 0x2023: case 0x2043: case 0x25B8: case 0x25BA: case 0x2219: case 0x00B7:
    case 0x27A2: case 0x2713: case 0x2714:
      bullet = true;
      break;
    case '-': case '*': case 0x2013: case 0x2014:
      bullet = needs_space = true;
      break;
    default:
      break;
  }
  if (!bullet) return 0;
  if (len == s.size()) return needs_space ? 0 : len;
  if (s[len] != ' ') return needs_space ? 0 : len;
  return len + 1;
}

// ---- document statistics ----

void collect_compounds(std::string_view t, CompoundSet& out) {
  size_t pos = 0;
  while ((pos = t.find('-', pos)) != std::string_view::npos) {
    size_t h = pos++;
    if (h == 0 || h + 1 >= t.size()) continue;
    if (!is_word_byte(t[h - 1]) || !is_word_byte(t[h + 1])) continue;
    size_t a = h;
    while (a > 0 && is_word_byte(t[a - 1])) --a;
    size_t b = h + 1;
    while (b < t.size() && is_word_byte(t[b])) ++b;
    std::string key;
    key.reserve(b - a);
    for (size_t i = a; i < b; ++i) key.push_back(ascii_lower(t[i]));
    out.insert(std::move(key));
  }
}

DocStats compute_stats(const std::vector<Page>& pages) {
  DocStats st;
  std::vector<uint64_t> size_hist(kSizeBuckets, 0), bold_hist(kSizeBuckets, 0),
      mono_hist(kSizeBuckets, 0);
  std::vector<uint32_t> lead_hist(64, 0);  // ratio buckets of 0.05 from 0 to 3.2
  for (const Page& pg : pages) {
    const Line* prev = nullptr;
    for (const Line& l : pg.lines) {
      if (l.rotated) {
        prev = nullptr;
        continue;
      }
      int b = size_bucket(l.size);
      size_hist[b] += l.nchars;
      bold_hist[b] += l.nbold;
      mono_hist[b] += l.nmono;
      if (prev && !l.block_start && std::fabs(prev->size - l.size) < 0.5f && l.size > 0) {
        float r = (l.base - prev->base) / l.size;
        if (r >= 0.8f && r < 3.0f) lead_hist[static_cast<size_t>(std::lround(r * 20.0f))]++;
      }
      prev = &l;
      if (l.text_len > 2 && std::memchr(pg.text.data() + l.text_off, '-', l.text_len))
        collect_compounds(pg.line_text(l), st.compounds);
    }
  }
  auto body_it = std::max_element(size_hist.begin(), size_hist.end());
  if (*body_it > 0) {
    int b = static_cast<int>(body_it - size_hist.begin());
    st.body = b / 2.0f;
    st.bold_body = bold_hist[b] * 2 > size_hist[b];
    st.mono_body = mono_hist[b] * 2 > size_hist[b];
  }
  auto lead_it = std::max_element(lead_hist.begin(), lead_hist.end());
  if (*lead_it >= 3) st.leading = static_cast<float>(lead_it - lead_hist.begin()) / 20.0f;
  return st;
}

// ---- blocks ----

bool line_mono(const Line& l) { return l.nchars > 0 && l.nmono * 10 >= l.nchars * 9; }

size_t codepoints(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

/// Table-of-contents entry "Title ........ 12": returns the title end and the page number
/// start, or {npos, npos}.
std::pair<size_t, size_t> toc_leader(std::string_view s) {
  constexpr auto npos = std::string_view::npos;
  size_t num = s.size();
  while (num > 0 && (is_digit(s[num - 1]) || is_ascii_alpha(s[num - 1]))) --num;
  std::string_view page = s.substr(num);
  if (page.empty() || page.size() > 8) return {npos, npos};
  bool digits = std::all_of(page.begin(), page.end(), [](char c) { return is_digit(c); });
  if (!digits && !is_roman(page)) return {npos, npos};
  size_t j = num;
  int dots = 0;
  while (j > 0 && (s[j - 1] == '.' || s[j - 1] == ' ')) dots += s[--j] == '.';
  if (dots < 4) return {npos, npos};
  return {j, num};
}

/// "3", "2.1.", "A.1", "IV." — a section number set apart from its title.
bool is_section_number(std::string_view s) {
  if (s.empty() || s.size() > 12) return false;
  bool digit = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (is_digit(c)) {
      digit = true;
    } else if (c != '.' && !(i == 0 && c >= 'A' && c <= 'Z' && (s.size() == 1 || s[1] == '.'))) {
      return is_roman(s.substr(0, s.back() == '.' ? s.size() - 1 : s.size()));
    }
  }
  return digit || s.size() <= 2;
}

struct CodeLine {
  float x0;       // left edge of the first character
  float advance;  // width of one character (monospaced)
  std::string_view text;
  int blank_before;  // empty lines before this one
};

struct RawBlock {
  int page = 0;
  std::string text;
  double size_sum = 0;  // sum of size * nchars
  uint32_t nchars = 0, nbold = 0;
  int nlines = 0;
  bool list = false;
  bool code = false;
  bool toc = false;            // a table-of-contents entry (never a heading)
  bool row_continues = false;  // another block follows on the same row (table cell, term)
  float x0 = 0, x1 = 0;        // horizontal extent of the block's lines
  float y0 = 0, y1 = 0;        // vertical extent of the block's lines
  std::vector<CodeLine> code_lines;

  float size() const { return nchars ? static_cast<float>(size_sum / nchars) : 0.0f; }
};

class BlockBuilder {
 public:
  BlockBuilder(const DocStats& st, std::vector<RawBlock>& out) : st_(st), out_(out) {}

  void page(const Page& pg, const std::vector<int>& order) {
    pg_ = &pg;
    prev_ = nullptr;
    prev_toc_ = false;
    pending_bullet_ = false;
    for (int i : order) add(pg.lines[i]);
    // Rotated or vertical text (margin stamps, rotated table headers) goes last, one block each.
    for (const Line& l : pg.lines) {
      if (!l.rotated || l.dropped) continue;
      prev_ = nullptr;
      start(l, false, false);
      append(l, pg.line_text(l), false);
    }
    prev_ = nullptr;
  }

 private:
  void start(const Line& l, bool list, bool code) {
    out_.emplace_back();
    RawBlock& b = out_.back();
    b.page = pg_->number;
    b.list = list;
    b.code = code;
    b.x0 = l.x0;
    b.x1 = l.x1;
    b.y0 = l.y0;
    b.y1 = l.y1;
  }

  void append(const Line& l, std::string_view text, bool toc) {
    RawBlock& b = out_.back();
    if (b.code) {
      int blank = 0;
      if (prev_ && !b.code_lines.empty()) {
        float pitch = st_.leading * std::max(prev_->size, l.size);
        blank = std::clamp(static_cast<int>(std::lround((l.base - prev_->base) / pitch)) - 1, 0, 2);
      }
      float advance = (l.x1 - l.x0) / static_cast<float>(std::max<size_t>(1, codepoints(text)));
      b.code_lines.push_back({l.x0, advance, text, blank});
    } else if (toc) {
      auto [title_end, num] = toc_leader(text);
      std::string entry(text.substr(0, title_end));
      entry += entry.empty() ? "" : " ";
      entry += "... ";
      entry += text.substr(num);
      join_line(b.text, entry, prev_ && prev_->soft_hyphen, &st_.compounds);
    } else {
      join_line(b.text, text, prev_ && prev_->soft_hyphen, &st_.compounds);
    }
    b.size_sum += static_cast<double>(l.size) * l.nchars;
    b.nchars += l.nchars;
    b.nbold += l.nbold;
    b.nlines++;
    b.x0 = std::min(b.x0, l.x0);
    b.x1 = std::max(b.x1, l.x1);
    b.y0 = std::min(b.y0, l.y0);
    b.y1 = std::max(b.y1, l.y1);
    b.toc = b.toc || toc;
    prev_ = &l;
    prev_toc_ = toc;
  }

  void add(const Line& l) {
    std::string_view text = pg_->line_text(l);
    bool code = !st_.mono_body && line_mono(l);
    size_t bullet = code ? 0 : bullet_prefix(text);
    if (bullet > 0 && bullet >= text.size()) {  // a bullet glyph on its own: the item follows
      pending_bullet_ = true;
      return;
    }
    bool list = !code && (pending_bullet_ || bullet > 0);
    pending_bullet_ = false;
    text.remove_prefix(bullet);
    bool toc = !code && toc_leader(text).first != std::string_view::npos;
    if (prev_ == nullptr || list || boundary(l, code, toc)) {
      if (prev_ && same_row(*prev_, l)) out_.back().row_continues = true;
      start(l, list, code);
    }
    append(l, text, toc);
  }

  static bool same_row(const Line& a, const Line& b) {
    return std::fabs(b.base - a.base) < 0.35f * std::max(a.size, b.size);
  }

  /// True when `l` starts a new block after the previous line.
  bool boundary(const Line& l, bool code, bool toc) const {
    const Line& p = *prev_;
    const RawBlock& b = out_.back();
    if (prev_toc_ || b.code != code) return true;  // a TOC entry ends at its page number
    float size = std::max(p.size, l.size);
    float dy = l.base - p.base;
    bool style = style_differs(p, l);
    if (same_row(p, l)) {  // same row: continue unless far apart
      if (l.x0 < p.x1 - 1.0f) return true;
      if (toc) return false;  // dot leader and page number of the entry on this row
      if (b.nlines == 1 && is_section_number(b.text) && l.x0 - p.x1 < 8.0f * size) return false;
      return l.x0 - p.x1 >= 4.0f * size || style;
    }
    float overlap = std::min(l.x1, b.x1) - std::max(l.x0, b.x0);
    if (code) {  // code runs on through blank lines, syntax highlighting may change weight
      return dy < 0 || dy > 3.3f * st_.leading * size || std::fabs(p.size - l.size) > 0.5f ||
             l.x0 < b.x0 - 4.0f * size;
    }
    if (dy < 0 || overlap <= 0) {
      // Jumped to another column or region: a sentence cut at a column break continues.
      return style || ends_terminal(b.text) || !starts_lower(pg_->line_text(l));
    }
    if (style) return true;
    if (dy > size * st_.leading * 1.28f + 0.5f) return true;  // paragraph spacing
    if (!b.list && b.nlines >= 2 && l.x0 > p.x0 + 0.8f * l.size && p.x1 < b.x1 - 2.0f * p.size)
      return true;  // short last line, next line indented: new paragraph
    return false;
  }

  const DocStats& st_;
  std::vector<RawBlock>& out_;
  const Page* pg_ = nullptr;
  const Line* prev_ = nullptr;
  bool prev_toc_ = false;
  bool pending_bullet_ = false;
};

/// Code keeps its lines and indentation (relative to the block's leftmost line).
std::string render_code(const RawBlock& b) {
  std::string out;
  float x0 = b.code_lines[0].x0, advance = 0;
  size_t widest = 0;
  for (const CodeLine& c : b.code_lines) {
    x0 = std::min(x0, c.x0);
    if (c.text.size() >= widest) widest = c.text.size(), advance = c.advance;
  }
  for (size_t i = 0; i < b.code_lines.size(); ++i) {
    const CodeLine& c = b.code_lines[i];
    if (i > 0) out.append(1 + c.blank_before, '\n');
    int indent = advance > 0 ? static_cast<int>(std::lround((c.x0 - x0) / advance)) : 0;
    out.append(static_cast<size_t>(std::clamp(indent, 0, 40)), ' ');
    out.append(c.text);
  }
  return out;
}

int letter_count(std::string_view s) {
  int n = 0;
  for (unsigned char c : s) n += is_ascii_alpha(c) || c >= 0xC0;
  return n;
}

void classify_blocks(std::vector<RawBlock>& raw, const DocStats& st, std::vector<Block>& out) {
  enum : char { kPara, kList, kCode, kSizeHeading, kBoldHeading };
  std::vector<char> kind(raw.size(), kPara);
  std::vector<uint32_t> heading_chars(kSizeBuckets, 0);
  const float body = st.body;
  for (size_t i = 0; i < raw.size(); ++i) {
    RawBlock& b = raw[i];
    if (b.code) {
      kind[i] = kCode;
      b.text = render_code(b);
      continue;
    }
    if (b.list) {
      kind[i] = kList;
      continue;
    }
    if (b.toc || letter_count(b.text) < 2) continue;
    float size = b.size();
    if (size >= body * 1.08f && size - body >= 0.75f && b.nlines <= 4 && b.text.size() <= 300) {
      kind[i] = kSizeHeading;
      heading_chars[size_bucket(size)] += b.nchars;
      continue;
    }
    // Bold at body size: short, not a sentence, not a term with its definition beside it.
    bool bold = b.nchars > 0 && b.nbold * 10 >= b.nchars * 9;
    char last = b.text.empty() ? 0 : b.text.back();
    if (!st.bold_body && bold && !b.row_continues && std::fabs(size - body) <= 0.08f * body + 0.25f &&
        b.nlines <= 2 && b.text.size() <= 120 && last != '.' && last != ',' && last != ';')
      kind[i] = kBoldHeading;
  }
  // Distinct heading sizes (clusters of buckets no more than 0.5pt apart) map to levels,
  // largest first; bold headings at body size come one level below the smallest size.
  std::vector<int> level_of(kSizeBuckets, 0);
  int nlevels = 0;
  int prev_bucket = -10;
  for (int bkt = kSizeBuckets - 1; bkt >= 0; --bkt) {
    if (heading_chars[bkt] == 0) continue;
    if (prev_bucket - bkt > 1 || nlevels == 0) ++nlevels;
    level_of[bkt] = std::min(nlevels, 6);
    prev_bucket = bkt;
  }
  const int bold_level = std::min(nlevels + 1, 6);
  out.reserve(out.size() + raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    RawBlock& b = raw[i];
    if (b.text.empty()) continue;
    Block blk;
    blk.page = b.page;
    blk.x0 = b.x0, blk.y0 = b.y0, blk.x1 = b.x1, blk.y1 = b.y1;
    switch (kind[i]) {
      case kSizeHeading:
        blk.kind = BlockKind::Heading;
        blk.level = level_of[size_bucket(b.size())];
        break;
      case kBoldHeading:
        blk.kind = BlockKind::Heading;
        blk.level = bold_level;
        break;
      case kList:
        blk.kind = BlockKind::ListItem;
        break;
      case kCode:
        blk.kind = BlockKind::Code;
        break;
      default:
        blk.kind = BlockKind::Paragraph;
        break;
    }
    blk.text = std::move(b.text);
    out.push_back(std::move(blk));
  }
}

}  // namespace

// ---- public pieces ----

void join_line(std::string& text, std::string_view next, bool soft, const CompoundSet* compounds) {
  if (next.empty()) return;
  if (text.empty() || soft) {
    text.append(next);
    return;
  }
  size_t n = text.size();
  if (text[n - 1] == '-' && n >= 2 && is_word_byte(text[n - 2])) {
    if (starts_lower(next)) {
      // "atten-" + "tion" -> "attention", unless "self-attention" is written so elsewhere.
      bool keep = false;
      if (compounds && !compounds->empty()) {
        size_t a = n - 1;
        while (a > 0 && is_word_byte(text[a - 1])) --a;
        size_t b = 0;
        while (b < next.size() && is_word_byte(next[b])) ++b;
        std::string key;
        key.reserve(n - a + b);
        for (size_t i = a; i < n; ++i) key.push_back(ascii_lower(text[i]));
        for (size_t i = 0; i < b; ++i) key.push_back(ascii_lower(next[i]));
        keep = compounds->count(key) > 0;
      }
      if (!keep) text.pop_back();
      text.append(next);
      return;
    }
    if (is_word_byte(next[0]) || is_digit(next[0])) {  // "Anglo-" + "Saxon": keep the hyphen
      text.append(next);
      return;
    }
  }
  text.push_back(' ');
  text.append(next);
}

void build_blocks(std::vector<Page>& pages, std::vector<Block>& out) {
  DocStats st = compute_stats(pages);
  detail::drop_margin_lines(pages, st);
  std::vector<RawBlock> raw;
  BlockBuilder builder(st, raw);
  std::vector<int> idx, order;
  for (const Page& pg : pages) {
    idx.clear();
    order.clear();
    for (int i = 0; i < static_cast<int>(pg.lines.size()); ++i)
      if (!pg.lines[i].rotated && !pg.lines[i].dropped) idx.push_back(i);
    detail::order_lines(pg, st.body, idx, order);
    builder.page(pg, order);
  }
  classify_blocks(raw, st, out);
}

}  // namespace mmkg::pdf
