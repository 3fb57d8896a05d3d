// sync_graph and figures: a document's figures and tables become figure nodes linked to the
// entities their chunks mention (rule extraction), and leave the graph with their document,
// deleted or replaced. Against SQLite (same database) and a real Neo4j (its own write path).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "graph/build/graph_builder.h"
#include "graph/extract/rules.h"
#include "graph/model/graph_store.h"
#include "store/store.h"
#include "support/neo4j_server.h"
#include "support/temp_dir.h"

namespace mmkg::graph {
namespace {

using mmkg::testing::TempDir;

const std::string kBody =
    "The Transformer uses multi-head attention. Multi-head attention runs several attention heads in "
    "parallel. The Transformer reaches 28.4 BLEU on WMT 2014. Figure 1 shows multi-head attention.";
const std::string kCaption = "Figure 1: Multi-head attention in the Transformer.";

// A document written straight to the store: one text chunk, a captioned figure with its own
// chunk (as ingest's add_figure_chunks makes it), and a table without a chunk (nothing to search
// it by).
void put_document(Store& store, const std::string& id, const std::string& path,
                  const std::optional<std::string>& replace = std::nullopt) {
  DocumentRecord d;
  d.id = id;
  d.path = path;
  d.name = "paper.pdf";
  d.format = "pdf";
  d.pages = 4;
  Chunk body;
  body.id = id + "-0";
  body.doc_id = id;
  body.text = kBody;
  body.page_start = body.page_end = 1;
  body.end = static_cast<int64_t>(kBody.size());
  Figure f;
  f.id = id + "-fig1";
  f.seq = 0;
  f.source = "vector";
  f.page = 2;
  f.label = "Figure 1";
  f.caption = kCaption;
  f.references = {"Figure 1 shows multi-head attention."};
  Chunk fc;
  fc.id = id + "-1";
  fc.doc_id = id;
  fc.seq = 1;
  fc.page_start = fc.page_end = 2;
  fc.text = kCaption + "\n\nReferred to in the text: Figure 1 shows multi-head attention.";
  fc.start = body.end + 2;
  fc.end = fc.start + static_cast<int64_t>(fc.text.size());
  fc.figure_id = f.id;
  Figure t;
  t.id = id + "-tab1";
  t.seq = 1;
  t.table = true;
  t.source = "table";
  t.page = 3;
  store.put_document(d, kBody + "\n\n" + fc.text, {body, fc}, replace, "", {f, t});
}

class GraphBuilderFigures : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    store_ = Store::open(dir_.str());
    if (GetParam() == "sqlite") {
      g_ = make_sqlite_graph_store(store_->db());
    } else {
      std::string url;
      MMKG_REQUIRE_NEO4J(url);
      g_ = make_neo4j_graph_store(url);
      g_->clear();
      opt_.backend_key = "neo4j-test";
    }
    opt_.communities = false;
  }

  GraphSyncResult sync() { return sync_graph(*store_, *g_, *rules_, {}, opt_); }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<GraphStore> g_;
  std::unique_ptr<Extractor> rules_ = make_rule_extractor();
  GraphSyncOptions opt_;
};

