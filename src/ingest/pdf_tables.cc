// detect_tables and table_cells (see pdf_tables.h).
//
// The text is taken word by word (Page::words), not line by line: the PDF parser splits lines
// only at gaps wider than two ems, and table columns are often closer than that.
#include "ingest/pdf_tables.h"

#include <algorithm>
#include <cmath>

#include "text/captions.h"

namespace mmkg::pdf {

namespace {

constexpr float kMerge = 2;          // rule positions this close (points) are one border
constexpr float kMinRule = 6;        // shorter strokes are tick marks or glyph parts
constexpr float kTableCaptionGap = 40;  // a table starts at most this far from its caption
constexpr size_t kMaxRules = 4000;   // more strokes than this on a page: a drawing, not tables
constexpr size_t kMaxColumns = 40;

/// A word (or a whole line when its words were not recorded) with its text.
struct Frag {
  float x0, x1, y0, y1, base, size;
  std::string text;
  int line;
};

std::vector<Frag> fragments(const Page& pg, int li) {
  const Line& l = pg.lines[static_cast<size_t>(li)];
  std::string_view t = pg.line_text(l);
  std::vector<std::string_view> tokens;
  for (size_t p = 0; p < t.size();) {
    size_t s = t.find_first_not_of(' ', p);
    if (s == std::string_view::npos) break;
    size_t e = t.find(' ', s);
    if (e == std::string_view::npos) e = t.size();
    tokens.push_back(t.substr(s, e - s));
    p = e;
  }
  std::vector<Frag> out;
  float size = l.size > 0 ? l.size : std::max(1.0f, l.y1 - l.y0);
  bool words = l.word_count == tokens.size() && l.word_off + l.word_count <= pg.words.size();
  if (!words) {
    out.push_back({l.x0, l.x1, l.y0, l.y1, l.base, size, std::string(t), li});
    return out;
  }
  for (size_t k = 0; k < tokens.size(); ++k) {
    const Word& w = pg.words[l.word_off + k];
    out.push_back({w.x0, w.x1, l.y0, l.y1, l.base, size, std::string(tokens[k]), li});
  }
  return out;
}

/// Fragments on one baseline, left to right.
struct Row {
  std::vector<Frag> frags;
  float base = 0, size = 0, y0 = 0, y1 = 0;
};

std::vector<Row> baseline_rows(std::vector<Frag> frags) {
  std::sort(frags.begin(), frags.end(), [](const Frag& a, const Frag& b) { return a.base < b.base; });
  std::vector<Row> rows;
  for (Frag& f : frags) {
    if (rows.empty() || std::fabs(f.base - rows.back().base) > 0.5f * std::max(f.size, rows.back().size)) {
      rows.emplace_back();
      rows.back().base = f.base;
      rows.back().y0 = f.y0;
      rows.back().y1 = f.y1;
    }
    Row& r = rows.back();
    r.size = std::max(r.size, f.size);
    r.y0 = std::min(r.y0, f.y0);
    r.y1 = std::max(r.y1, f.y1);
    r.frags.push_back(std::move(f));
  }
  for (Row& r : rows)
    std::sort(r.frags.begin(), r.frags.end(), [](const Frag& a, const Frag& b) { return a.x0 < b.x0; });
  return rows;
}

/// Words of a row closer than a word space joined into phrases (one cell's text).
std::vector<Frag> phrases(const Row& r) {
  std::vector<Frag> out;
  for (const Frag& f : r.frags) {
    if (!out.empty() && f.x0 - out.back().x1 < 0.75f * std::max(f.size, out.back().size)) {
      out.back().text += ' ' + f.text;
      out.back().x1 = std::max(out.back().x1, f.x1);
      continue;
    }
    out.push_back(f);
  }
  return out;
}

/// Sorted distinct positions (merged within kMerge) of the rules of one direction crossing
/// `box` over at least `share` of its extent in the other direction.
std::vector<float> rule_positions(const std::vector<Rule>& rules, const Rect& box, bool horizontal, float share) {
  std::vector<float> pos;
  float lo = horizontal ? box.x0 : box.y0, hi = horizontal ? box.x1 : box.y1;
  float plo = horizontal ? box.y0 : box.x0, phi = horizontal ? box.y1 : box.x1;
  for (const Rule& r : rules) {
    if (r.horizontal != horizontal || r.pos < plo - kMerge || r.pos > phi + kMerge) continue;
    float cover = std::min(hi, r.hi) - std::max(lo, r.lo);
    if (cover >= share * (hi - lo)) pos.push_back(r.pos);
  }
  std::sort(pos.begin(), pos.end());
  std::vector<float> out;
  for (float p : pos)
    if (out.empty() || p - out.back() > kMerge) out.push_back(p);
  return out;
}

/// Column spans [x0, x1] from the gutters of aligned text: x ranges that (almost) no phrase of a
/// row with several phrases covers.
std::vector<std::pair<float, float>> gutter_columns(const std::vector<std::vector<Frag>>& rows, float em) {
  float lo = 1e9f, hi = -1e9f;
  int multi = 0;
  for (const auto& r : rows) {
    if (r.size() < 2) continue;
    ++multi;
    for (const Frag& f : r) lo = std::min(lo, f.x0), hi = std::max(hi, f.x1);
  }
  if (multi < 2 || hi - lo < 1 || hi - lo > 5000) return {};
  const size_t n = static_cast<size_t>(std::ceil(hi - lo)) + 1;
  std::vector<int> cover(n, 0);
  for (const auto& r : rows) {
    if (r.size() < 2) continue;
    for (const Frag& f : r)
      for (size_t x = static_cast<size_t>(f.x0 - lo); x < n && static_cast<float>(x) + lo < f.x1; ++x) ++cover[x];
  }
  // A wide header over two columns or one long cell must not fuse the columns: tolerate a few.
  const int tol = multi >= 6 ? multi / 6 : 0;
  std::vector<std::pair<float, float>> cols;
  size_t x = 0;
  while (x < n) {
    while (x < n && cover[x] <= tol) ++x;
    if (x >= n) break;
    size_t s = x;
    while (x < n) {
      size_t g = x;
      while (g < n && cover[g] <= tol) ++g;
      if (g > x && (g >= n || static_cast<float>(g - x) >= 0.5f * em)) break;  // a gutter (or the end)
      x = g;
      while (x < n && cover[x] > tol) ++x;
    }
    cols.push_back({lo + static_cast<float>(s), lo + static_cast<float>(x)});
  }
  return cols;
}

/// Index of the column a fragment belongs to: the one holding its centre, else the nearest.
size_t column_of(const std::vector<std::pair<float, float>>& cols, float x0, float x1) {
  float c = (x0 + x1) / 2, best = 1e9f;
  size_t k = 0;
  for (size_t i = 0; i < cols.size(); ++i) {
    float d = c < cols[i].first ? cols[i].first - c : c > cols[i].second ? c - cols[i].second : 0;
    if (d < best) best = d, k = i;
  }
  return k;
}

void append_cell(std::string& cell, const std::string& text) {
  if (text.empty()) return;
  if (!cell.empty()) cell += ' ';
  cell += text;
}

/// Drops columns that no row fills, and rows without text.
TableRows compact(TableRows rows) {
  size_t cols = 0;
  for (const auto& r : rows) cols = std::max(cols, r.size());
  std::vector<char> used(cols, 0);
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size(); ++c)
      if (!r[c].empty()) used[c] = 1;
  TableRows out;
  for (const auto& r : rows) {
    std::vector<std::string> row;
    bool any = false;
    for (size_t c = 0; c < cols; ++c) {
      if (!used[c]) continue;
      row.push_back(c < r.size() ? r[c] : std::string());
      any = any || !row.back().empty();
    }
    if (any) out.push_back(std::move(row));
  }
  return out;
}

size_t filled(const std::vector<std::string>& row) {
  return static_cast<size_t>(std::count_if(row.begin(), row.end(), [](const std::string& s) { return !s.empty(); }));
}

/// A table worth keeping: two columns and two rows with at least two cells each.
bool plausible(const TableRows& rows) {
  if (rows.empty() || rows[0].size() < 2 || rows[0].size() > kMaxColumns) return false;
  size_t full = 0;
  for (const auto& r : rows) full += filled(r) >= 2 ? 1 : 0;
  return full >= 2;
}

}  // namespace

