// detect_figures: figure regions of one page from its graphics and text lines (see pdf_figures.h).
//
// Why geometry and not MuPDF's own image blocks: most figures in papers and vignettes are
// vector drawings (plots are paths and text), which structured text does not report at all;
// and a figure made of several images and labels must come out as one picture. The caption is
// the anchor: a figure sits right above (or below) its "Figure N:" line, in the caption's
// column.
#include <algorithm>
#include <cctype>
#include <cmath>

#include "ingest/pdf_figures.h"
#include "text/captions.h"

namespace mmkg::pdf {

namespace {

// Distances in points (1/72 inch).
constexpr float kCaptionGap = 48;    // a caption sits at most this far from its figure's drawing,
constexpr float kLabelGap = 120;     // or this far when only labels (axis titles, ticks) are between
constexpr float kGrowGap = 14;       // graphics this close to a region belong to it
constexpr float kLabelMargin = 18;   // text this close to a region's drawing is its labels
constexpr float kPanelGap = 60;      // panels of one captioned figure sit at most this far apart
constexpr float kMinSide = 24;       // smaller images and drawings are decoration (icons, bullets)
constexpr float kMinArea = 2000;     // about 45 x 45 pt
constexpr int kMinImagePixels = 24;  // intrinsic size below which an image is an icon
constexpr int kMinVectorOps = 12;    // an uncaptioned drawing needs this many non-box paths


bool overlaps_x(const Rect& a, const Rect& b, float slack = 0) {
  return a.x0 < b.x1 + slack && b.x0 < a.x1 + slack;
}
bool near(const Rect& a, const Rect& b, float gap) {
  return a.x0 < b.x1 + gap && b.x0 < a.x1 + gap && a.y0 < b.y1 + gap && b.y0 < a.y1 + gap;
}
float overlap_area(const Rect& a, const Rect& b) {
  float w = std::min(a.x1, b.x1) - std::max(a.x0, b.x0);
  float h = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
  return w > 0 && h > 0 ? w * h : 0;
}
/// Area covered by the union of `rs` (overlaps counted once): a sweep over the x-slabs between
/// the rectangles' edges. Quadratic, fine for the few images of one figure.
float union_area(const std::vector<Rect>& rs) {
  std::vector<float> xs;
  for (const Rect& r : rs)
    if (!r.empty()) xs.insert(xs.end(), {r.x0, r.x1});
  std::sort(xs.begin(), xs.end());
  float total = 0;
  for (size_t k = 0; k + 1 < xs.size(); ++k) {
    const float a = xs[k], b = xs[k + 1];
    if (b <= a) continue;
    std::vector<std::pair<float, float>> ys;
    for (const Rect& r : rs)
      if (!r.empty() && r.x0 <= a && r.x1 >= b) ys.push_back({r.y0, r.y1});
    std::sort(ys.begin(), ys.end());
    float covered = 0, top = 0, bottom = 0;
    bool open = false;
    for (const auto& [y0, y1] : ys) {
      if (open && y0 <= bottom) {
        bottom = std::max(bottom, y1);
        continue;
      }
      if (open) covered += bottom - top;
      top = y0, bottom = y1, open = true;
    }
    if (open) covered += bottom - top;
    total += covered * (b - a);
  }
  return total;
}

bool center_inside(const Rect& r, const Rect& box) {
  float cx = (r.x0 + r.x1) / 2, cy = (r.y0 + r.y1) / 2;
  return cx >= box.x0 && cx <= box.x1 && cy >= box.y0 && cy <= box.y1;
}

/// A graphic that can be part of a figure: not a page background, not invisible.
bool usable(const Graphic& g, const Rect& page) {
  if (g.box.empty()) return false;
  if (g.box.area() > 0.85f * page.area()) return false;  // page background, frame
  if (g.image) return true;
  return true;
}

/// Text lines of prose (not labels): long lines of body text.
bool prose_line(const Page& pg, const Line& l, float column_width) {
  std::string_view t = pg.line_text(l);
  return t.size() >= 60 || (l.x1 - l.x0) > 0.7f * column_width;
}

/// True when every text line in the band between `a` and `b` (vertically), over their common
/// horizontal extent, is a label rather than prose.
bool only_labels_between(const Page& pg, const Rect& a, const Rect& b, float column_width) {
  float top = std::min(a.y1, b.y1), bottom = std::max(a.y0, b.y0);
  Rect band{std::min(a.x0, b.x0), top, std::max(a.x1, b.x1), bottom};
  for (const Line& l : pg.lines) {
    if (l.dropped) continue;
    Rect lb = line_box(l);
    float cy = (lb.y0 + lb.y1) / 2;
    if (cy <= band.y0 || cy >= band.y1 || !overlaps_x(lb, band)) continue;
    if (prose_line(pg, l, column_width)) return false;
  }
  return true;
}

struct Builder {
  const Page& pg;
  const std::vector<Graphic>& gs;
  Rect page;
  std::vector<char>& claimed;       // per graphic
  std::vector<char>& line_claimed;  // per line (captions and figure text)

