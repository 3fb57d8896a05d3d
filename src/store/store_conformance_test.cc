// One conformance suite for both Store implementations: the embedded SQLite store and the shared
// Neo4j store (a real Neo4j 5.26 from tests/support/neo4j_server.h, each test on an emptied
// database). What a caller of the Store interface sees must not depend on the implementation.
// A "node" is a connection to the store: for SQLite a second Store::open of the directory, for
// Neo4j a second process's view, with a local copy of its own under another cache folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "net/neo4j_query.h"
#include "store/neo4j_store.h"
#include "store/sqlite_util.h"
#include "store/store.h"
#include "support/neo4j_server.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

using testing::TempDir;

Chunk mk(const std::string& doc, int seq, const std::string& text, std::vector<float> vec = {}) {
  Chunk c;
  c.id = doc + "-" + std::to_string(seq);
  c.doc_id = doc;
  c.seq = seq;
  c.text = text;
  c.heading_path = "Part > Section";
  c.start = seq * 100;
  c.end = c.start + static_cast<int64_t>(text.size());
  c.page_start = c.page_end = seq + 1;
  c.vector = std::move(vec);
  return c;
}

DocumentRecord rec(const std::string& id, const std::string& path, const std::string& title = "") {
  DocumentRecord d;
  d.id = id;
  d.path = path;
  d.name = path.substr(path.rfind('/') + 1);
  d.format = "pdf";
  d.title = title;
  d.bytes = 1234;
  d.pages = 3;
  return d;
}

Figure fig(const std::string& id, int seq, const std::string& png) {
  Figure f;
  f.id = id;
  f.seq = seq;
  f.source = "raster";
  f.page = 2;
  f.x0 = 10.5f, f.y0 = 20.25f, f.x1 = 300, f.y1 = 400.75f;
  f.offset = 42;
  f.label = "Figure " + std::to_string(seq + 1);
  f.caption = f.label + ": loss curves.";
  f.alt = "alt";
  f.references = {"as Figure 1 shows", "see Figure 1"};
  f.text = "epoch loss";
  f.text_source = "ocr";
  f.ocr_confidence = 87.5f;
  f.description = "a chart";
  f.visual_kind = "chart";
  f.png = png;
  f.width = 3;
  f.height = 2;
  f.image_hash = "img" + std::to_string(png.size()) + png.substr(0, 1);
  return f;
}

std::vector<std::string> ids_of(const std::vector<DocumentRecord>& ds) {
  std::vector<std::string> out;
  for (const auto& d : ds) out.push_back(d.id);
  std::sort(out.begin(), out.end());
  return out;
}

// The chunks the local full-text index finds for a word (both kinds search a local SQLite).
std::vector<std::string> fts(Store& s, const std::string& word) {
  Stmt st(s.db(), "SELECT c.id FROM chunks_fts JOIN chunks c ON c.rowid = chunks_fts.rowid WHERE chunks_fts MATCH ?");
  st.bind(1, word);
  std::vector<std::string> ids;
  while (st.step()) ids.push_back(st.text(0));
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class StoreConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "neo4j") {
      MMKG_REQUIRE_NEO4J(url_);
      Neo4jClient c(parse_neo4j_url(url_));
      for (;;) {  // an empty database for every test, in slices
        auto r = c.run("MATCH (n) WITH n LIMIT 10000 DETACH DELETE n RETURN count(*)");
        if (r.rows.empty() || r.rows[0][0].get<int64_t>() == 0) break;
      }
    }
    a_ = node(0);
  }

  /// A connection to the store, as process `n` would open it.
  std::unique_ptr<Store> node(int n) {
    if (GetParam() == "sqlite") return Store::open(dir_.file("store"));
    return open_neo4j_store({url_, dir_.file("cache" + std::to_string(n)), true});
  }

  Store& a() { return *a_; }

  TempDir dir_;
  std::string url_;
  std::unique_ptr<Store> a_;
};