TableRows table_cells(const Page& pg, const std::vector<int>& lines, const Rect& box, const std::vector<Rule>& rules) {
  std::vector<Frag> frags;
  for (int li : lines)
    for (Frag& f : fragments(pg, li)) frags.push_back(std::move(f));
  if (frags.empty()) return {};
  std::vector<float> vs = rule_positions(rules, box, /*horizontal=*/false, 0.5f);
  std::vector<float> hs = rule_positions(rules, box, /*horizontal=*/true, 0.5f);
  const bool grid = vs.size() >= 3 && hs.size() >= 3;
  std::vector<Row> rows = baseline_rows(frags);
  float em = 0;
  for (const Row& r : rows) em = std::max(em, r.size);

  // Columns: between vertical rules, else between gutters.
  std::vector<std::pair<float, float>> cols;
  std::vector<std::vector<Frag>> units;  // per baseline row: words (ruled) or phrases (unruled)
  if (vs.size() >= 3) {
    for (size_t i = 0; i + 1 < vs.size(); ++i) cols.push_back({vs[i], vs[i + 1]});
    for (const Row& r : rows) units.push_back(r.frags);
  } else {
    for (const Row& r : rows) units.push_back(phrases(r));
    cols = gutter_columns(units, em);
  }
  if (cols.size() < 2 || cols.size() > kMaxColumns) return {};

  // Cells per baseline row, and the band (between horizontal rules) each row lies in.
  const size_t nc = cols.size();
  TableRows lines_cells(rows.size(), std::vector<std::string>(nc));
  std::vector<size_t> band(rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    for (const Frag& f : units[r]) append_cell(lines_cells[r][column_of(cols, f.x0, f.x1)], f.text);
    float cy = (rows[r].y0 + rows[r].y1) / 2;
    band[r] = static_cast<size_t>(std::upper_bound(hs.begin(), hs.end(), cy) - hs.begin());
  }
  // The key column names a row (the leftmost one filled almost as often as the fullest): a line
  // without it only continues cells of the row above, wrapped onto a second line.
  std::vector<size_t> fill(nc, 0);
  for (const auto& r : lines_cells)
    for (size_t c = 0; c < nc; ++c) fill[c] += r[c].empty() ? 0 : 1;
  const size_t most = *std::max_element(fill.begin(), fill.end());
  size_t key = 0;
  while (key + 1 < nc && 10 * fill[key] < 6 * most) ++key;
  // Lines of a band with at most one key cell are one row in a full grid (a cell of several lines).
  std::vector<size_t> keyed(hs.size() + 1, 0);
  for (size_t r = 0; r < rows.size(); ++r) keyed[band[r]] += lines_cells[r][key].empty() ? 0 : 1;
  TableRows out;
  for (size_t r = 0; r < rows.size(); ++r) {
    std::vector<std::string>& row = lines_cells[r];
    bool same_band = r > 0 && band[r] == band[r - 1];
    bool continues = same_band && (grid ? keyed[band[r]] <= 1
                                        : row[key].empty() && filled(row) <= std::max<size_t>(1, nc / 2) &&
                                              rows[r].base - rows[r - 1].base < 1.6f * em);
    if (continues && !out.empty()) {
      for (size_t c = 0; c < nc; ++c) append_cell(out.back()[c], row[c]);
    } else {
      out.push_back(std::move(row));
    }
  }
  return compact(std::move(out));
}