  Builder(const Page& p, const std::vector<Graphic>& g, std::vector<char>& gc, std::vector<char>& lc)
      : pg(p), gs(g), claimed(gc), line_claimed(lc) {
    page = {p.x0, p.y0, p.x1, p.y1};
  }

  /// True when a prose line or a caption (another figure's boundary) has its centre inside `r`.
  bool prose_inside(const Rect& r, float column_width) const {
    for (size_t i = 0; i < pg.lines.size(); ++i) {
      const Line& l = pg.lines[i];
      if (l.dropped || !center_inside(line_box(l), r)) continue;
      if (prose_line(pg, l, column_width) || caption_label(pg.line_text(l))) return true;
    }
    return false;
  }

  /// Grows `box` over unclaimed graphics near it (not crossing `limit`, the caption side).
  /// With `panels` (a captioned figure), graphics up to kPanelGap away join too when no prose
  /// lies in between: the panels of a multi-panel figure, separated by their axis labels.
  void grow(Rect& box, std::vector<size_t>& members, const Rect& limit, bool panels = false, float column_width = 0) {
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = 0; i < gs.size(); ++i) {
        if (claimed[i] || !usable(gs[i], page)) continue;
        const Rect& b = gs[i].box;
        if (!near(b, box, kGrowGap)) {
          if (!panels || !near(b, box, kPanelGap)) continue;
          Rect u = box;
          u.add(b);
          if (prose_inside(u, column_width)) continue;
        }
        if (!limit.empty() && overlap_area(b, limit) > 0) continue;
        box.add(b);
        claimed[i] = 1;
        members.push_back(i);
        changed = true;
      }
    }
  }

  /// Text lines inside (or labelling) a region: short lines whose centre lies in the region
  /// widened by a label margin. Prose lines are never taken.
  void take_text(Region& r, float column_width) {
    Rect wide{r.box.x0 - kLabelMargin, r.box.y0 - kLabelMargin, r.box.x1 + kLabelMargin, r.box.y1 + kLabelMargin};
    Rect grown = r.box;
    size_t chars = 0, n = 0;
    for (size_t i = 0; i < pg.lines.size(); ++i) {
      const Line& l = pg.lines[i];
      if (line_claimed[i] || l.dropped) continue;
      Rect lb = line_box(l);
      bool inside = center_inside(lb, r.box);
      if (!inside && !(center_inside(lb, wide) && !prose_line(pg, l, column_width))) continue;
      if (!inside && prose_line(pg, l, column_width)) continue;
      r.text_lines.push_back(static_cast<int>(i));
      grown.add(lb);
      chars += l.text_len;
      ++n;
    }
    // Inner text that reads like labels (short lines) leaves the body text; a region full of
    // prose (a mis-detected box around a paragraph) keeps its text in the body.
    size_t prose = 0;
    for (int i : r.text_lines)
      if (prose_line(pg, pg.lines[static_cast<size_t>(i)], column_width)) ++prose;
    r.drop_text_from_body = n > 0 && prose * 4 <= n && chars / n < 48;
    if (r.drop_text_from_body) {
      for (int i : r.text_lines) line_claimed[static_cast<size_t>(i)] = 1;
      r.box = grown;
    } else {
      r.text_lines.clear();
    }
  }

