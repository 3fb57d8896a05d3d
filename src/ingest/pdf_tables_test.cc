// PDF tables from text lines, words and rules (pure: pages built by hand), and end to end from
// fixture PDFs through the parser.
#include "ingest/pdf_tables.h"

#include <gtest/gtest.h>

#include <sstream>

#include "ingest/parser.h"
#include "support/pdf_fixtures.h"

namespace mmkg::pdf {
namespace {

constexpr float kSize = 10;

/// Adds one line at (x, baseline) with its words, 5 pt per character (spaces collapsed).
void add_line(Page& pg, float x, float base, const std::string& text, float size = kSize) {
  Line l;
  l.text_off = static_cast<uint32_t>(pg.text.size());
  pg.text += text;
  l.text_len = static_cast<uint32_t>(text.size());
  l.nchars = static_cast<uint32_t>(text.size());
  l.x0 = x;
  l.base = base;
  l.y0 = base - 0.8f * size;
  l.y1 = base + 0.2f * size;
  l.size = size;
  l.word_off = static_cast<uint32_t>(pg.words.size());
  float cx = x;
  bool in = false;
  for (char c : text) {
    if (c == ' ') {
      in = false;
    } else {
      if (!in) pg.words.push_back({cx, cx});
      in = true;
      pg.words.back().x1 = cx + 5;
    }
    cx += 5;
  }
  l.x1 = cx;
  l.word_count = static_cast<uint32_t>(pg.words.size() - l.word_off);
  pg.lines.push_back(l);
}

/// Adds one line per cell on the baseline `base`: (x, text) pairs.
void add_row(Page& pg, float base, const std::vector<std::pair<float, std::string>>& cells) {
  for (const auto& [x, text] : cells) add_line(pg, x, base, text);
}

Page page() {
  Page pg;
  pg.number = 1;
  pg.x1 = 612;
  pg.y1 = 792;
  return pg;
}

/// A full grid: rows at y = top + k * h, columns at the given x positions.
std::vector<Rule> grid(float top, float h, int nrows, const std::vector<float>& xs) {
  std::vector<Rule> rules;
  for (int k = 0; k <= nrows; ++k) rules.push_back({true, top + k * h, xs.front(), xs.back()});
  for (float x : xs) rules.push_back({false, x, top, top + nrows * h});
  return rules;
}

TEST(PdfTables, RuledGridBecomesRowsAndColumns) {
  Page pg = page();
  add_line(pg, 72, 100, "Some prose above the table that is long enough to be a paragraph of text.");
  // Cells that the line splitter left in one line ("Model 27.3") still split at the rules.
  add_row(pg, 134, {{105, "Model                BLEU"}, {260, "Cost"}});  // BLEU starts at x = 210
  add_row(pg, 154, {{105, "Base"}, {205, "27.3"}, {260, "1 day"}});
  add_row(pg, 174, {{105, "Big model"}, {205, "28.4"}, {260, "3.5 days"}});
  auto rules = grid(120, 20, 3, {100, 200, 250, 350});
  auto tables = detect_tables(pg, rules, {});
  ASSERT_EQ(tables.size(), 1u);
  const TableRegion& t = tables[0];
  EXPECT_EQ(t.caption_line, -1);
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0], (std::vector<std::string>{"Model", "BLEU", "Cost"}));
  EXPECT_EQ(t.rows[2], (std::vector<std::string>{"Big model", "28.4", "3.5 days"}));
  EXPECT_EQ(t.lines.size(), 8u);  // the prose line is not part of it
}

TEST(PdfTables, VerticalRulesDrawnRowByRowStillMakeAGrid) {
  // LaTeX draws a table's vertical rules one row at a time.
  Page pg = page();
  add_row(pg, 134, {{105, "k"}, {205, "v"}});
  add_row(pg, 154, {{105, "x"}, {205, "1"}});
  std::vector<Rule> rules;
  for (int k = 0; k <= 2; ++k) rules.push_back({true, 120.0f + 20 * k, 100, 300});
  for (float x : {100.0f, 200.0f, 300.0f})
    for (int k = 0; k < 2; ++k) rules.push_back({false, x, 120.0f + 20 * k, 140.0f + 20 * k});
  auto tables = detect_tables(pg, rules, {});
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(markdown_table(tables[0].rows), "| k | v |\n|---|---|\n| x | 1 |");
}