namespace {

bool center_in(const Rect& r, const Rect& box) {
  float cx = (r.x0 + r.x1) / 2, cy = (r.y0 + r.y1) / 2;
  return cx >= box.x0 && cx <= box.x1 && cy >= box.y0 && cy <= box.y1;
}
Rect rule_box(const Rule& r) {
  return r.horizontal ? Rect{r.lo, r.pos - 0.5f, r.hi, r.pos + 0.5f} : Rect{r.pos - 0.5f, r.lo, r.pos + 0.5f, r.hi};
}
bool touch(const Rect& a, const Rect& b) {
  return a.x0 <= b.x1 + kMerge && b.x0 <= a.x1 + kMerge && a.y0 <= b.y1 + kMerge && b.y0 <= a.y1 + kMerge;
}

/// What the search for tables on one page shares.
struct Finder {
  const Page& pg;
  const std::vector<Rule>& rules;
  const std::vector<Region>& figures;
  std::vector<char> taken;  // per line: a caption, figure text, or already in a table

  Finder(const Page& p, const std::vector<Rule>& r, const std::vector<Region>& f)
      : pg(p), rules(r), figures(f), taken(p.lines.size(), 0) {
    for (size_t i = 0; i < pg.lines.size(); ++i) {
      const Line& l = pg.lines[i];
      if (l.dropped || l.rotated) taken[i] = 1;
      for (const Region& g : figures)
        if (center_in(line_box(l), g.box)) taken[i] = 1;
    }
    for (const Region& g : figures)
      if (g.caption_line >= 0) taken[static_cast<size_t>(g.caption_line)] = 1;
  }

