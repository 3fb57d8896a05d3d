// The figure stage: ids and labels, references, the vision-model hook and its cache, figure
// chunks.
#include "ingest/figures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>

#include "core/error.h"
#include "ingest/ocr.h"

namespace mmkg {
namespace {

ParsedDocument doc_with_figures() {
  ParsedDocument d;
  d.format = "pdf";
  d.blocks = {{BlockKind::Heading, 1, "Results", 1},
              {BlockKind::Paragraph, 0, "We trained the model. As shown in Figure 2, the loss falls. Table 1 lists it.", 1},
              {BlockKind::Caption, 0, "Figure 2: Loss over epochs.", 2},
              {BlockKind::Paragraph, 0, "Figures 1 and 2 compare both runs of the experiment.", 2}};
  Figure a;
  a.png = "\x89PNG-fake-a";
  a.caption = "Figure 2: Loss over epochs.";
  a.page = 2;
  a.block = 2;
  a.source = "vector";
  Figure b;
  b.png = "\x89PNG-fake-b";
  b.alt = "Figure 1: The model.";
  b.page = 1;
  b.block = 1;
  b.source = "file";
  d.figures = {b, a};
  return d;
}

TEST(FigureStage, IdsLabelsAndReferences) {
  ParsedDocument d = doc_with_figures();
  prepare_figures(d, "doc1");
  ASSERT_EQ(d.figures.size(), 2u);
  EXPECT_EQ(d.figures[0].label, "Figure 1");
  EXPECT_EQ(d.figures[0].caption, "Figure 1: The model.") << "alt text is the caption when there is none";
  EXPECT_EQ(d.figures[1].label, "Figure 2");
  EXPECT_EQ(d.figures[0].id.size(), 16u);
  EXPECT_NE(d.figures[0].id, d.figures[1].id);
  EXPECT_FALSE(d.figures[0].image_hash.empty());
  ASSERT_EQ(d.figures[1].references.size(), 2u);
  EXPECT_EQ(d.figures[1].references[0], "As shown in Figure 2, the loss falls.");
  EXPECT_EQ(d.figures[1].references[1], "Figures 1 and 2 compare both runs of the experiment.");
  ASSERT_EQ(d.figures[0].references.size(), 1u);
  // Ids are stable: the same document gets the same ids.
  ParsedDocument again = doc_with_figures();
  prepare_figures(again, "doc1");
  EXPECT_EQ(again.figures[1].id, d.figures[1].id);
}

class CountingDescriber : public FigureDescriber {
 public:
  std::atomic<int> calls{0};
  bool fail = false;
  std::string id() const override { return "test-model:p1"; }
  DescribedFigure describe(const Figure& f) override {
    ++calls;
    if (fail) throw Error("server said 500");
    return {"a plot of " + f.caption, "axis words", "chart"};
  }
};

TEST(FigureStage, DescriptionsAreCachedByImageAndCaption) {
  ParsedDocument d = doc_with_figures();
  prepare_figures(d, "doc1");
  CountingDescriber m;
  FigureOptions opt;
  opt.ocr = false;
  opt.describer = &m;
  std::map<std::string, std::string> store;
  FigureCache cache;
  cache.get = [&](const std::string& k) -> std::optional<std::string> {
    auto it = store.find(k);
    if (it == store.end()) return std::nullopt;
    return it->second;
  };
  FigureStats st = enrich_figures(d, opt, cache);
  EXPECT_EQ(m.calls.load(), 2);
  EXPECT_EQ(st.described, 2);
  EXPECT_EQ(d.figures[1].description, "a plot of Figure 2: Loss over epochs.");
  EXPECT_EQ(d.figures[1].visual_kind, "chart");
  ASSERT_EQ(st.cache_new.size(), 2u);
  for (auto& [k, v] : st.cache_new) store[k] = v;
  // Again: every answer from the cache, no model call.
  ParsedDocument d2 = doc_with_figures();
  prepare_figures(d2, "doc2");
  FigureStats st2 = enrich_figures(d2, opt, cache);
  EXPECT_EQ(m.calls.load(), 2);
  EXPECT_EQ(st2.describe_cached, 2);
  EXPECT_EQ(d2.figures[1].description, d.figures[1].description);
  // A failing model: warnings, no description, no failure.
  ParsedDocument d3 = doc_with_figures();
  d3.figures[0].png = "\x89PNG-other";
  prepare_figures(d3, "doc3");
  m.fail = true;
  FigureStats st3 = enrich_figures(d3, opt, FigureCache{});
  EXPECT_EQ(st3.describe_failed, 2);
  EXPECT_EQ(st3.warnings.size(), 2u);
  EXPECT_TRUE(d3.figures[0].description.empty());
}

// The cache's reader is one store connection: it is read on the calling thread only, and a
// failing read is a miss, never an exception out of a worker thread (which would end the process).
TEST(FigureStage, TheCacheIsReadOnTheCallingThreadAndAFailingReadIsAMiss) {
  ParsedDocument d = doc_with_figures();
  prepare_figures(d, "doc5");
  CountingDescriber m;
  FigureOptions opt;
  opt.ocr = false;
  opt.describer = &m;
  opt.threads = 4;
  std::atomic<int> calls{0}, other_threads{0};
  const auto caller = std::this_thread::get_id();
  FigureCache cache;
  cache.get = [&](const std::string&) -> std::optional<std::string> {
    ++calls;
    if (std::this_thread::get_id() != caller) ++other_threads;
    throw IOError("database disk image is malformed");
  };
  FigureStats st = enrich_figures(d, opt, cache);
  EXPECT_EQ(calls.load(), 2);
  EXPECT_EQ(other_threads.load(), 0);
  EXPECT_EQ(st.described, 2);  // both redone
  EXPECT_EQ(st.describe_cached, 0);
}

TEST(FigureStage, ImagesThatFailOcrCostAWarningNamingTheFigure) {
  if (!ocr_available()) GTEST_SKIP() << "Tesseract's English data is not installed";
  ParsedDocument d = doc_with_figures();
  d.figures[0].source = "raster";  // the "file" figure, page 1, Figure 1
  d.figures[0].png = std::string("\x89PNG\r\n\x1a\n", 8) + "cut short";
  d.figures[1].source = "raster";  // page 2, Figure 2: a PNG header over a 1-pixel-high strip
  d.figures[1].png = std::string("\x89PNG\r\n\x1a\n", 8) + "\0\0\0\x0dIHDR";
  prepare_figures(d, "doc4");
  FigureOptions opt;
  opt.threads = 2;
  FigureStats st = enrich_figures(d, opt, FigureCache{});
  ASSERT_EQ(st.warnings.size(), 2u);
  std::sort(st.warnings.begin(), st.warnings.end());
  EXPECT_EQ(st.warnings[0].rfind("page 1, Figure 1: OCR failed (", 0), 0u) << st.warnings[0];
  EXPECT_EQ(st.warnings[1].rfind("page 2, Figure 2: OCR failed (", 0), 0u) << st.warnings[1];
  for (const auto& w : st.warnings) EXPECT_NE(w.find("the figure keeps its caption only"), std::string::npos) << w;
  EXPECT_EQ(d.figures[0].caption, "Figure 1: The model.");
}

TEST(FigureStage, ChunksPerFigureKeepTheTextInvariant) {
  ParsedDocument d = doc_with_figures();
  prepare_figures(d, "doc1");
  d.figures[1].text = "epochs\nloss";
  d.figures[1].text_source = "pdf";
  RenderedDocument r = render_document(d);
  std::vector<Chunk> chunks = chunk_document(d, r, "doc1");
  const size_t text_chunks = chunks.size();
  add_figure_chunks(d, r, "doc1", chunks);
  ASSERT_EQ(chunks.size(), text_chunks + 2);
  for (const Chunk& c : chunks) EXPECT_EQ(c.text, r.text.substr(static_cast<size_t>(c.start), static_cast<size_t>(c.end - c.start)));
  const Chunk& fc = chunks.back();
  EXPECT_EQ(fc.figure_id, d.figures[1].id);
  EXPECT_EQ(fc.page_start, 2);
  EXPECT_NE(fc.text.find("Figure 2: Loss over epochs."), std::string::npos);
  EXPECT_NE(fc.text.find("As shown in Figure 2, the loss falls."), std::string::npos);
  EXPECT_NE(fc.text.find("Text in the figure: epochs loss"), std::string::npos);
  // The figure's offset is where its block starts in the rendered text.
  EXPECT_EQ(r.text.compare(static_cast<size_t>(d.figures[1].offset), 9, "Figure 2:"), 0);
  // A figure with nothing to search by gets no chunk.
  ParsedDocument bare;
  bare.blocks = {{BlockKind::Paragraph, 0, "Just text here.", 0}};
  Figure f;
  f.png = "x";
  bare.figures = {f};
  prepare_figures(bare, "doc9");
  RenderedDocument br = render_document(bare);
  auto bc = chunk_document(bare, br, "doc9");
  size_t before = bc.size();
  add_figure_chunks(bare, br, "doc9", bc);
  EXPECT_EQ(bc.size(), before);
}

}  // namespace
}  // namespace mmkg