TEST_P(StoreConformance, PutFindDelete) {
  EXPECT_EQ(a().shared(), GetParam() == "neo4j");
  WriteResult w1 = a().put_document(rec("d1", "/x/a.pdf", "Attention"), "alpha beta\n\ndelta",
                                    {mk("d1", 0, "alpha beta gamma"), mk("d1", 1, "delta epsilon")}, std::nullopt);
  EXPECT_EQ(w1.added_rowids.size(), 2u);
  a().put_document(rec("d2", "/x/b.pdf"), "zeta", {mk("d2", 0, "zeta alpha")}, std::nullopt);
  EXPECT_EQ(ids_of(a().documents()), (std::vector<std::string>{"d1", "d2"}));
  auto d1 = a().find_by_path("/x/a.pdf");
  ASSERT_TRUE(d1);
  EXPECT_EQ(d1->id, "d1");
  EXPECT_EQ(d1->chunks, 2);
  EXPECT_EQ(d1->title, "Attention");
  EXPECT_EQ(d1->pages, 3);
  EXPECT_EQ(d1->bytes, 1234);
  EXPECT_FALSE(d1->ingested_at.empty());
  EXPECT_EQ(a().find_by_id("d2")->path, "/x/b.pdf");
  EXPECT_EQ(a().document_text("d1"), "alpha beta\n\ndelta");
  auto c = a().chunk("d1-1");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->chunk.text, "delta epsilon");
  EXPECT_EQ(c->chunk.heading_path, "Part > Section");
  EXPECT_EQ(c->chunk.start, 100);
  EXPECT_EQ(c->chunk.page_start, 2);
  EXPECT_EQ(c->doc_name, "a.pdf");
  EXPECT_EQ(a().chunks_of("d1").size(), 2u);
  EXPECT_EQ(fts(a(), "alpha"), (std::vector<std::string>{"d1-0", "d2-0"}));

  WriteResult gone;
  EXPECT_TRUE(a().delete_document("d1", &gone));
  EXPECT_EQ(gone.removed_rowids.size(), 2u);
  EXPECT_FALSE(a().delete_document("d1", nullptr));
  EXPECT_FALSE(a().find_by_id("d1"));
  EXPECT_FALSE(a().chunk("d1-0"));
  EXPECT_EQ(fts(a(), "alpha"), (std::vector<std::string>{"d2-0"}));
  a().exec("INSERT INTO chunks_fts(chunks_fts, rank) VALUES('integrity-check', 1)");
}

TEST_P(StoreConformance, ANewVersionAtAPathReplacesTheOld) {
  a().put_document(rec("v1", "/x/a.pdf"), "old", {mk("v1", 0, "old words here")}, std::nullopt);
  // Named as the version it replaces, and not named (another writer stored it since we looked).
  a().put_document(rec("v2", "/x/a.pdf"), "new", {mk("v2", 0, "new words here")}, std::string("v1"));
  EXPECT_EQ(ids_of(a().documents()), (std::vector<std::string>{"v2"}));
  WriteResult w = a().put_document(rec("v3", "/x/a.pdf"), "newer", {mk("v3", 0, "newer words")}, std::nullopt);
  EXPECT_EQ(w.removed_rowids.size(), 1u);
  EXPECT_EQ(ids_of(a().documents()), (std::vector<std::string>{"v3"}));
  EXPECT_TRUE(fts(a(), "old").empty());
  EXPECT_TRUE(fts(a(), "new").empty());
  EXPECT_EQ(fts(a(), "newer").size(), 1u);
}