  bool in_figure(const Rect& r) const {
    for (const Region& g : figures) {
      float w = std::min(r.x1, g.box.x1) - std::max(r.x0, g.box.x0);
      float h = std::min(r.y1, g.box.y1) - std::max(r.y0, g.box.y0);
      if (w > 0 && h > 0 && w * h > 0.3f * std::max(1.0f, r.area())) return true;
    }
    return false;
  }

  bool is_caption(size_t i) const { return caption_label(pg.line_text(pg.lines[i])).has_value(); }

  /// Free lines whose centre lies in `box`.
  std::vector<int> lines_in(const Rect& box) const {
    std::vector<int> out;
    for (size_t i = 0; i < pg.lines.size(); ++i)
      if (!taken[i] && center_in(line_box(pg.lines[i]), box)) out.push_back(static_cast<int>(i));
    return out;
  }

  bool emit(TableRegion t, const Rect& box, std::vector<int> lines, std::vector<TableRegion>& out) {
    t.rows = table_cells(pg, lines, box, rules);
    if (!plausible(t.rows)) return false;
    t.box = box;
    for (int i : lines) {
      taken[static_cast<size_t>(i)] = 1;
      t.box.add(line_box(pg.lines[static_cast<size_t>(i)]));
    }
    if (t.caption_line >= 0) taken[static_cast<size_t>(t.caption_line)] = 1;
    t.lines = std::move(lines);
    out.push_back(std::move(t));
    return true;
  }
};

/// Ruled grids: groups of touching rules with at least three horizontal and three vertical
/// borders (2 x 2 cells), most cells holding text.
void ruled_grids(Finder& f, std::vector<TableRegion>& out) {
  std::vector<size_t> idx;
  for (size_t i = 0; i < f.rules.size(); ++i)
    if (f.rules[i].hi - f.rules[i].lo >= kMinRule) idx.push_back(i);
  if (idx.size() > kMaxRules) return;
  std::vector<size_t> parent(idx.size());
  for (size_t i = 0; i < parent.size(); ++i) parent[i] = i;
  auto root = [&](size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (size_t a = 0; a < idx.size(); ++a)
    for (size_t b = a + 1; b < idx.size(); ++b)
      if (touch(rule_box(f.rules[idx[a]]), rule_box(f.rules[idx[b]]))) parent[root(a)] = root(b);
  std::vector<Rect> boxes(idx.size());
  for (size_t i = 0; i < idx.size(); ++i) boxes[root(i)].add(rule_box(f.rules[idx[i]]));
  for (size_t i = 0; i < idx.size(); ++i) {
    if (root(i) != i) continue;
    const Rect& box = boxes[i];
    if (box.w() < 4 * kMinRule || box.h() < 2 * kMinRule || f.in_figure(box)) continue;
    std::vector<float> vs = rule_positions(f.rules, box, false, 0.5f);
    std::vector<float> hs = rule_positions(f.rules, box, true, 0.5f);
    if (vs.size() < 3 || hs.size() < 3) continue;  // a box, a frame, a rule: not a grid
    std::vector<int> lines = f.lines_in(box);
    TableRows probe = table_cells(f.pg, lines, box, f.rules);
    size_t cells = (vs.size() - 1) * (hs.size() - 1), full = 0;
    for (const auto& r : probe) full += filled(r);
    // Most cells hold text: a plot's grid lines or a form's empty boxes do not.
    if (full < 4 || 2 * full < cells) continue;
    f.emit(TableRegion{}, box, std::move(lines), out);
  }
}

/// A line of prose, not a table row: one run of text (no column gaps) of many words, or over
/// most of `width`.
bool prose(const Page& pg, int li, float width) {
  const Line& l = pg.lines[static_cast<size_t>(li)];
  std::vector<Frag> ph = phrases(baseline_rows(fragments(pg, li))[0]);
  if (ph.size() != 1 || pg.line_text(l).size() < 40) return false;
  size_t words = static_cast<size_t>(std::count(ph[0].text.begin(), ph[0].text.end(), ' ')) + 1;
  return words >= 8 || l.x1 - l.x0 > 0.6f * width;
}

/// Rows of free lines walking away from a caption (down when `below`), in the caption's column:
/// the extent of the table. Stops at a gap, a prose line, another caption or a figure.
Rect walk_rows(Finder& f, const Rect& cap, const Rect& column, bool below, float* first_gap) {
  std::vector<int> cand;
  for (size_t i = 0; i < f.pg.lines.size(); ++i) {
    const Line& l = f.pg.lines[i];
    if (l.dropped || l.rotated) continue;
    Rect lb = line_box(l);
    if (!center_in(lb, column)) continue;
    if (below ? lb.y0 < cap.y1 - 1 : lb.y1 > cap.y0 + 1) continue;
    cand.push_back(static_cast<int>(i));
  }
  std::sort(cand.begin(), cand.end(), [&](int a, int b) {
    float ya = f.pg.lines[static_cast<size_t>(a)].base, yb = f.pg.lines[static_cast<size_t>(b)].base;
    return below ? ya < yb : ya > yb;
  });
  Rect box;
  float last = below ? cap.y1 : cap.y0;  // edge of the previous row
  float col_w = column.w();
  size_t k = 0;
  *first_gap = 1e9f;
  while (k < cand.size()) {
    // One baseline row of candidates.
    const Line& l0 = f.pg.lines[static_cast<size_t>(cand[k])];
    float em = std::max(1.0f, l0.size);
    size_t e = k;
    Rect row;
    bool stop = false;
    while (e < cand.size() && std::fabs(f.pg.lines[static_cast<size_t>(cand[e])].base - l0.base) < 0.5f * em) {
      size_t li = static_cast<size_t>(cand[e]);
      if (f.taken[li] || f.is_caption(li)) stop = true;
      row.add(line_box(f.pg.lines[li]));
      ++e;
    }
    float gap = below ? row.y0 - last : last - row.y1;
    if (box.empty()) *first_gap = gap;
    if (stop || gap > (box.empty() ? kTableCaptionGap : 2.5f * em)) break;
    if (e - k == 1 && prose(f.pg, cand[k], col_w)) break;
    box.add(row);
    last = below ? row.y1 : row.y0;
    k = e;
  }
  return box;
}

/// The horizontal rules just below (or above) a caption and the ones after them that the
/// table's rows lie between (booktabs, \hline): the table's extent, or an empty box.
Rect ruled_extent(Finder& f, const Rect& cap, const Rect& column, bool below) {
  std::vector<const Rule*> hs;
  for (const Rule& r : f.rules) {
    if (!r.horizontal || r.hi - r.lo < 4 * kMinRule) continue;
    if (std::min(r.hi, column.x1) - std::max(r.lo, column.x0) < 0.5f * (r.hi - r.lo)) continue;
    if (below ? r.pos < cap.y1 - 1 : r.pos > cap.y0 + 1) continue;
    hs.push_back(&r);
  }
  std::sort(hs.begin(), hs.end(), [&](const Rule* a, const Rule* b) { return below ? a->pos < b->pos : a->pos > b->pos; });
  if (hs.empty() || std::fabs(hs[0]->pos - (below ? cap.y1 : cap.y0)) > kTableCaptionGap) return {};
  Rect box = rule_box(*hs[0]);
  for (size_t i = 1; i < hs.size(); ++i) {
    const Rule& r = *hs[i];
    float overlap = std::min(r.hi, box.x1) - std::max(r.lo, box.x0);
    if (overlap < 0.8f * std::min(box.w(), r.hi - r.lo)) break;
    // Between two rules of one table there are only table rows: no prose, no caption.
    Rect band{box.x0, below ? box.y1 : r.pos, box.x1, below ? r.pos : box.y0};
    bool blocked = false;
    for (int li : f.lines_in(band)) {
      const Line& l = f.pg.lines[static_cast<size_t>(li)];
      if (f.is_caption(static_cast<size_t>(li))) blocked = true;
      if (l.x1 - l.x0 > 0.8f * box.w() && prose(f.pg, li, box.w())) blocked = true;
    }
    if (blocked) break;
    box.add(rule_box(r));
  }
  return box.h() > kMinRule ? box : Rect{};
}

/// The column of a caption: the whole page, or its half when the caption sits in one half of a
/// two-column page (prose in the other half beside it). A short caption at the left margin of a
/// one-column page is not in a column: the table may be wider than its caption.
Rect caption_column(const Finder& f, const Rect& cap) {
  const Page& pg = f.pg;
  const float page_w = std::max(1.0f, pg.x1 - pg.x0), mid = (pg.x0 + pg.x1) / 2;
  Rect column{pg.x0, pg.y0, pg.x1, pg.y1};
  bool left = cap.x1 <= mid + 10, right = cap.x0 >= mid - 10;
  if (cap.w() >= 0.5f * page_w || (!left && !right)) return column;
  for (size_t j = 0; j < pg.lines.size(); ++j) {
    const Line& o = pg.lines[j];
    if (o.dropped || std::fabs(o.y0 - cap.y0) > 150) continue;
    bool other = left ? o.x0 >= mid - 10 : o.x1 <= mid + 10;
    if (other && prose(pg, static_cast<int>(j), 0.5f * page_w)) {
      (left ? column.x1 : column.x0) = mid;
      break;
    }
  }
  return column;
}

/// The caption's lines: its first line, the rest of its row ("Table 1:" then a gap, then the
/// text) and, when the first line is full (the caption wraps), the single-run lines just below.
Rect caption_extent(const Finder& f, size_t first, const Rect& column) {
  const Page& pg = f.pg;
  const Line& l = pg.lines[first];
  Rect cap = line_box(l);
  float em = std::max(1.0f, l.size);
  for (size_t j = 0; j < pg.lines.size(); ++j) {
    const Line& o = pg.lines[j];
    if (!f.taken[j] && j != first && std::fabs(o.base - l.base) < 0.3f * em && o.x0 >= l.x1 && o.x0 - cap.x1 < 3 * em)
      cap.add(line_box(o));
  }
  if (cap.w() < 0.6f * column.w()) return cap;
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t j = 0; j < pg.lines.size(); ++j) {
      const Line& o = pg.lines[j];
      Rect ob = line_box(o);
      if (f.taken[j] || f.is_caption(j) || !center_in(ob, column) || ob.y0 < cap.y1 - 1 || ob.y0 > cap.y1 + 0.6f * em) continue;
      if (phrases(baseline_rows(fragments(pg, static_cast<int>(j)))[0]).size() != 1) continue;
      cap.add(ob);
      grew = true;
    }
  }
  return cap;
}

