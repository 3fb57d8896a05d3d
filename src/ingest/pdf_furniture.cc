// Page furniture: running headers, footers and page numbers in the top and bottom margin
// bands, recognised by their text (page-number patterns, the same text on several pages with
// numbers normalised) or by a position that header-like lines take on most pages.
// See pdf_layout.h for the whole pipeline.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "ingest/pdf_layout.h"
#include "ingest/pdf_layout_internal.h"

namespace mmkg::pdf {

using detail::ascii_lower;
using detail::is_ascii_alpha;
using detail::is_digit;
using detail::is_roman;
using detail::line_bold;

// ---- page-number and header text ----

bool detail::is_roman(std::string_view s) {
  if (s.empty() || s.size() > 12) return false;
  static const struct {
    int v;
    const char* r;
  } table[] = {{1000, "m"}, {900, "cm"}, {500, "d"}, {400, "cd"}, {100, "c"}, {90, "xc"},
               {50, "l"},   {40, "xl"},  {10, "x"},  {9, "ix"},   {5, "v"},   {4, "iv"},
               {1, "i"}};
  int value = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = ascii_lower(s[i]);
    int v = c == 'i' ? 1 : c == 'v' ? 5 : c == 'x' ? 10 : c == 'l' ? 50 : c == 'c' ? 100
          : c == 'd' ? 500 : c == 'm' ? 1000 : 0;
    if (v == 0) return false;
    int next = 0;
    if (i + 1 < s.size()) {
      char d = ascii_lower(s[i + 1]);
      next = d == 'i' ? 1 : d == 'v' ? 5 : d == 'x' ? 10 : d == 'l' ? 50 : d == 'c' ? 100
           : d == 'd' ? 500 : d == 'm' ? 1000 : 0;
    }
    value += v < next ? -v : v;
  }
  if (value <= 0 || value >= 200) return false;  // front-matter page numbers are small
  std::string canon;
  for (const auto& t : table)
    while (value >= t.v) canon += t.r, value -= t.v;
  if (canon.size() != s.size()) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (canon[i] != ascii_lower(s[i])) return false;
  return true;
}

bool is_page_number_text(std::string_view s) {
  // Strip decorations around the number: spaces, dashes, bars, brackets, dots.
  auto decoration_len = [](std::string_view t, bool front) -> size_t {
    if (t.empty()) return 0;
    static const char* const kDeco[] = {" ", "-", "|", "[", "]", "(", ")", ".", "\xE2\x80\x93",
                                        "\xE2\x80\x94", "\xE2\x80\xA2", "\xC2\xB7", "*", "~"};
    for (const char* d : kDeco) {
      size_t n = std::strlen(d);
      if (t.size() >= n && (front ? t.substr(0, n) : t.substr(t.size() - n)) == d) return n;
    }
    return 0;
  };
  for (size_t n; (n = decoration_len(s, true)) > 0;) s.remove_prefix(n);
  for (size_t n; (n = decoration_len(s, false)) > 0;) s.remove_suffix(n);
  if (s.empty() || s.size() > 40) return false;
  std::string t(s);
  for (char& c : t) c = ascii_lower(c);
  std::string_view v(t);
  auto skip_spaces = [&] {
    while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  };
  for (const char* prefix : {"page", "pg.", "pg", "p.", "seite", "pagina", "p\xC3\xA1gina"}) {
    size_t n = std::strlen(prefix);
    if (v.size() > n && v.substr(0, n) == prefix && (v[n] == ' ' || is_digit(v[n]))) {
      v.remove_prefix(n);
      skip_spaces();
      break;
    }
  }
  auto number = [&]() -> bool {
    size_t n = 0;
    while (n < v.size() && is_digit(v[n])) ++n;
    if (n > 0 && n <= 5) {
      v.remove_prefix(n);
      return true;
    }
    if (n > 0) return false;
    while (n < v.size() && is_ascii_alpha(v[n])) ++n;
    if (n > 0 && is_roman(v.substr(0, n))) {
      v.remove_prefix(n);
      return true;
    }
    return false;
  };
  if (!number()) return false;
  skip_spaces();
  if (v.empty()) return true;
  if (v.front() == '/') {
    v.remove_prefix(1);
  } else if (v.substr(0, 3) == "of " || v.substr(0, 4) == "von " || v.substr(0, 3) == "de ") {
    v.remove_prefix(v.find(' '));
  } else {
    return false;
  }
  skip_spaces();
  return number() && (skip_spaces(), v.empty());
}

