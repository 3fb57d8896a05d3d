// The one rendering of a passage's location (app/cite.h).
#include "app/cite.h"

#include <gtest/gtest.h>

namespace mmkg {
namespace {

TEST(Cite, ALocationNamesTheDocumentPagesAndTheChunkOrTheFigure) {
  EXPECT_EQ(location_text({.doc = "notes.md", .chunk_id = "c1"}), "notes.md, chunk c1");
  EXPECT_EQ(location_text({.doc = "r.pdf", .page = 3, .page_end = 3, .chunk_id = "c1"}), "r.pdf, page 3, chunk c1");
  EXPECT_EQ(location_text({.doc = "r.pdf", .page = 3, .page_end = 4, .chunk_id = "c1"}), "r.pdf, pages 3\u20134, chunk c1");
  EXPECT_EQ(location_text({.doc = "r.pdf", .page = 10, .chunk_id = "c9", .figure_id = "f1", .figure_label = "Figure 2"}),
            "r.pdf, page 10, Figure 2");
  EXPECT_EQ(location_text({.doc = "r.pdf", .page = 2, .figure_id = "t7", .figure_kind = FigureKind::Table}),
            "r.pdf, page 2, table t7");
}

TEST(Cite, AnAnswerListsItsSourcesOnePerLine) {
  Citation a;
  a.n = 1, a.doc = "r.pdf", a.page = 3, a.page_end = 3, a.chunk_id = "c1", a.heading_path = "Methods";
  Citation b;
  b.n = 2, b.doc = "notes.md", b.chunk_id = "c2";
  EXPECT_EQ(answer_with_sources("X is Y. [1][2]", {a, b}),
            "X is Y. [1][2]\n\nSources:\n[1] r.pdf, page 3, chunk c1 \u2014 Methods\n[2] notes.md, chunk c2");
  EXPECT_EQ(answer_with_sources("The documents do not say.", {}), "The documents do not say.");
  SearchHit h;
  h.doc = "r.pdf", h.page_start = 5, h.page_end = 6, h.chunk_id = "c5";
  EXPECT_EQ(location_text(location_of(h)), "r.pdf, pages 5\u20136, chunk c5");
}

}  // namespace
}  // namespace mmkg