  /// Raster when images cover at least half the region, counted together: a figure of several
  /// screenshots or photos side by side is raster (and gets OCR) though no one image is half of it.
  void finish(Region& r, const std::vector<size_t>& members) {
    std::vector<Rect> images;
    for (size_t i : members) {
      if (!gs[i].image) continue;
      const Rect& g = gs[i].box;
      images.push_back({std::max(g.x0, r.box.x0), std::max(g.y0, r.box.y0), std::min(g.x1, r.box.x1),
                        std::min(g.y1, r.box.y1)});
      if (gs[i].image_key) r.image_keys.push_back(gs[i].image_key);
    }
    r.raster = union_area(images) >= 0.5f * r.box.area();
  }
};

bool significant_image(const Graphic& g) {
  return g.image && g.box.w() >= kMinSide && g.box.h() >= kMinSide && g.box.area() >= kMinArea &&
         g.image_w >= kMinImagePixels && g.image_h >= kMinImagePixels;
}

}  // namespace

namespace {

struct Cap {
  size_t line;                 // the caption's first line
  CaptionLabel label;
  std::string text;            // its text; a row split word by word is joined (join_row)
  std::vector<size_t> pieces;  // the lines making up `text`, `line` first
};

constexpr float kRowGap = 40;  // the pieces of one caption row sit at most this far apart

/// A word that may start a caption ("Figure", "Fig.", "TABLE"): short, letters and a final dot.
bool bare_caption_word(std::string_view t) {
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  if (t.empty() || t.size() > 7) return false;
  for (size_t i = 0; i < t.size(); ++i)
    if (!std::isalpha(static_cast<unsigned char>(t[i])) && !(t[i] == '.' && i + 1 == t.size())) return false;
  return true;
}

/// A fully justified caption line with wide word gaps comes out of the text layer one word a
/// line ("Figure" | "4.2:" | "(a)Inverting" | ...), so no single line reads as a caption.
/// Appends to `c` the lines continuing its row, nearest first, left to right.
void join_row(const Page& pg, const std::vector<char>& claimed, Cap& c) {
  size_t cur = c.line;
  for (int n = 0; n < 32; ++n) {
    const Line& a = pg.lines[cur];
    size_t next = pg.lines.size();
    float best = kRowGap;
    for (size_t j = 0; j < pg.lines.size(); ++j) {
      const Line& o = pg.lines[j];
      if (j == cur || o.dropped || o.rotated || claimed[j]) continue;
      if (std::fabs(o.y0 - a.y0) >= 2.5f || std::fabs(o.y1 - a.y1) >= 3) continue;
      float gap = o.x0 - a.x1;
      if (gap < -1 || gap >= best) continue;
      best = gap;
      next = j;
    }
    if (next == pg.lines.size()) break;
    c.text += ' ';
    c.text += pg.line_text(pg.lines[next]);
    c.pieces.push_back(next);
    cur = next;
  }
}

/// The caption lines of `pg` (horizontal, not yet claimed), strongest first ("Figure 3:"
/// before "Figure 3." before "Figure 3 Title"): a line of prose that happens to start with
/// "Figure 3." must not take the figure from its caption.
std::vector<Cap> find_captions(const Builder& b) {
  const Page& pg = b.pg;
  std::vector<Cap> caps;
  for (size_t i = 0; i < pg.lines.size(); ++i) {
    const Line& l = pg.lines[i];
    if (l.dropped || l.rotated || b.line_claimed[i]) continue;
    Cap c{i, {}, std::string(pg.line_text(l)), {i}};
    auto lab = caption_label(c.text);
    if (!lab && bare_caption_word(c.text)) {
      join_row(pg, b.line_claimed, c);
      lab = caption_label(c.text);
    }
    if (!lab) continue;
    c.label = *lab;
    caps.push_back(std::move(c));
  }
  auto strength = [&](const Cap& c) {
    std::string_view t = c.text;
    if (!c.label.delimited) return 2;
    size_t e = std::min(t.size(), c.label.end);
    while (e > 0 && t[e - 1] == ' ') --e;
    return e > 0 && t[e - 1] == '.' ? 1 : 0;
  };
  std::stable_sort(caps.begin(), caps.end(), [&](const Cap& a, const Cap& c) { return strength(a) < strength(c); });
  return caps;
}

/// The box of caption `c`, with the rest of its row: the label may be a line of its own
/// ("Figure 1:" then a gap, then the text).
Rect caption_box(const Page& pg, const Cap& c) {
  const Line& l = pg.lines[c.line];
  Rect cap;
  for (size_t i : c.pieces) cap.add(line_box(pg.lines[i]));
  for (const Line& o : pg.lines)
    if (!o.dropped && std::fabs(o.y0 - l.y0) < 2 && std::fabs(o.y1 - l.y1) < 3 && o.x0 >= l.x1 && o.x0 - cap.x1 < 40)
      cap.add(line_box(o));
  return cap;
}

/// The caption's column: a caption narrower than half the page sits in one column.
Rect caption_column(const Page& pg, const Rect& cap, float page_w) {
  float col_x0 = pg.x0, col_x1 = pg.x1;
  if (cap.w() < 0.5f * page_w) {
    float mid = (pg.x0 + pg.x1) / 2;
    if (cap.x1 <= mid + 10) col_x1 = mid;
    else if (cap.x0 >= mid - 10) col_x0 = mid;
  }
  return {col_x0, pg.y0, col_x1, pg.y1};
}

/// The seed of a captioned figure: the unclaimed graphic in the column nearest to the caption
/// on `side` (0: above, 1: below); gs.size() when there is none.
size_t caption_seed(const Builder& b, const Rect& cap, const Rect& column, float page_w, int side) {
  const std::vector<Graphic>& gs = b.gs;
  size_t best = gs.size();
  float best_gap = kCaptionGap;
  for (size_t i = 0; i < gs.size(); ++i) {
    if (b.claimed[i] || !usable(gs[i], b.page)) continue;
    const Rect& g = gs[i].box;
    if (!overlaps_x(g, column) || !overlaps_x(g, cap, 0.25f * page_w)) continue;
    float gap = side == 0 ? cap.y0 - g.y1 : g.y0 - cap.y1;
    if (gap < -2 || gap > std::max(best_gap, kLabelGap)) continue;
    if (gap > best_gap && (best != gs.size() || !only_labels_between(b.pg, g, cap, column.x1 - column.x0))) continue;
    if (!gs[i].image && gs[i].boxy && g.h() < 2) continue;  // a rule under a caption: not a seed
    best_gap = gap;
    best = i;
  }
  return best;
}

enum class Grown { Figure, Table, TooSmall };

/// Grows the region of caption `c` from graphic `seed` on `side` of the caption. A figure is
/// appended to `out`; a table without images and a region too small to be a figure give their
/// graphics back.
Grown grow_captioned(Builder& b, const Cap& c, const Rect& cap, const Rect& column, size_t seed, int side,
                     std::vector<Region>& out) {
  const Page& pg = b.pg;
  const float column_width = column.x1 - column.x0;
  Region r;
  r.caption_line = static_cast<int>(c.line);
  r.label = c.label.label();
  r.table = c.label.table;
  r.box = b.gs[seed].box;
  b.claimed[seed] = 1;
  std::vector<size_t> members{seed};
  // Never grow across the caption itself.
  Rect limit = side == 0 ? Rect{pg.x0, cap.y0 + 1, pg.x1, pg.y1} : Rect{pg.x0, pg.y0, pg.x1, cap.y1 - 1};
  b.grow(r.box, members, limit, /*panels=*/true, column_width);
  // A table caption above a ruled table is a table; its cells are text, left to the layout.
  if (r.table && !std::any_of(members.begin(), members.end(), [&](size_t i) { return b.gs[i].image; })) {
    for (size_t i : members) b.claimed[i] = 0;
    return Grown::Table;
  }
  if (r.box.w() < kMinSide || r.box.h() < kMinSide) {
    for (size_t i : members) b.claimed[i] = 0;
    return Grown::TooSmall;
  }
  for (size_t i : c.pieces) b.line_claimed[i] = 1;
  if (c.pieces.size() > 1) r.caption_text = c.text;
  b.take_text(r, column_width);
  b.finish(r, members);
  out.push_back(std::move(r));
  return Grown::Figure;
}

/// Captioned figures and tables: the drawing nearest above the caption (else below), for the
/// captions on horizontal lines of `pg`.
void captioned(Builder& b, std::vector<Region>& out) {
  const Page& pg = b.pg;
  const float page_w = std::max(1.0f, pg.x1 - pg.x0);
  for (const Cap& c : find_captions(b)) {
    const Rect cap = caption_box(pg, c);
    const Rect column = caption_column(pg, cap, page_w);
    for (int side = 0; side < 2; ++side) {  // 0: above the caption, 1: below
      const size_t seed = caption_seed(b, cap, column, page_w, side);
      if (seed == b.gs.size()) continue;
      if (grow_captioned(b, c, cap, column, seed, side, out) != Grown::TooSmall) break;
    }
  }
}

// A landscape figure on a portrait page has its caption rotated by a quarter turn. The page is
// turned so that the caption reads horizontally (x' = y, y' = W - x), captions are matched the
// usual way, and the regions are turned back.
Rect turn(const Rect& r, float w) { return {r.y0, w - r.x1, r.y1, w - r.x0}; }
Rect unturn(const Rect& r, float w) { return {w - r.y1, r.x0, w - r.y0, r.x1}; }

void rotated_captions(const Page& pg, const std::vector<Graphic>& gs, std::vector<char>& gc, std::vector<char>& lc,
                      std::vector<Region>& out) {
  bool any = false;
  for (const Line& l : pg.lines)
    if (l.rotated && !l.dropped && (caption_label(pg.line_text(l)) || bare_caption_word(pg.line_text(l)))) any = true;
  if (!any) return;
  const float w = pg.x1;
  Page t = pg;
  t.x0 = pg.y0;
  t.y0 = w - pg.x1;
  t.x1 = pg.y1;
  t.y1 = w - pg.x0;
  for (Line& l : t.lines) {
    Rect r = turn({l.x0, l.y0, l.x1, l.y1}, w);
    l.x0 = r.x0, l.y0 = r.y0, l.x1 = r.x1, l.y1 = r.y1;
    l.rotated = !l.rotated;
  }
  std::vector<Graphic> tg = gs;
  for (Graphic& g : tg) g.box = turn(g.box, w);
  Builder tb(t, tg, gc, lc);
  std::vector<Region> found;
  captioned(tb, found);
  for (Region& r : found) {
    r.box = unturn(r.box, w);
    out.push_back(std::move(r));
  }
}

}  // namespace