/// Rules on one line that touch joined into one: LaTeX draws a vertical rule row by row, and
/// strokes are often drawn in pieces.
std::vector<Rule> merge_collinear(std::vector<Rule> rules) {
  std::sort(rules.begin(), rules.end(), [](const Rule& a, const Rule& b) {
    if (a.horizontal != b.horizontal) return a.horizontal;
    return a.pos < b.pos;
  });
  std::vector<Rule> out;
  for (size_t s = 0; s < rules.size();) {
    size_t e = s + 1;  // one line: same direction, positions within a point of the first
    while (e < rules.size() && rules[e].horizontal == rules[s].horizontal && rules[e].pos - rules[s].pos <= 1) ++e;
    std::sort(rules.begin() + static_cast<long>(s), rules.begin() + static_cast<long>(e),
              [](const Rule& a, const Rule& b) { return a.lo < b.lo; });
    for (size_t i = s; i < e; ++i) {
      if (i > s && rules[i].lo <= out.back().hi + kMerge) out.back().hi = std::max(out.back().hi, rules[i].hi);
      else out.push_back(rules[i]);
    }
    s = e;
  }
  return out;
}

/// Captioned tables: for each "Table N" caption not taken by a figure, the rows on the side
/// where they start closer to the caption.
void captioned_tables(Finder& f, std::vector<TableRegion>& out) {
  const Page& pg = f.pg;
  for (size_t i = 0; i < pg.lines.size(); ++i) {
    if (f.taken[i]) continue;
    auto lab = caption_label(pg.line_text(pg.lines[i]));
    if (!lab || !lab->table) continue;
    Rect cap = line_box(pg.lines[i]);
    Rect column = caption_column(f, cap);
    cap = caption_extent(f, i, column);
    TableRegion best;
    Rect best_box;
    std::vector<int> best_lines;
    float best_gap = 1e9f;
    for (bool below : {true, false}) {
      Rect box = ruled_extent(f, cap, column, below);
      float gap = box.empty() ? 1e9f : (below ? box.y0 - cap.y1 : cap.y0 - box.y1);
      if (box.empty()) box = walk_rows(f, cap, column, below, &gap);
      if (box.empty() || gap >= best_gap) continue;
      TableRegion t;
      t.caption_line = static_cast<int>(i);
      t.label = lab->label();
      t.caption_above = below;
      std::vector<int> lines = f.lines_in(box);
      if (!plausible(table_cells(pg, lines, box, f.rules))) continue;
      best = std::move(t);
      best_box = box;
      best_lines = std::move(lines);
      best_gap = gap;
    }
    if (best.caption_line >= 0) f.emit(std::move(best), best_box, std::move(best_lines), out);
  }
}

}  // namespace

std::vector<TableRegion> detect_tables(const Page& page, const std::vector<Rule>& raw, const std::vector<Region>& figures) {
  std::vector<TableRegion> out;
  if (page.lines.empty()) return out;
  const std::vector<Rule> rules = merge_collinear(raw);
  Finder f(page, rules, figures);
  captioned_tables(f, out);
  ruled_grids(f, out);
  // A grid right under (or over) a caption the caption search missed keeps no label: fine.
  std::sort(out.begin(), out.end(), [](const TableRegion& a, const TableRegion& b) { return a.box.y0 < b.box.y0; });
  return out;
}

}  // namespace mmkg::pdf
