// Tables as figures: GFM rendering, pipe-table parsing, Table blocks turned into table figures.
#include "ingest/tables.h"

#include <gtest/gtest.h>

namespace mmkg {
namespace {

TEST(TablesTest, MarkdownTableHasHeaderDelimiterAndEscapedCells) {
  EXPECT_EQ(markdown_table({{"Model", "BLEU"}, {"a|b", "27.3"}, {"Big\nmodel"}}),
            "| Model | BLEU |\n|---|---|\n| a\\|b | 27.3 |\n| Big model | |");
  EXPECT_EQ(markdown_table({}), "");
  EXPECT_EQ(markdown_table({{"", " "}}), "");
}

TEST(TablesTest, PipeRowsSkipTheDelimiterAndUnescape) {
  TableRows rows = pipe_table_rows("| Model | BLEU |\n|:--|--:|\n| a\\|b | 27.3 |\nBig | 28.4\n");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"Model", "BLEU"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"a|b", "27.3"}));
  EXPECT_EQ(rows[2], (std::vector<std::string>{"Big", "28.4"}));
  EXPECT_EQ(markdown_table(rows), "| Model | BLEU |\n|---|---|\n| a\\|b | 27.3 |\n| Big | 28.4 |");
}

ParsedDocument doc_of(std::vector<Block> blocks) {
  ParsedDocument d;
  d.blocks = std::move(blocks);
  return d;
}

TEST(TablesTest, TableBlocksBecomeTableFiguresWithTheirCaption) {
  ParsedDocument d = doc_of({{BlockKind::Paragraph, 0, "Intro.", 0},
                             {BlockKind::Paragraph, 0, "Table 1: Scores of the models.", 0},
                             {BlockKind::Table, 0, "| Model | BLEU |\n|---|---|\n| Base | 27.3 |", 0},
                             {BlockKind::Paragraph, 0, "After.", 0}});
  Figure img;
  img.source = "file";
  img.block = 3;  // before "After."
  d.figures.push_back(img);
  tables_from_blocks(d);
  ASSERT_EQ(d.blocks.size(), 3u);  // the table block left the body; its caption stays
  EXPECT_EQ(d.blocks[1].text, "Table 1: Scores of the models.");
  ASSERT_EQ(d.figures.size(), 2u);
  const Figure& t = d.figures[0];  // the table comes first: the image was after it
  EXPECT_TRUE(t.table);
  EXPECT_EQ(t.source, "table");
  EXPECT_EQ(t.caption, "Table 1: Scores of the models.");
  EXPECT_EQ(t.table_markdown, "| Model | BLEU |\n|---|---|\n| Base | 27.3 |");
  EXPECT_EQ(t.block, 2u);
  EXPECT_EQ(d.figures[1].source, "file");
  EXPECT_EQ(d.figures[1].block, 2u);  // shifted with the blocks
}

TEST(TablesTest, CaptionAfterTheTableAndUncaptionedTables) {
  ParsedDocument d = doc_of({{BlockKind::Table, 0, "| a | b |\n|---|---|\n| 1 | 2 |", 0},
                             {BlockKind::Paragraph, 0, "Table 2: Below.", 0},
                             {BlockKind::Paragraph, 0, "Text.", 0},
                             {BlockKind::Table, 0, "| c | d |\n|---|---|\n| 3 | 4 |", 0}});
  tables_from_blocks(d);
  ASSERT_EQ(d.figures.size(), 2u);
  EXPECT_EQ(d.figures[0].caption, "Table 2: Below.");
  EXPECT_EQ(d.figures[1].caption, "");
  EXPECT_EQ(d.figures[1].block, 2u);  // at the end
  EXPECT_EQ(d.blocks.size(), 2u);
}

}  // namespace
}  // namespace mmkg