std::vector<Region> detect_figures(const Page& pg, const std::vector<Graphic>& gs) {
  std::vector<Region> out;
  std::vector<char> gc(gs.size(), 0), lc(pg.lines.size(), 0);
  Builder b(pg, gs, gc, lc);

  // 1. Captioned figures and tables, then those with captions turned a quarter.
  captioned(b, out);
  rotated_captions(pg, gs, gc, lc, out);

  // 2. Uncaptioned images that are not decoration.
  for (size_t i = 0; i < gs.size(); ++i) {
    if (b.claimed[i] || !significant_image(gs[i])) continue;
    Region r;
    r.box = gs[i].box;
    b.claimed[i] = 1;
    std::vector<size_t> members{i};
    // Images tiled side by side (a figure cut into strips) join; paths around them too.
    b.grow(r.box, members, Rect{});
    b.finish(r, members);
    r.raster = true;
    out.push_back(std::move(r));
  }

  // 3. Uncaptioned drawings: a dense cluster of non-box paths (a plot or diagram). Boxes and
  //    rules alone (frames, table rulings, code backgrounds) are decoration.
  for (size_t i = 0; i < gs.size(); ++i) {
    if (b.claimed[i] || gs[i].image || gs[i].boxy || !usable(gs[i], b.page)) continue;
    Region r;
    r.box = gs[i].box;
    std::vector<size_t> members{i};
    b.claimed[i] = 1;
    b.grow(r.box, members, Rect{});
    int ops = 0;
    for (size_t m : members) ops += gs[m].boxy ? 0 : 1;
    if (ops < kMinVectorOps || r.box.w() < 3 * kMinSide || r.box.h() < 3 * kMinSide ||
        r.box.area() < 0.04f * b.page.area()) {
      continue;  // stays claimed: its parts cannot seed another cluster either
    }
    b.take_text(r, pg.x1 - pg.x0);
    b.finish(r, members);
    out.push_back(std::move(r));
  }

  // Reading order: top to bottom, then left to right.
  std::sort(out.begin(), out.end(), [](const Region& a, const Region& c) {
    if (std::fabs(a.box.y0 - c.box.y0) > 4) return a.box.y0 < c.box.y0;
    return a.box.x0 < c.box.x0;
  });
  return out;
}

}  // namespace mmkg::pdf
