// Layout recovery for PDF text lines: see pdf_layout.h for the pipeline.
#include "ingest/pdf_layout.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

namespace mmkg::pdf {
namespace {

// Font sizes are compared in buckets of 0.5pt.
constexpr int kSizeBuckets = 1024;

int size_bucket(float s) {
  if (!(s > 0)) return 0;
  return std::clamp(static_cast<int>(std::lround(s * 2.0f)), 0, kSizeBuckets - 1);
}

bool is_ascii_alpha(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }
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

bool line_bold(const Line& l) { return l.nchars > 0 && l.nbold * 10 >= l.nchars * 8; }

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

// Roman numeral check: canonical form only ("iv" yes, "iiii" no), below 200 ("mix" is no page).
bool is_roman(std::string_view s) {
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

// ---- document statistics ----

struct DocStats {
  float body = 10.0f;    ///< most common font size by character count
  float leading = 1.2f;  ///< most common baseline distance / font size inside MuPDF blocks
  bool bold_body = false;  ///< most body-size text is bold: bold says nothing about headings
  bool mono_body = false;  ///< most body-size text is monospaced: no code detection
  CompoundSet compounds;   ///< "left-right" pairs written with a hyphen inside a line
};

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

// ---- running headers, footers, page numbers ----

void drop_margin_lines(std::vector<Page>& pages, const DocStats& st) {
  const int npages = static_cast<int>(pages.size());
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
  std::unordered_map<std::string, Count> texts;  // margin_key -> pages
  std::unordered_map<long, Count> slots;         // band + baseline position -> pages
  std::vector<Cand> cands;
  std::vector<int> by_y;
  for (int pi = 0; pi < npages; ++pi) {
    Page& pg = pages[pi];
    float h = pg.y1 - pg.y0;
    if (!(h > 0) || pg.lines.empty()) continue;
    const float band = 0.10f * h, wide = 0.16f * h, min_gap = 1.2f * st.body;
    auto same_row = [](const Line& a, const Line& b) {
      return std::fabs(a.base - b.base) < 0.5f * std::max(a.size, b.size);
    };
    by_y.clear();
    for (int i = 0; i < static_cast<int>(pg.lines.size()); ++i)
      if (!pg.lines[i].rotated) by_y.push_back(i);
    // Lines in the narrow band are candidates; lines a little further in (wide band) only when
    // a clear gap separates them from the body. `top` walks down from the top edge, then the
    // bottom edge is walked up.
    for (int top = 1; top >= 0; --top) {
      if (top) {
        std::sort(by_y.begin(), by_y.end(), [&](int a, int b) { return pg.lines[a].y0 < pg.lines[b].y0; });
      } else {
        std::sort(by_y.begin(), by_y.end(), [&](int a, int b) { return pg.lines[a].y1 > pg.lines[b].y1; });
      }
      for (size_t k = 0; k < by_y.size(); ++k) {
        Line& l = pg.lines[by_y[k]];
        float cy = 0.5f * (l.y0 + l.y1);
        float depth = top ? cy - pg.y0 : pg.y1 - cy;  // distance from the page edge
        if (depth > wide) break;
        if (l.dropped) continue;
        float gap = std::numeric_limits<float>::max();
        for (size_t j = k + 1; j < by_y.size(); ++j) {
          const Line& o = pg.lines[by_y[j]];
          if (same_row(l, o)) continue;
          gap = top ? o.y0 - l.y1 : l.y0 - o.y1;
          break;
        }
        bool separated = gap >= min_gap && gap < std::numeric_limits<float>::max();
        if (depth > band && !separated) break;  // body text reached: nothing further in
        std::string_view text = pg.line_text(l);
        if (is_page_number_text(text)) {
          l.dropped = true;
          continue;
        }
        if (npages < 3 || text.size() > 200) continue;
        auto it = texts.try_emplace((top ? "T" : "B") + margin_key(text)).first;
        it->second.add(pi);
        long slot = -1;
        if (separated && text.size() <= 120 && l.size <= st.body * 1.05f && !line_bold(l)) {
          slot = 2 * std::lround(std::clamp(l.base, -1e5f, 1e5f) / 2.0f) + 200000 + top;
          slots[slot].add(pi);
        }
        cands.push_back({&l, &it->first, slot, l.size > st.body * 1.3f});
      }
    }
  }
  for (const Cand& c : cands) {
    // Same text (numbers aside) on several pages, or a header-like line at a position used by
    // header-like lines on most pages (chapter names in running heads vary).
    int n = texts[*c.key].pages;
    bool repeated = n >= 2 && ((n >= 3 && !c.large) || n * 2 >= npages);
    if (!repeated && c.slot >= 0) {
      int m = slots[c.slot].pages;
      repeated = m >= 3 && m * 2 >= npages;
    }
    if (repeated) c.line->dropped = true;
  }
}

// ---- reading order: recursive column analysis ----

class Orderer {
 public:
  Orderer(const Page& pg, float body) : pg_(pg), body_(body) {}

  /// Appends the lines `idx` (a region of the page) to `out` in reading order.
  void order(std::vector<int>& idx, int depth, std::vector<int>& out) {
    float g0 = 0, g1 = 0;
    if (idx.size() < 4 || depth > 4 || !find_gutter(idx, &g0, &g1)) {
      sort_rows(idx);
      out.insert(out.end(), idx.begin(), idx.end());
      return;
    }
    // Full-width lines stay in place and cut the region into bands. In a band laid out in
    // columns the left side is read before the right side; other bands are read as a whole.
    Analysis a;
    analyze(idx, g0, g1, a);
    const size_t nbands = a.bands.size();
    std::vector<std::vector<int>> left(nbands), right(nbands);
    for (size_t k = 0; k < idx.size(); ++k) {
      if (a.side[k] == kSpan) continue;
      int b = a.band[k];
      bool is_left = !a.bands[b].columns || a.side[k] == kLeft ||
                     (a.side[k] == kCross && center_x(pg_.lines[idx[k]]) < 0.5f * (g0 + g1));
      (is_left ? left : right)[b].push_back(idx[k]);
    }
    for (size_t b = 0; b < nbands; ++b) {
      if (!left[b].empty()) order(left[b], depth + 1, out);
      if (!right[b].empty()) order(right[b], depth + 1, out);
      if (b < a.spanning.size()) out.push_back(a.spanning[b]);
    }
  }

 private:
  enum Side : char { kLeft, kRight, kCross, kSpan };
  struct Band {
    int left = 0, right = 0, cross = 0;
    float ltop = 0, lbot = 0, rtop = 0, rbot = 0;
    bool columns = false;  // laid out in two columns at this gutter
  };
  struct Analysis {
    std::vector<char> side;     // per line of the region
    std::vector<int> band;      // per line: band index (non-spanning lines)
    std::vector<int> spanning;  // line indices, top to bottom
    std::vector<Band> bands;    // spanning.size() + 1
    int score = 0;              // lines on the thinner side, summed over column bands
  };

  static float center_y(const Line& l) { return 0.5f * (l.y0 + l.y1); }
  static float center_x(const Line& l) { return 0.5f * (l.x0 + l.x1); }

  Side classify(const Line& l, float g0, float g1) const {
    const float tol = 0.5f;
    if (l.x1 <= g0 + tol) return kLeft;
    if (l.x0 >= g1 - tol) return kRight;
    float m = 1.5f * body_;
    return (l.x0 < g0 - m && l.x1 > g1 + m) ? kSpan : kCross;
  }

  /// Splits the region at the gutter [g0, g1] into bands and decides which bands are columns:
  /// at least two lines strictly on each side, few lines straddling the gutter, the sides next
  /// to each other, right-side lines starting at the gutter (left-aligned column) and most
  /// left-side lines reaching towards it (a column of running text, not a table of short cells
  /// or a table of contents with dot leaders).
  void analyze(const std::vector<int>& idx, float g0, float g1, Analysis& a) const {
    const size_t n = idx.size();
    a.side.assign(n, kLeft);
    a.band.assign(n, 0);
    a.spanning.clear();
    for (size_t k = 0; k < n; ++k) {
      a.side[k] = classify(pg_.lines[idx[k]], g0, g1);
      if (a.side[k] == kSpan) a.spanning.push_back(idx[k]);
    }
    std::sort(a.spanning.begin(), a.spanning.end(),
              [&](int x, int y) { return center_y(pg_.lines[x]) < center_y(pg_.lines[y]); });
    std::vector<float> span_cy;
    span_cy.reserve(a.spanning.size());
    for (int i : a.spanning) span_cy.push_back(center_y(pg_.lines[i]));
    a.bands.assign(a.spanning.size() + 1, Band{});
    float lx0 = std::numeric_limits<float>::max(), rx1 = -lx0, maxx = -lx0;
    for (int i : idx) maxx = std::max(maxx, pg_.lines[i].x1);
    for (size_t k = 0; k < n; ++k) {
      if (a.side[k] == kSpan) continue;
      const Line& l = pg_.lines[idx[k]];
      int b = static_cast<int>(std::upper_bound(span_cy.begin(), span_cy.end(), center_y(l)) -
                               span_cy.begin());
      a.band[k] = b;
      Band& bd = a.bands[b];
      if (a.side[k] == kLeft) {
        if (bd.left++ == 0) bd.ltop = l.y0, bd.lbot = l.y1;
        bd.ltop = std::min(bd.ltop, l.y0), bd.lbot = std::max(bd.lbot, l.y1);
        lx0 = std::min(lx0, l.x0);
      } else if (a.side[k] == kRight) {
        if (bd.right++ == 0) bd.rtop = l.y0, bd.rbot = l.y1;
        bd.rtop = std::min(bd.rtop, l.y0), bd.rbot = std::max(bd.rbot, l.y1);
        rx1 = std::max(rx1, l.x1);
      } else {
        bd.cross++;
      }
    }
    for (Band& bd : a.bands) {
      bd.columns = bd.left >= 2 && bd.right >= 2 && bd.cross * 4 <= bd.left + bd.right &&
                   std::min(bd.lbot, bd.rbot) - std::max(bd.ltop, bd.rtop) > 0;
    }
    // Shape of the sides, over the lines of column bands, row by row (a row of a column can
    // hold several pieces, e.g. a term and its description).
    rows_.clear();
    int nl = 0, nr = 0;
    double wl = 0, wr = 0;
    const float q = std::max(1.0f, 0.4f * body_);
    for (size_t k = 0; k < n; ++k) {
      if (a.side[k] == kSpan || a.side[k] == kCross || !a.bands[a.band[k]].columns) continue;
      const Line& l = pg_.lines[idx[k]];
      bool left = a.side[k] == kLeft;
      (left ? nl : nr)++;
      (left ? wl : wr) += l.x1 - l.x0;
      rows_.push_back({static_cast<long>(std::floor(l.base / q)), left, l.x0, l.x1});
    }
    a.score = 0;
    if (nl < 2 || nr < 2) return;
    const float min_avg = 6.0f * body_;
    if (wl / nl < min_avg || wr / nr < min_avg) return;
    std::sort(rows_.begin(), rows_.end(), [](const RowPiece& x, const RowPiece& y) {
      return x.left != y.left ? x.left : x.row < y.row;
    });
    // Page columns have comparable widths (a wide text and a narrow tag column is a table).
    float wide_side = std::max(g0 - lx0, rx1 - g1), narrow_side = std::min(g0 - lx0, rx1 - g1);
    if (!(wide_side <= 3.0f * narrow_side)) return;
    const float reach_x = g0 - 0.3f * (g0 - lx0);
    int lrows = 0, rrows = 0, reach = 0, aligned = 0;
    double rfill = 0;  // how far right-side rows extend into their side, on average
    for (size_t i = 0; i < rows_.size();) {
      size_t j = i;
      float x0 = rows_[i].x0, x1 = rows_[i].x1;
      for (; j < rows_.size() && rows_[j].left == rows_[i].left && rows_[j].row == rows_[i].row; ++j)
        x0 = std::min(x0, rows_[j].x0), x1 = std::max(x1, rows_[j].x1);
      if (rows_[i].left) {
        ++lrows;
        reach += x1 >= reach_x;
      } else {
        ++rrows;
        aligned += x0 <= g1 + 2.0f * body_;
        rfill += (x1 - g1) / std::max(1.0f, maxx - g1);  // the region's right edge
      }
      i = j;
    }
    // A column of running text: left rows reach towards the gutter, right rows start at it and
    // mostly fill their side up to the region's right edge (short cells of a table do not).
    if (reach * 2 < lrows || aligned * 5 < rrows * 3 || rfill < 0.55 * rrows) return;
    for (const Band& bd : a.bands)
      if (bd.columns) a.score += std::min(bd.left, bd.right);
  }

  /// Rows top to bottom (baselines bucketed to tolerate small offsets), left to right in a row.
  void sort_rows(std::vector<int>& idx) {
    keyed_.clear();
    float q = std::max(1.0f, 0.4f * body_);
    for (int i : idx) {
      const Line& l = pg_.lines[i];
      keyed_.push_back({static_cast<long>(std::floor(l.base / q)), l.x0, i});
    }
    std::stable_sort(keyed_.begin(), keyed_.end(), [](const Keyed& a, const Keyed& b) {
      return a.row != b.row ? a.row < b.row : a.x < b.x;
    });
    for (size_t k = 0; k < idx.size(); ++k) idx[k] = keyed_[k].i;
  }

  /// Finds the best vertical gutter in the region: an x-interval that lines of column width
  /// ("narrow" lines) do not cross, validated by analyze().
  bool find_gutter(const std::vector<int>& idx, float* g0_out, float* g1_out) {
    float minx = std::numeric_limits<float>::max(), maxx = -minx;
    for (int i : idx) {
      minx = std::min(minx, pg_.lines[i].x0);
      maxx = std::max(maxx, pg_.lines[i].x1);
    }
    float extent = maxx - minx;
    if (!(extent > 8.0f * body_) || !std::isfinite(extent)) return false;
    float bin = std::max(1.0f, extent / 2048.0f);
    int last = static_cast<int>(extent / bin);
    int nb = last + 2;
    cov_n_.assign(nb + 1, 0);
    cov_f_.assign(nb + 1, 0);
    int nn = 0;
    for (int i : idx) {
      const Line& l = pg_.lines[i];
      int b0 = std::clamp(static_cast<int>((l.x0 - minx) / bin), 0, last);
      int b1 = std::clamp(static_cast<int>((l.x1 - minx) / bin), 0, last);
      cov_f_[b0]++;
      cov_f_[b1 + 1]--;
      if (l.x1 - l.x0 < 0.55f * extent) {
        ++nn;
        cov_n_[b0]++;
        cov_n_[b1 + 1]--;
      }
    }
    if (nn < 4) return false;
    for (int b = 1; b < nb; ++b) {
      cov_n_[b] += cov_n_[b - 1];
      cov_f_[b] += cov_f_[b - 1];
    }
    const int thr = nn / 5;
    const float min_width = std::max(3.0f, 0.8f * body_);
    int best_score = 0;
    int b = 1;
    while (b < last) {
      if (cov_n_[b] > thr) {
        ++b;
        continue;
      }
      int r0 = b;
      while (b < last && cov_n_[b] <= thr) ++b;
      int r1 = b - 1;  // run [r0, r1] is strictly inside the region
      int m = std::numeric_limits<int>::max();
      for (int k = r0; k <= r1; ++k) m = std::min(m, cov_f_[k]);
      int c0 = -1, c1 = -1;
      for (int k = r0; k <= r1;) {
        if (cov_f_[k] > m + 2) {
          ++k;
          continue;
        }
        int s = k;
        while (k <= r1 && cov_f_[k] <= m + 2) ++k;
        if (c0 < 0 || k - 1 - s > c1 - c0) c0 = s, c1 = k - 1;
      }
      float g0 = minx + c0 * bin, g1 = minx + (c1 + 1) * bin;
      if (g1 - g0 < min_width) continue;
      analyze(idx, g0, g1, scratch_);
      if (scratch_.score > best_score) {
        best_score = scratch_.score;
        *g0_out = g0;
        *g1_out = g1;
      }
    }
    return best_score > 0;
  }

  struct Keyed {
    long row;
    float x;
    int i;
  };
  struct RowPiece {
    long row;
    bool left;
    float x0, x1;
  };
  const Page& pg_;
  float body_;
  std::vector<int> cov_n_, cov_f_;
  std::vector<Keyed> keyed_;
  mutable std::vector<RowPiece> rows_;
  Analysis scratch_;
};

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
  drop_margin_lines(pages, st);
  std::vector<RawBlock> raw;
  BlockBuilder builder(st, raw);
  std::vector<int> idx, order;
  for (const Page& pg : pages) {
    idx.clear();
    order.clear();
    for (int i = 0; i < static_cast<int>(pg.lines.size()); ++i)
      if (!pg.lines[i].rotated && !pg.lines[i].dropped) idx.push_back(i);
    Orderer orderer(pg, st.body);
    orderer.order(idx, 0, order);
    builder.page(pg, order);
  }
  classify_blocks(raw, st, out);
}

}  // namespace mmkg::pdf