TEST(PdfTables, MultiLineCellsInAGridJoin) {
  Page pg = page();
  add_row(pg, 134, {{105, "Name"}, {205, "Notes"}});
  add_line(pg, 105, 160, "alpha");
  add_line(pg, 205, 156, "first line");
  add_line(pg, 205, 168, "second line");
  add_row(pg, 190, {{105, "beta"}, {205, "short"}});
  auto tables = detect_tables(pg, grid(120, 26, 3, {100, 200, 320}), {});
  ASSERT_EQ(tables.size(), 1u);
  ASSERT_EQ(tables[0].rows.size(), 3u);
  EXPECT_EQ(tables[0].rows[1], (std::vector<std::string>{"alpha", "first line second line"}));
}

TEST(PdfTables, BoxesFramesAndEmptyGridsAreNotTables) {
  Page pg = page();
  add_line(pg, 105, 134, "int main() { return 0; }");
  add_line(pg, 105, 146, "// a code listing in a box");
  // A box (code background) and a single rule.
  std::vector<Rule> rules = grid(120, 40, 1, {100, 400});
  rules.push_back({true, 300, 72, 540});
  EXPECT_TRUE(detect_tables(pg, rules, {}).empty());
  // A grid whose cells are empty (a plot's grid lines, a form).
  Page empty = page();
  add_line(empty, 105, 134, "label");
  EXPECT_TRUE(detect_tables(empty, grid(120, 20, 4, {100, 150, 200, 250, 300}), {}).empty());
  // A grid inside a figure region belongs to the figure.
  Page fig = page();
  add_row(fig, 134, {{105, "a"}, {205, "b"}});
  add_row(fig, 154, {{105, "c"}, {205, "d"}});
  Region r;
  r.box = {90, 110, 320, 170};
  EXPECT_TRUE(detect_tables(fig, grid(120, 20, 2, {100, 200, 300}), {r}).empty());
}

TEST(PdfTables, CaptionedAlignedColumnsWithoutRules) {
  Page pg = page();
  add_line(pg, 72, 100, "Table 2: Estimates of the wombat model.");
  // The last column lies beyond the middle of the page, right of the short caption.
  add_row(pg, 120, {{160, "Estimate"}, {340, "Std. Error"}});
  add_row(pg, 134, {{72, "(Intercept)"}, {165, "1.234"}, {345, "0.100"}});
  add_row(pg, 148, {{72, "height"}, {165, "-0.567"}, {345, "0.050"}});
  add_row(pg, 162, {{72, "age"}, {165, "2.000"}, {345, "0.300"}});
  add_line(pg, 72, 200, "The estimates show that height matters less than age in this particular model fit.");
  auto tables = detect_tables(pg, {}, {});
  ASSERT_EQ(tables.size(), 1u);
  const TableRegion& t = tables[0];
  EXPECT_EQ(t.caption_line, 0);
  EXPECT_EQ(t.label, "Table 2");
  EXPECT_TRUE(t.caption_above);
  ASSERT_EQ(t.rows.size(), 4u);
  EXPECT_EQ(t.rows[0], (std::vector<std::string>{"", "Estimate", "Std. Error"}));
  EXPECT_EQ(t.rows[2], (std::vector<std::string>{"height", "-0.567", "0.050"}));
  EXPECT_EQ(markdown_table(t.rows),
            "| | Estimate | Std. Error |\n|---|---|---|\n| (Intercept) | 1.234 | 0.100 |\n| height | -0.567 | 0.050 |\n"
            "| age | 2.000 | 0.300 |");
}

TEST(PdfTables, TwoColumnPageKeepsTheTableInItsColumn) {
  Page pg = page();
  add_line(pg, 40, 100, "Table 1: Left.");
  add_row(pg, 120, {{40, "a"}, {150, "b"}});
  add_row(pg, 134, {{40, "c"}, {150, "d"}});
  // The right column's prose, beside the table.
  for (int k = 0; k < 4; ++k) add_line(pg, 320, 100 + 14 * k, "prose words of the other column go on here");
  auto tables = detect_tables(pg, {}, {});
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(markdown_table(tables[0].rows), "| a | b |\n|---|---|\n| c | d |");
}

TEST(PdfTables, WrappedCellsJoinTheRowTheyContinue) {
  // A sparse group column, a name column that names each row, a description that wraps.
  Page pg = page();
  add_line(pg, 72, 100, "Table 4: Functions.");
  add_row(pg, 120, {{72, "Group"}, {150, "Function"}, {300, "Description"}});
  add_row(pg, 134, {{72, "core"}, {150, "mosaic()"}, {300, "mosaic plots"}});
  add_row(pg, 146, {{150, "sieve()"}, {300, "sieve plots, all labels clipped,"}});
  add_row(pg, 158, {{300, "and on top"}});
  add_row(pg, 170, {{150, "assoc()"}, {300, "association plots"}});
  auto tables = detect_tables(pg, {}, {});
  ASSERT_EQ(tables.size(), 1u);
  ASSERT_EQ(tables[0].rows.size(), 4u);
  EXPECT_EQ(tables[0].rows[2], (std::vector<std::string>{"", "sieve()", "sieve plots, all labels clipped, and on top"}));
}