TEST_P(StoreConformance, ResolveByNamePathIdAndPrefix) {
  a().put_document(rec("abcdef0123456789", "/x/a.pdf"), "t", {mk("abcdef0123456789", 0, "one")}, std::nullopt);
  EXPECT_EQ(a().resolve("a.pdf").size(), 1u);
  EXPECT_EQ(a().resolve("/x/a.pdf").size(), 1u);
  EXPECT_EQ(a().resolve("abcdef0123456789").size(), 1u);
  EXPECT_EQ(a().resolve("abcdef").size(), 1u);
  EXPECT_TRUE(a().resolve("b.pdf").empty());
}

TEST_P(StoreConformance, VectorsRoundTripExactlyAndAreFoundByText) {
  const std::vector<float> v0 = {0.1f, -0.25f, 1.0f / 3.0f}, v1 = {0.7f, 0.0f, -1e-7f};
  a().put_document(rec("d1", "/x/a.pdf"), "t", {mk("d1", 0, "first", v0), mk("d1", 1, "second", v1)}, std::nullopt,
                   "model-x");
  std::map<int64_t, std::vector<float>> seen;
  a().for_each_vector("model-x", [&](int64_t rowid, const float* v, size_t dim) {
    seen[rowid] = std::vector<float>(v, v + dim);
  });
  ASSERT_EQ(seen.size(), 2u);
  std::vector<std::vector<float>> got;
  for (auto& [_, v] : seen) got.push_back(v);
  EXPECT_TRUE((got[0] == v0 && got[1] == v1) || (got[0] == v1 && got[1] == v0)) << "bit for bit";
  auto cached = a().cached_embeddings("model-x", {"second", "unknown"});
  EXPECT_EQ(cached[0], v1);
  EXPECT_TRUE(cached[1].empty());
  EXPECT_TRUE(a().chunks_without_vectors("model-x").empty());
  EXPECT_EQ(a().chunks_without_vectors("model-y").size(), 2u);
}

TEST_P(StoreConformance, VectorsAddedLaterReachEveryNode) {
  a().put_document(rec("d1", "/x/a.pdf"), "t", {mk("d1", 0, "first"), mk("d1", 1, "second")}, std::nullopt);
  auto b = node(1);
  b->sync();
  EXPECT_EQ(b->chunks_without_vectors("m").size(), 2u);
  a().put_embeddings("m", {"first", "second"}, {{1, 0}, {0, 1}}, true);
  a().sync();
  b->sync();
  for (Store* s : {&a(), b.get()}) {
    EXPECT_TRUE(s->chunks_without_vectors("m").empty());
    EXPECT_EQ(s->cached_embeddings("m", {"second"})[0], (std::vector<float>{0, 1}));
  }
}

TEST_P(StoreConformance, FiguresAndPageBoxesRoundTrip) {
  const std::string png1("\x89PNG\r\n\x1a\n\x00\x01\xff", 11), png2("\x89PNG second", 11);
  Chunk body = mk("d1", 0, "body text");
  body.boxes = {{1, 10, 20, 30.5f, 40}, {2, 0, 0, 612, 792}};
  Chunk own = mk("d1", 1, "Figure 1: loss curves.");
  own.figure_id = "f1";
  std::vector<Figure> figs = {fig("f1", 0, png1), fig("f2", 1, png2)};
  figs[1].table = true;
  figs[1].table_markdown = "| a | b |";
  a().put_document(rec("d1", "/x/a.pdf"), "t", {body, own}, std::nullopt, "", figs);
  EXPECT_EQ(a().figure_count(), 2);
  auto of = a().figures_of("d1");
  ASSERT_EQ(of.size(), 2u);
  const Figure& f = of[0].figure;
  EXPECT_EQ(f.id, "f1");
  EXPECT_EQ(of[0].chunk_id, "d1-1");
  EXPECT_EQ(of[0].doc_name, "a.pdf");
  EXPECT_EQ(f.caption, "Figure 1: loss curves.");
  EXPECT_EQ(f.references, figs[0].references);
  EXPECT_FLOAT_EQ(f.y0, 20.25f);
  EXPECT_FLOAT_EQ(f.ocr_confidence, 87.5f);
  EXPECT_EQ(f.visual_kind, "chart");
  EXPECT_EQ(read_file(a().figure_path(f.image_hash)), png1) << "the image, byte for byte";
  EXPECT_EQ(of[1].figure.kind(), FigureKind::Table);
  EXPECT_EQ(of[1].figure.table_markdown, "| a | b |");
  EXPECT_EQ(a().find_figures("f2").size(), 1u);
  EXPECT_EQ(a().figures_labelled("Figure 1").size(), 1u);
  EXPECT_EQ(a().chunk_boxes("d1-0"), body.boxes);
  EXPECT_TRUE(a().chunk_boxes("d1-1").empty());
  a().delete_document("d1", nullptr);
  EXPECT_EQ(a().figure_count(), 0);
  EXPECT_TRUE(a().chunk_boxes("d1-0").empty());
}