std::string margin_key(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == ' ') {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
      ++i;
    } else if (is_digit(c)) {
      while (i < s.size() && is_digit(static_cast<unsigned char>(s[i]))) ++i;
      out.push_back('#');
    } else {
      size_t j = i;
      while (j < s.size() && s[j] != ' ' && !is_digit(static_cast<unsigned char>(s[j]))) ++j;
      std::string_view tok = s.substr(i, j - i);
      bool at_edge = i == 0 || j == s.size();
      if (at_edge && is_roman(tok)) {
        out.push_back('#');
      } else {
        for (char ch : tok) out.push_back(ascii_lower(ch));
      }
      i = j;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// ---- running headers, footers, page numbers ----

namespace {

/// The margin lines of a document: what they say and where they sit, counted over its pages.
/// scan() visits each page's margin bands, drop() then drops the repeated lines.
class MarginScan {
 public:
  MarginScan(int npages, const detail::DocStats& st) : npages_(npages), st_(st) {}

  /// Lines in the narrow band are candidates; lines a little further in (wide band) only when
  /// a clear gap separates them from the body. `top` walks down from the top edge, then the
  /// bottom edge is walked up.
  void scan(Page& pg, int pi) {
    float h = pg.y1 - pg.y0;
    if (!(h > 0) || pg.lines.empty()) return;
    by_y_.clear();
    for (int i = 0; i < static_cast<int>(pg.lines.size()); ++i)
      if (!pg.lines[i].rotated) by_y_.push_back(i);
    for (int top = 1; top >= 0; --top) {
      if (top) {
        std::sort(by_y_.begin(), by_y_.end(), [&](int a, int b) { return pg.lines[a].y0 < pg.lines[b].y0; });
      } else {
        std::sort(by_y_.begin(), by_y_.end(), [&](int a, int b) { return pg.lines[a].y1 > pg.lines[b].y1; });
      }
      scan_edge(pg, pi, top);
    }
  }

  void drop() {
    for (const Cand& c : cands_) {
      // Same text (numbers aside) on several pages, or a header-like line at a position used by
      // header-like lines on most pages (chapter names in running heads vary).
      int n = texts_[*c.key].pages;
      bool repeated = n >= 2 && ((n >= 3 && !c.large) || n * 2 >= npages_);
      if (!repeated && c.slot >= 0) {
        int m = slots_[c.slot].pages;
        repeated = m >= 3 && m * 2 >= npages_;
      }
      if (repeated) c.line->dropped = true;
    }
  }

 private:
  struct Cand {
    Line* line;
    const std::string* key;
    long slot;   // position key, or -1 when the line is not header-like
    bool large;  // clearly larger than body text: only dropped when on half the pages
  };
  struct Count {
    int last_page = -1;
    int pages = 0;
    void add(int page) {
      if (last_page != page) last_page = page, ++pages;
    }
  };

  /// The lines of one margin band of page `pi`, from its edge inwards (by_y_ in that order):
  /// page numbers dropped now, other lines counted and kept as candidates.
  void scan_edge(Page& pg, int pi, int top) {
    const float h = pg.y1 - pg.y0;
    const float band = 0.10f * h, wide = 0.16f * h, min_gap = 1.2f * st_.body;
    for (size_t k = 0; k < by_y_.size(); ++k) {
      Line& l = pg.lines[by_y_[k]];
      float cy = 0.5f * (l.y0 + l.y1);
      float depth = top ? cy - pg.y0 : pg.y1 - cy;  // distance from the page edge
      if (depth > wide) break;
      if (l.dropped) continue;
      float gap = gap_inwards(pg, k, top);
      bool separated = gap >= min_gap && gap < std::numeric_limits<float>::max();
      if (depth > band && !separated) break;  // body text reached: nothing further in
      std::string_view text = pg.line_text(l);
      if (is_page_number_text(text)) {
        l.dropped = true;
        continue;
      }
      if (npages_ < 3 || text.size() > 200) continue;
      auto it = texts_.try_emplace((top ? "T" : "B") + margin_key(text)).first;
      it->second.add(pi);
      long slot = -1;
      if (separated && text.size() <= 120 && l.size <= st_.body * 1.05f && !line_bold(l)) {
        slot = 2 * std::lround(std::clamp(l.base, -1e5f, 1e5f) / 2.0f) + 200000 + top;
        slots_[slot].add(pi);
      }
      cands_.push_back({&l, &it->first, slot, l.size > st_.body * 1.3f});
    }
  }

  /// The gap between line by_y_[k] and the next line further in that is not on its row.
  float gap_inwards(const Page& pg, size_t k, int top) const {
    const Line& l = pg.lines[by_y_[k]];
    for (size_t j = k + 1; j < by_y_.size(); ++j) {
      const Line& o = pg.lines[by_y_[j]];
      if (std::fabs(l.base - o.base) < 0.5f * std::max(l.size, o.size)) continue;  // same row
      return top ? o.y0 - l.y1 : l.y0 - o.y1;
    }
    return std::numeric_limits<float>::max();
  }

  const int npages_;
  const detail::DocStats& st_;
  std::unordered_map<std::string, Count> texts_;  // margin_key -> pages
  std::unordered_map<long, Count> slots_;         // band + baseline position -> pages
  std::vector<Cand> cands_;
  std::vector<int> by_y_;
};

}  // namespace

void detail::drop_margin_lines(std::vector<Page>& pages, const DocStats& st) {
  const int npages = static_cast<int>(pages.size());
  MarginScan scan(npages, st);
  for (int pi = 0; pi < npages; ++pi) scan.scan(pages[pi], pi);
  scan.drop();
}

}  // namespace mmkg::pdf
