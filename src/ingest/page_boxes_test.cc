// Page boxes: the PDF parser's block boxes (inside the page, around their lines, in reading
// order), the chunker's chunk boxes (the blocks a chunk covers, merged per column, not part of
// the chunk id), and PDF page rendering with a highlight (pdf_render.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/hash.h"
#include "ingest/chunker.h"
#include "ingest/pdf_render.h"
#include "support/image_fixtures.h"
#include "support/pdf_fixtures.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

using namespace pdf_fixture;

// Page 1: a bold heading, a paragraph, another paragraph lower down. Page 2: one paragraph.
std::string two_page_pdf() {
  PageSpec p1;
  p1.runs.push_back({72, 80, 18, "Quokka Habitat", true});
  add_lines(p1, 72, 120, 11, 14,
            {"The quokka lives on Rottnest Island off the coast of Western Australia",
             "where it shelters in dense scrub during the hottest hours of the day",
             "and comes out at dusk to feed on grasses, leaves and stems."});
  add_lines(p1, 72, 300, 11, 14,
            {"Its population on the mainland is small and scattered across swamps",
             "in the south west, where foxes and cats are its main predators."});
  PageSpec p2;
  add_lines(p2, 90, 400, 11, 14,
            {"On the second page the quokka drinks little water because it gets",
             "most of what it needs from the plants that it eats every night."});
  return write_pdf({p1, p2});
}

bool inside_page(const Block& b) {
  return b.x0 >= 0 && b.y0 >= 0 && b.x1 <= 612 && b.y1 <= 792 && b.x0 < b.x1 && b.y0 < b.y1;
}

TEST(PageBoxes, PdfBlocksHaveBoxesAroundTheirLinesInReadingOrder) {
  ParsedDocument d = parse(two_page_pdf());
  ASSERT_EQ(d.blocks.size(), 4u) << dump(d);
  for (const Block& b : d.blocks) EXPECT_TRUE(inside_page(b)) << b.text << " " << b.x0 << "," << b.y0;
  const Block* head = find_block(d, "Quokka Habitat");
  const Block* first = find_block(d, "Rottnest Island");
  const Block* second = find_block(d, "mainland");
  const Block* third = find_block(d, "second page");
  ASSERT_TRUE(head && first && second && third) << dump(d);
  // Around the runs: baselines at y 120..148, text from x 72; ascenders above, descenders below.
  EXPECT_NEAR(first->x0, 72, 1.5);
  EXPECT_GT(first->x1, 300);
  EXPECT_LT(first->y0, 120);
  EXPECT_GT(first->y0, 120 - 14);
  EXPECT_GT(first->y1, 148);
  EXPECT_LT(first->y1, 148 + 8);
  EXPECT_NEAR(third->x0, 90, 1.5);
  EXPECT_EQ(third->page, 2);
  // Reading order on a page is top to bottom here: the boxes follow it.
  EXPECT_LT(head->y1, first->y0 + 1);
  EXPECT_LT(first->y1, second->y0);
}

TEST(PageBoxes, OtherFormatsHaveNoBoxes) {
  ParsedDocument d;
  d.format = "markdown";
  d.blocks.push_back(Block{BlockKind::Paragraph, 0, "Plain text without pages.", 0});
  RenderedDocument r = render_document(d);
  auto chunks = chunk_document(d, r, "doc");
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_TRUE(chunks[0].boxes.empty());
}

TEST(PageBoxes, ChunkBoxesCoverTheChunksBlocksAndLeaveIdsAlone) {
  ParsedDocument d = parse(two_page_pdf());
  RenderedDocument r = render_document(d);
  ChunkerOptions opt;
  opt.target_chars = 200;  // several chunks, some cutting a block
  opt.min_chars = 50;
  auto chunks = chunk_document(d, r, "doc", opt);
  ASSERT_GE(chunks.size(), 3u);
  bool on_page_two = false;
  for (const Chunk& c : chunks) {
    // The id is the document and the offsets, nothing else.
    EXPECT_EQ(c.id, hash_hex("doc:" + std::to_string(c.start) + ":" + std::to_string(c.end)));
    ASSERT_FALSE(c.boxes.empty()) << c.text;
    for (const PageBox& b : c.boxes) {
      EXPECT_GE(b.page, c.page_start);
      EXPECT_LE(b.page, c.page_end);
      EXPECT_LT(b.x0, b.x1);
      EXPECT_LT(b.y0, b.y1);
      EXPECT_EQ(b.x0, std::floor(b.x0)) << "whole points";
    }
    if (c.page_start == 2) {
      on_page_two = true;
      EXPECT_EQ(c.boxes[0].page, 2);
    }
    // Every block the chunk's text comes from lies inside one of its boxes (a chunk that covers
    // part of a block still gets the block's whole box).
    for (const auto& sp : r.spans) {
      if (sp.end <= static_cast<size_t>(c.start) || sp.start >= static_cast<size_t>(c.end)) continue;
      const Block& b = d.blocks[sp.block];
      bool covered = false;
      for (const PageBox& x : c.boxes)
        covered = covered || (x.page == b.page && x.x0 <= b.x0 && x.y0 <= b.y0 && x.x1 >= b.x1 && x.y1 >= b.y1);
      EXPECT_TRUE(covered) << b.text;
    }
  }
  EXPECT_TRUE(on_page_two);
}