TEST(PdfTables, CaptionBelowWithBooktabsRules) {
  Page pg = page();
  add_line(pg, 72, 80, "A paragraph before the table, long enough to read as prose in the column.");
  add_row(pg, 112, {{100, "Method"}, {200, "Accuracy"}});
  add_row(pg, 130, {{100, "kangaroo"}, {200, "0.91"}});
  add_row(pg, 144, {{100, "emu"}, {200, "0.87"}});
  add_line(pg, 100, 172, "Table 1: Accuracy by method.");
  std::vector<Rule> rules = {{true, 100, 95, 300}, {true, 117, 95, 300}, {true, 150, 95, 300}};
  auto tables = detect_tables(pg, rules, {});
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_FALSE(tables[0].caption_above);
  ASSERT_EQ(tables[0].rows.size(), 3u);
  EXPECT_EQ(tables[0].rows[1], (std::vector<std::string>{"kangaroo", "0.91"}));
}

TEST(PdfTables, CaptionFollowedByProseIsNoTable) {
  Page pg = page();
  add_line(pg, 72, 100, "Table 3: Something.");
  add_line(pg, 72, 114, "This paragraph follows the caption and it is plainly prose, not the rows of a table.");
  add_line(pg, 72, 128, "It goes on for a second line of the same paragraph without any columns at all here.");
  EXPECT_TRUE(detect_tables(pg, {}, {}).empty());
}

TEST(PdfTables, LinesWithoutWordsAreWholeCells) {
  Page pg = page();
  add_row(pg, 134, {{105, "a b"}, {205, "c"}});
  add_row(pg, 154, {{105, "d"}, {205, "e"}});
  for (Line& l : pg.lines) l.word_count = 0;
  auto rows = table_cells(pg, {0, 1, 2, 3}, {100, 120, 300, 160}, grid(120, 20, 2, {100, 200, 300}));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"a b", "c"}));
}

// ---- through the parser: fixture PDFs ----

ParsedDocument parse_pdf(const std::string& bytes) {
  ParseContext ctx;
  return make_pdf_parser()->parse("t.pdf", bytes, ctx);
}

TEST(PdfTables, ParserMakesTableFiguresAndTakesTheCellsOutOfTheBody) {
  pdf_fixture::PageSpec p;
  p.runs.push_back({72, 80, 11, "The results of the quokka study are in Table 1 below, per site."});
  p.runs.push_back({72, 110, 10, "Table 1: Quokka counts per site."});
  // A ruled grid: 3 rows x 3 columns, top at 120 (from the page top), rows 20 pt high.
  std::ostringstream g;
  g << "q 0.5 w 0 0 0 RG\n";
  for (int k = 0; k <= 3; ++k) g << 100 << ' ' << 792 - (120 + 20 * k) << " m " << 400 << ' ' << 792 - (120 + 20 * k) << " l S\n";
  for (float x : {100.0f, 200.0f, 300.0f, 400.0f}) g << x << ' ' << 792 - 120 << " m " << x << ' ' << 792 - 180 << " l S\n";
  g << "Q\n";
  p.extra = g.str();
  const char* cells[3][3] = {{"Site", "Count", "Year"}, {"Rottnest", "12000", "2019"}, {"Bald Island", "850", "2020"}};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) p.runs.push_back({105.0f + 100 * c, 134.0f + 20 * r, 10, cells[r][c]});
  p.runs.push_back({72, 220, 11, "After the table the text goes on about the quokka study and its sites."});
  ParsedDocument d = parse_pdf(pdf_fixture::write_pdf({p}));
  ASSERT_EQ(d.figures.size(), 1u);
  const Figure& f = d.figures[0];
  EXPECT_TRUE(f.table);
  EXPECT_EQ(f.source, "table");
  EXPECT_EQ(f.label, "Table 1");
  EXPECT_EQ(f.caption, "Table 1: Quokka counts per site.");
  EXPECT_TRUE(f.png.empty());
  EXPECT_EQ(f.table_markdown,
            "| Site | Count | Year |\n|---|---|---|\n| Rottnest | 12000 | 2019 |\n| Bald Island | 850 | 2020 |");
  for (const Block& b : d.blocks) EXPECT_EQ(b.text.find("Rottnest"), std::string::npos) << b.text;
  // The table follows its caption in reading order.
  ASSERT_LT(f.block, d.blocks.size());
  EXPECT_EQ(d.blocks[f.block - 1].text, "Table 1: Quokka counts per site.");
}

}  // namespace
}  // namespace mmkg::pdf