TEST_P(GraphBuilderFigures, EachFigureIsANodeLinkedToTheEntitiesItsChunkMentions) {
  put_document(*store_, "d1", "/c/paper.pdf");
  GraphSyncResult r = sync();
  EXPECT_EQ(r.documents_added, 1);
  EXPECT_EQ(r.stats.figures, 2);

  auto f = g_->figure("d1-fig1");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->doc_id, "d1");
  EXPECT_EQ(f->chunk_id, "d1-1");
  EXPECT_EQ(f->kind, FigureKind::Figure);
  EXPECT_EQ(f->label, "Figure 1");
  EXPECT_EQ(f->caption, kCaption);
  EXPECT_EQ(f->page, 2);
  // Linked to exactly the entities mentioned in its chunk.
  std::set<std::string> in_chunk;
  for (const auto& m : g_->mentions())
    if (m.chunk_id == "d1-1") in_chunk.insert(m.entity_id);
  ASSERT_FALSE(in_chunk.empty()) << "the rules found no entity in the figure's caption";
  EXPECT_EQ(std::set<std::string>(f->entity_ids.begin(), f->entity_ids.end()), in_chunk);
  EXPECT_EQ(f->entity_ids.size(), in_chunk.size()) << "each entity linked once";
  // The caption names multi-head attention: that entity's figures include this one.
  auto mha = g_->find_by_key(name_key("multi-head attention"));
  ASSERT_EQ(mha.size(), 1u);
  EXPECT_TRUE(std::count(f->entity_ids.begin(), f->entity_ids.end(), mha[0]));
  auto of = g_->figures_of_entity(mha[0], 10);
  ASSERT_EQ(of.size(), 1u);
  EXPECT_EQ(of[0].id, "d1-fig1");

  // The table has no chunk: a node all the same, with its page and kind, linked to nothing.
  auto t = g_->figure("d1-tab1");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->kind, FigureKind::Table);
  EXPECT_EQ(t->page, 3);
  EXPECT_EQ(t->chunk_id, "");
  EXPECT_TRUE(t->entity_ids.empty());

  // A second run changes nothing.
  EXPECT_EQ(sync().documents_added, 0);
  EXPECT_EQ(g_->stats().figures, 2);
}

TEST_P(GraphBuilderFigures, DeletingOrReplacingTheDocumentRemovesItsFigures) {
  put_document(*store_, "d1", "/c/paper.pdf");
  sync();
  ASSERT_EQ(g_->stats().figures, 2);
  // A new version of the same file replaces the old one: the old figures go, the new ones come.
  put_document(*store_, "d2", "/c/paper.pdf", std::string("d1"));
  GraphSyncResult r = sync();
  EXPECT_EQ(r.documents_removed, 1);
  EXPECT_EQ(r.documents_added, 1);
  EXPECT_FALSE(g_->figure("d1-fig1"));
  EXPECT_FALSE(g_->figure("d1-tab1"));
  ASSERT_TRUE(g_->figure("d2-fig1"));
  EXPECT_FALSE(g_->figure("d2-fig1")->entity_ids.empty());
  EXPECT_EQ(g_->stats().figures, 2);
  // Deleted: no figure is left.
  ASSERT_TRUE(store_->delete_document("d2"));
  GraphSyncOptions only_remove = opt_;
  only_remove.add_documents = false;
  EXPECT_EQ(sync_graph(*store_, *g_, *rules_, {}, only_remove).documents_removed, 1);
  EXPECT_EQ(g_->stats().figures, 0);
  EXPECT_TRUE(g_->figures().empty());
}

// The rules under another id: what an upgraded mmkg runs on a store an older one built.
class RenamedExtractor final : public Extractor {
 public:
  RenamedExtractor(Extractor& inner, std::string id) : inner_(inner), id_(std::move(id)) {}
  std::string id() const override { return id_; }
  ChunkExtraction extract(const ExtractInput& in) override { return inner_.extract(in); }

 private:
  Extractor& inner_;
  std::string id_;
};

// Issue 13 (session 5): a document whose graph older rules built is built again by the next
// sync, once, with the graph the same size (replaced, not doubled); one a model built stays.
TEST_P(GraphBuilderFigures, NewerRulesRebuildAnOlderRulesGraphNotAModelsGraph) {
  put_document(*store_, "d1", "/c/paper.pdf");
  RenamedExtractor older(*rules_, "rules-v1");
  ASSERT_EQ(sync_graph(*store_, *g_, older, {}, opt_).documents_added, 1);
  const GraphStats before = g_->stats();
  EXPECT_EQ(sync().documents_added, 1) << "rules-v1 -> " << rules_->id();
  EXPECT_EQ(g_->stats().entities, before.entities);
  EXPECT_EQ(g_->stats().relations, before.relations);
  EXPECT_EQ(sync().documents_added, 0) << "up to date";
  RenamedExtractor model(*rules_, "llm-v1:some-model:abc");
  EXPECT_EQ(sync_graph(*store_, *g_, model, {}, opt_).documents_added, 0)
      << "a document already in the graph is not rebuilt for a model";
}

INSTANTIATE_TEST_SUITE_P(GraphBuild, GraphBuilderFigures, ::testing::Values("sqlite", "neo4j"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mmkg::graph
