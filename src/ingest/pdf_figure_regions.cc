// detect_figures: figure regions of one page from its graphics and text lines (see pdf_figures.h).
//
// Why geometry and not MuPDF's own image blocks: most figures in papers and vignettes are
// vector drawings (plots are paths and text), which structured text does not report at all;
// and a figure made of several images and labels must come out as one picture. The caption is
// the anchor: a figure sits right above (or below) its "Figure N:" line, in the caption's
// column.
#include <algorithm>
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

Rect line_box(const Line& l) { return {l.x0, l.y0, l.x1, l.y1}; }

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

  void finish(Region& r, const std::vector<size_t>& members) {
    float image_area = 0;
    for (size_t i : members) {
      if (!gs[i].image) continue;
      image_area = std::max(image_area, overlap_area(gs[i].box, r.box));
      if (gs[i].image_key) r.image_keys.push_back(gs[i].image_key);
    }
    r.raster = image_area >= 0.5f * r.box.area();
  }
};

bool significant_image(const Graphic& g) {
  return g.image && g.box.w() >= kMinSide && g.box.h() >= kMinSide && g.box.area() >= kMinArea &&
         g.image_w >= kMinImagePixels && g.image_h >= kMinImagePixels;
}

}  // namespace

namespace {

/// Captioned figures and tables: the drawing nearest above the caption (else below), for the
/// captions on horizontal lines of `pg`.
void captioned(Builder& b, std::vector<Region>& out) {
  const Page& pg = b.pg;
  const std::vector<Graphic>& gs = b.gs;
  const float page_w = std::max(1.0f, pg.x1 - pg.x0);
  struct Cap {
    size_t line;
    CaptionLabel label;
  };
  std::vector<Cap> caps;
  for (size_t i = 0; i < pg.lines.size(); ++i) {
    const Line& l = pg.lines[i];
    if (l.dropped || l.rotated || b.line_claimed[i]) continue;
    auto lab = caption_label(pg.line_text(l));
    if (lab) caps.push_back({i, *lab});
  }
  // Strongest captions first ("Figure 3:" before "Figure 3." before "Figure 3 Title"): a line
  // of prose that happens to start with "Figure 3." must not take the figure from its caption.
  auto strength = [&](const Cap& c) {
    std::string_view t = pg.line_text(pg.lines[c.line]);
    if (!c.label.delimited) return 2;
    size_t e = std::min(t.size(), c.label.end);
    while (e > 0 && t[e - 1] == ' ') --e;
    return e > 0 && t[e - 1] == '.' ? 1 : 0;
  };
  std::stable_sort(caps.begin(), caps.end(), [&](const Cap& a, const Cap& c) { return strength(a) < strength(c); });
  for (const Cap& c : caps) {
    const Line& l = pg.lines[c.line];
    Rect cap = line_box(l);
    // The caption's row: the label may be a line of its own ("Figure 1:" then a gap, then the text).
    for (const Line& o : pg.lines)
      if (!o.dropped && std::fabs(o.y0 - l.y0) < 2 && std::fabs(o.y1 - l.y1) < 3 && o.x0 >= l.x1 && o.x0 - cap.x1 < 40)
        cap.add(line_box(o));
    // The caption's column: a caption narrower than half the page sits in one column.
    float col_x0 = pg.x0, col_x1 = pg.x1;
    if (cap.w() < 0.5f * page_w) {
      float mid = (pg.x0 + pg.x1) / 2;
      if (cap.x1 <= mid + 10) col_x1 = mid;
      else if (cap.x0 >= mid - 10) col_x0 = mid;
    }
    Rect column{col_x0, pg.y0, col_x1, pg.y1};
    for (int side = 0; side < 2; ++side) {  // 0: above the caption, 1: below
      // Seed: the unclaimed graphic in the column nearest to the caption on that side.
      size_t best = gs.size();
      float best_gap = kCaptionGap;
      for (size_t i = 0; i < gs.size(); ++i) {
        if (b.claimed[i] || !usable(gs[i], b.page)) continue;
        const Rect& g = gs[i].box;
        if (!overlaps_x(g, column) || !overlaps_x(g, cap, 0.25f * page_w)) continue;
        float gap = side == 0 ? cap.y0 - g.y1 : g.y0 - cap.y1;
        if (gap < -2 || gap > std::max(best_gap, kLabelGap)) continue;
        if (gap > best_gap && (best != gs.size() || !only_labels_between(pg, g, cap, col_x1 - col_x0))) continue;
        if (!gs[i].image && gs[i].boxy && g.h() < 2) continue;  // a rule under a caption: not a seed
        best_gap = gap;
        best = i;
      }
      if (best == gs.size()) continue;
      Region r;
      r.caption_line = static_cast<int>(c.line);
      r.label = c.label.label();
      r.table = c.label.table;
      r.box = gs[best].box;
      b.claimed[best] = 1;
      std::vector<size_t> members{best};
      // Never grow across the caption itself.
      Rect limit = side == 0 ? Rect{pg.x0, cap.y0 + 1, pg.x1, pg.y1} : Rect{pg.x0, pg.y0, pg.x1, cap.y1 - 1};
      b.grow(r.box, members, limit, /*panels=*/true, col_x1 - col_x0);
      // A table caption above a ruled table is a table; its cells are text, left to the layout.
      if (r.table && !std::any_of(members.begin(), members.end(), [&](size_t i) { return gs[i].image; })) {
        for (size_t i : members) b.claimed[i] = 0;
        break;
      }
      if (r.box.w() < kMinSide || r.box.h() < kMinSide) {
        for (size_t i : members) b.claimed[i] = 0;
        continue;
      }
      b.line_claimed[c.line] = 1;
      b.take_text(r, col_x1 - col_x0);
      b.finish(r, members);
      out.push_back(std::move(r));
      break;
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
    if (l.rotated && !l.dropped && caption_label(pg.line_text(l))) any = true;
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
