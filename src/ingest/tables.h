// Tables as figures: the rows of a table written as a GitHub-flavoured Markdown table, and the
// Table blocks of Markdown/HTML/EPUB documents turned into table `Figure`s (source "table") so
// that each table gets a chunk of its own (caption + rows) and a Table node in the graph.
// PDF tables come from pdf_tables.h and use `markdown_table` too.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/types.h"

namespace mmkg {

using TableRows = std::vector<std::vector<std::string>>;

/// A GFM table: the first row is the header, then "|---|", then the other rows; rows are padded
/// to the widest row, '|' in cells is escaped, newlines inside cells become spaces. Empty when
/// `rows` has no cell with text.
std::string markdown_table(const TableRows& rows);

/// The cells of a GFM pipe table ("| a | b |\n|---|---|\n| 1 | 2 |"): the delimiter row is
/// left out, "\|" is unescaped, surrounding pipes are optional.
TableRows pipe_table_rows(std::string_view text);

/// Turns each Table block of `doc` (a GFM pipe table, as the Markdown and HTML parsers write
/// them) into a table Figure at the block's place and removes the block: the rows then live in
/// the table's own chunk instead of twice in the index. The caption is a Caption block or a
/// "Table N" paragraph right before or after the table (it stays in the body, like figure
/// captions). Figures already in `doc` keep their places (their block indices are shifted).
void tables_from_blocks(ParsedDocument& doc);

}  // namespace mmkg
