// Reading order by recursive column analysis: a region's lines are split at the best vertical
// gutter (an x-interval that column-width lines do not cross); full-width lines cut the region
// into bands, and in bands laid out in columns the left side is read before the right side.
// See pdf_layout.h for the whole pipeline.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ingest/pdf_layout.h"
#include "ingest/pdf_layout_internal.h"

namespace mmkg::pdf {
namespace {

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
    const Extent e = split_bands(idx, g0, g1, a);
    a.score = 0;
    if (!columns_of_text(idx, g0, g1, a, e)) return;
    for (const Band& bd : a.bands)
      if (bd.columns) a.score += std::min(bd.left, bd.right);
  }

  /// How far the lines of a region reach: the leftmost left-side line, the rightmost
  /// right-side line, the rightmost line of all.
  struct Extent {
    float lx0, rx1, maxx;
  };

  /// analyze(), first half: each line's side of the gutter, the spanning lines cutting the
  /// region into bands, and the bands with lines on both sides next to each other.
  Extent split_bands(const std::vector<int>& idx, float g0, float g1, Analysis& a) const {
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
    return {lx0, rx1, maxx};
  }

  /// analyze(), second half: whether the sides of the column bands, row by row (a row of a
  /// column can hold several pieces, e.g. a term and its description), look like columns of
  /// running text.
  bool columns_of_text(const std::vector<int>& idx, float g0, float g1, const Analysis& a, const Extent& e) const {
    const size_t n = idx.size();
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
    if (nl < 2 || nr < 2) return false;
    const float min_avg = 6.0f * body_;
    if (wl / nl < min_avg || wr / nr < min_avg) return false;
    std::sort(rows_.begin(), rows_.end(), [](const RowPiece& x, const RowPiece& y) {
      return x.left != y.left ? x.left : x.row < y.row;
    });
    // Page columns have comparable widths (a wide text and a narrow tag column is a table).
    float wide_side = std::max(g0 - e.lx0, e.rx1 - g1), narrow_side = std::min(g0 - e.lx0, e.rx1 - g1);
    if (!(wide_side <= 3.0f * narrow_side)) return false;
    const float reach_x = g0 - 0.3f * (g0 - e.lx0);
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
        rfill += (x1 - g1) / std::max(1.0f, e.maxx - g1);  // the region's right edge
      }
      i = j;
    }
    // A column of running text: left rows reach towards the gutter, right rows start at it and
    // mostly fill their side up to the region's right edge (short cells of a table do not).
    return !(reach * 2 < lrows || aligned * 5 < rrows * 3 || rfill < 0.55 * rrows);
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

}  // namespace

void detail::order_lines(const Page& pg, float body, std::vector<int>& idx, std::vector<int>& out) {
  Orderer orderer(pg, body);
  orderer.order(idx, 0, out);
}

}  // namespace mmkg::pdf