TEST(PageBoxes, AdjacentBlocksOfOneColumnMergeOthersDoNot) {
  ParsedDocument d;
  d.format = "pdf";
  auto blk = [](int page, float x0, float y0, float x1, float y1, const char* t) {
    Block b{BlockKind::Paragraph, 0, t, page};
    b.x0 = x0, b.y0 = y0, b.x1 = x1, b.y1 = y1;
    return b;
  };
  d.blocks.push_back(blk(1, 72.4f, 100.2f, 300.6f, 140.1f, "First paragraph of the left column."));
  d.blocks.push_back(blk(1, 72.4f, 146.0f, 290.0f, 180.0f, "Second paragraph just below it."));
  d.blocks.push_back(blk(1, 320.0f, 100.0f, 540.0f, 160.0f, "A paragraph of the right column."));
  d.blocks.push_back(blk(2, 72.0f, 90.0f, 300.0f, 120.0f, "Continued on the next page."));
  RenderedDocument r = render_document(d);
  auto chunks = chunk_document(d, r, "doc");
  ASSERT_EQ(chunks.size(), 1u);
  const auto& b = chunks[0].boxes;
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0], (PageBox{1, 72, 100, 301, 180}));  // both left blocks, rounded outwards
  EXPECT_EQ(b[1], (PageBox{1, 320, 100, 540, 160}));
  EXPECT_EQ(b[2], (PageBox{2, 72, 90, 300, 120}));
}

// ---- rendering ----

TEST(PdfRender, RendersAPageAsPngAtTheZoomAsked) {
  testing::TempDir dir;
  const std::string path = dir.write("q.pdf", two_page_pdf());
  RenderedPage p = render_page_png(path, 1, 1.0, {});
  ASSERT_GE(p.png.size(), 8u);
  EXPECT_EQ(p.png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(p.pages, 2);
  EXPECT_NEAR(p.width, 612, 1);
  EXPECT_NEAR(p.height, 792, 1);
  RenderedPage z = render_page_png(path, 2, 1.5, {});
  EXPECT_NEAR(z.width, 918, 1);
  EXPECT_NEAR(z.height, 1188, 1);
  auto px = image_fixture::read_png(z.png);
  EXPECT_EQ(px.w, z.width);
  EXPECT_EQ(render_page_png(path, 1, 100, {}).zoom, kMaxPageZoom);
  EXPECT_EQ(render_page_png(path, 1, 0.01, {}).width, 306);
}

TEST(PdfRender, HighlightChangesTheBoxAndNothingFarFromIt) {
  testing::TempDir dir;
  const std::string path = dir.write("q.pdf", two_page_pdf());
  const PageBox box{1, 72, 110, 560, 152};  // wider than the text: blank paper at x 550
  RenderedPage plain = render_page_png(path, 1, 1.0, {});
  RenderedPage lit = render_page_png(path, 1, 1.0, {box, PageBox{2, 0, 0, 600, 700}});
  EXPECT_EQ(plain.boxes, 0);
  EXPECT_EQ(lit.boxes, 1) << "only the box on this page";
  auto a = image_fixture::read_png(plain.png);
  auto b = image_fixture::read_png(lit.png);
  ASSERT_EQ(a.w, b.w);
  ASSERT_EQ(a.h, b.h);
  ASSERT_GE(a.n, 3);
  // Inside the box white paper turns yellow: red stays, blue drops.
  const unsigned char* in_a = a.at(550, 130);
  const unsigned char* in_b = b.at(550, 130);
  EXPECT_GE(in_a[0], 240);
  EXPECT_GE(in_a[2], 240);
  EXPECT_LT(in_b[2], 150);
  EXPECT_GE(in_b[0], 240);
  // Far outside it every pixel is the same.
  for (int y = 400; y < a.h; y += 3)
    for (int x = 0; x < a.w; x += 3)
      ASSERT_EQ(std::memcmp(a.at(x, y), b.at(x, y), static_cast<size_t>(a.n)), 0) << x << "," << y;
}

using pdf_fixture::expect_input_error;

TEST(PdfRender, BadFilesAndPagesAreInputErrorsNamingTheFile) {
  testing::TempDir dir;
  const std::string path = dir.write("q.pdf", two_page_pdf());
  expect_input_error([&] { render_page_png(path, 3, 1, {}); }, "no page 3; the document has 2 pages");
  expect_input_error([&] { render_page_png(path, 0, 1, {}); }, "q.pdf");
  expect_input_error([&] { render_page_png(dir.file("gone.pdf"), 1, 1, {}); }, "file not found");
  const std::string text = dir.write("t.pdf", "just some text, not a PDF at all");
  expect_input_error([&] { render_page_png(text, 1, 1, {}); }, "not a PDF");
  WriteOptions wo;
  wo.encrypt = true;
  wo.user_password = "secret";
  const std::string enc = dir.write("e.pdf", write_pdf({body_page("locked")}, wo));
  expect_input_error([&] { render_page_png(enc, 1, 1, {}); }, "encrypted");
}

}  // namespace
}  // namespace mmkg