TEST_P(StoreConformance, FigureCacheAndGraphBookkeepingAreSharedByEveryNode) {
  auto b = node(1);
  EXPECT_FALSE(b->cache_get("ocr|x|h1"));
  a().cache_put("ocr|x|h1", "{\"text\":\"hello\"}");
  EXPECT_EQ(b->cache_get("ocr|x|h1").value_or(""), "{\"text\":\"hello\"}");
  a().put_document(rec("d1", "/x/a.pdf"), "t", {mk("d1", 0, "one")}, std::nullopt);
  a().mark_graph_document("sqlite", "d1", "rules-v3", true);
  auto marks = b->graph_documents("sqlite");
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(marks[0].doc_id, "d1");
  EXPECT_EQ(marks[0].extractor, "rules-v3");
  EXPECT_EQ(b->graph_document_count("sqlite"), 1u);
  EXPECT_TRUE(b->graph_documents("neo4j:elsewhere").empty());
  EXPECT_EQ(b->graph_document_count("neo4j:elsewhere"), 0u);
  b->mark_graph_document("sqlite", "d1", "", false);
  EXPECT_TRUE(a().graph_documents("sqlite").empty());
  EXPECT_EQ(a().graph_document_count("sqlite"), 0u);
}

// Another process's writes: seen after sync(), with the local rows it changed (for the indexes).
TEST_P(StoreConformance, AnotherNodeSeesWritesAndDeletesAfterSync) {
  auto b = node(1);
  a().put_document(rec("d1", "/x/a.pdf"), "t", {mk("d1", 0, "shared words")}, std::nullopt);
  WriteResult seen = b->sync();
  ASSERT_TRUE(b->find_by_id("d1"));
  EXPECT_EQ(fts(*b, "shared"), (std::vector<std::string>{"d1-0"}));
  if (b->shared()) {
    EXPECT_EQ(seen.added_rowids.size(), 1u);
  }
  EXPECT_TRUE(b->sync().added_rowids.empty()) << "nothing new: nothing to do";
  EXPECT_TRUE(b->delete_document("d1", nullptr));
  a().sync();
  EXPECT_FALSE(a().find_by_id("d1"));
  EXPECT_TRUE(fts(a(), "shared").empty());
}

TEST_P(StoreConformance, AFailedWriteLeavesNothingBehind) {
  a().put_document(rec("d1", "/x/a.pdf"), "t", {mk("d1", 0, "one")}, std::nullopt);
  // The same chunk id twice: the whole document is refused, nothing of it is visible.
  EXPECT_THROW(a().put_document(rec("d2", "/x/b.pdf"), "t", {mk("d2", 0, "x"), mk("d2", 0, "y")}, std::nullopt),
               Error);
  auto b = node(1);
  b->sync();
  for (Store* s : {&a(), b.get()}) {
    EXPECT_EQ(ids_of(s->documents()), (std::vector<std::string>{"d1"}));
    EXPECT_FALSE(s->chunk("d2-0"));
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreConformance, ::testing::Values("sqlite", "neo4j"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mmkg
