#include "ingest/tables.h"

#include <algorithm>

#include "text/captions.h"

namespace mmkg {

namespace {

/// One cell for a GFM row: whitespace runs (newlines too) collapsed, '|' escaped.
std::string cell_text(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

void trim(std::string_view& s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
}

bool delimiter_row(std::string_view line) {
  bool dash = false;
  for (char c : line) {
    if (c == '-') dash = true;
    else if (c != '|' && c != ':' && c != ' ' && c != '\t') return false;
  }
  return dash;
}

/// Splits one pipe-table line at unescaped pipes; a leading and a trailing pipe are optional.
std::vector<std::string> split_row(std::string_view line) {
  trim(line);
  if (!line.empty() && line.front() == '|') line.remove_prefix(1);
  if (!line.empty() && line.back() == '|' && !(line.size() >= 2 && line[line.size() - 2] == '\\')) line.remove_suffix(1);
  std::vector<std::string> cells;
  std::string cur;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cur += '|';
      ++i;
    } else if (line[i] == '|') {
      std::string_view v(cur);
      trim(v);
      cells.emplace_back(v);
      cur.clear();
    } else {
      cur += line[i];
    }
  }
  std::string_view v(cur);
  trim(v);
  cells.emplace_back(v);
  return cells;
}

/// The caption of the table at block `i`: a Caption block or a "Table N" paragraph just before
/// it, else just after it, not taken by another table; -1 when none.
long caption_block(const std::vector<Block>& blocks, size_t i, const std::vector<char>& used) {
  auto is_caption = [&](size_t k) {
    const Block& b = blocks[k];
    if (used[k]) return false;
    if (b.kind == BlockKind::Caption) return true;
    if (b.kind != BlockKind::Paragraph) return false;
    auto lab = caption_label(b.text);
    return lab && lab->table;
  };
  if (i > 0 && is_caption(i - 1)) return static_cast<long>(i - 1);
  if (i + 1 < blocks.size() && is_caption(i + 1)) return static_cast<long>(i + 1);
  return -1;
}

}  // namespace

std::string markdown_table(const TableRows& rows) {
  size_t cols = 0;
  bool any = false;
  for (const auto& r : rows) {
    cols = std::max(cols, r.size());
    for (const auto& c : r) any = any || !cell_text(c).empty();
  }
  if (!any || cols == 0) return {};
  std::string out;
  auto row = [&](const std::vector<std::string>* r) {
    out += '|';
    for (size_t c = 0; c < cols; ++c) {
      std::string t = r && c < r->size() ? cell_text((*r)[c]) : std::string();
      out += ' ';
      out += t;
      out += t.empty() ? "|" : " |";
    }
    out += '\n';
  };
  row(&rows[0]);
  out += '|';
  for (size_t c = 0; c < cols; ++c) out += "---|";
  out += '\n';
  for (size_t i = 1; i < rows.size(); ++i) row(&rows[i]);
  out.pop_back();
  return out;
}

TableRows pipe_table_rows(std::string_view text) {
  TableRows rows;
  size_t pos = 0;
  bool seen_delimiter = false;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    std::string_view t = line;
    trim(t);
    if (t.empty()) continue;
    // The first delimiter row after the header is markup; later ones would be content.
    if (!seen_delimiter && rows.size() == 1 && delimiter_row(t)) {
      seen_delimiter = true;
      continue;
    }
    rows.push_back(split_row(t));
  }
  return rows;
}

void tables_from_blocks(ParsedDocument& doc) {
  std::vector<Block> kept;
  std::vector<Figure> tables;
  std::vector<double> table_at;  // old position of each table, to order it among the figures
  std::vector<size_t> new_index(doc.blocks.size() + 1, 0);  // old block index -> new one
  std::vector<char> caption_used(doc.blocks.size(), 0);
  for (size_t i = 0; i < doc.blocks.size(); ++i) {
    new_index[i] = kept.size();
    const Block& b = doc.blocks[i];
    std::string md = b.kind == BlockKind::Table ? markdown_table(pipe_table_rows(b.text)) : std::string();
    if (md.empty()) {
      kept.push_back(b);
      continue;
    }
    Figure f;
    f.table = true;
    f.source = "table";
    f.page = b.page;
    f.table_markdown = std::move(md);
    long cap = caption_block(doc.blocks, i, caption_used);
    if (cap >= 0) {
      caption_used[static_cast<size_t>(cap)] = 1;
      f.caption = doc.blocks[static_cast<size_t>(cap)].text;
    }
    f.block = kept.size();  // the table's place: before the block that follows it
    tables.push_back(std::move(f));
    table_at.push_back(static_cast<double>(i));
  }
  if (tables.empty()) return;
  new_index[doc.blocks.size()] = kept.size();
  // Reading order by old positions: a figure placed before block k sits at k - 0.5, the table
  // that was block i at i.
  std::vector<std::pair<double, Figure>> all;
  for (Figure& f : doc.figures) {
    double at = static_cast<double>(f.block) - 0.5;
    f.block = new_index[std::min(f.block, doc.blocks.size())];
    all.emplace_back(at, std::move(f));
  }
  for (size_t k = 0; k < tables.size(); ++k) all.emplace_back(table_at[k], std::move(tables[k]));
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  doc.blocks = std::move(kept);
  doc.figures.clear();
  for (auto& [at, f] : all) doc.figures.push_back(std::move(f));
}

}  // namespace mmkg
