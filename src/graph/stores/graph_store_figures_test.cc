// The conformance suite, continued: figure and table nodes (FigureNode) and their DEPICTS links,
// against SQLite and a real Neo4j (see graph_store_conformance_test.cc for the rest). Each test
// starts from clear().
#include <gtest/gtest.h>

#include "core/error.h"
#include "graph/model/graph_store.h"
#include "graph/stores/graph_store_impl.h"
#include "net/neo4j_query.h"
#include "store/sqlite_util.h"
#include "store/store.h"
#include "support/neo4j_server.h"
#include "support/temp_dir.h"

namespace mmkg::graph {
namespace {

using mmkg::testing::TempDir;

Entity fig_ent(const std::string& id) {
  Entity e;
  e.id = id;
  e.name = "Name of " + id;
  return e;
}

Mention fig_men(const std::string& e, const std::string& chunk, const std::string& doc) {
  return Mention{e, chunk, doc, e, 1};
}

FigureNode fig(const std::string& id, const std::string& doc, int page, std::vector<std::string> entities,
               FigureKind kind = FigureKind::Figure, const std::string& label = "", const std::string& caption = "") {
  FigureNode f;
  f.id = id;
  f.doc_id = doc;
  f.chunk_id = doc + "-fig-" + id;
  f.kind = kind;
  f.label = label;
  f.caption = caption;
  f.page = page;
  f.entity_ids = std::move(entities);
  return f;
}

std::vector<std::string> figure_ids(const std::vector<FigureNode>& fs) {
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(f.id);
  return out;
}

using Ids = std::vector<std::string>;

class GraphStoreFigures : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "sqlite") {
      store_ = Store::open(dir_.str());
      g_ = make_sqlite_graph_store(store_->db());
    } else {
      MMKG_REQUIRE_NEO4J(url_);
      g_ = make_neo4j_graph_store(url_);
    }
    g_->clear();
  }

  GraphStore& g() { return *g_; }

  // Two documents. d1: a and b (and shared), figure f1 (page 3) depicting b, a and shared,
  // table t1 (page 5) depicting a. d2: c and shared, figure f2 (page 1) depicting a, c and
  // shared; `a` is mentioned in d1 only, so f2's link to it is another document's.
  void two_documents() {
    g().upsert({{fig_ent("a"), fig_ent("b"), fig_ent("c"), fig_ent("shared")},
                {fig_men("a", "d1c1", "d1"), fig_men("b", "d1c1", "d1"), fig_men("shared", "d1c1", "d1"),
                 fig_men("c", "d2c1", "d2"), fig_men("shared", "d2c1", "d2")},
                {},
                {fig("f1", "d1", 3, {"b", "a", "shared"}, FigureKind::Figure, "Figure 1", "Figure 1: A and B."),
                 fig("t1", "d1", 5, {"a"}, FigureKind::Table, "Table 1", "Table 1: Scores of A."),
                 fig("f2", "d2", 1, {"a", "c", "shared"}, FigureKind::Figure, "Figure 2", "Figure 2: C.")}});
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<GraphStore> g_;
  std::string url_;
};

TEST_P(GraphStoreFigures, UpsertStoresAFigureWithItsEntityLinks) {
  EXPECT_EQ(g().stats().figures, 0);
  g().upsert({{fig_ent("a"), fig_ent("b")},
              {},
              {},
              // A link to an unknown entity is dropped, a repeated one kept once, the order kept.
              {fig("f1", "d1", 3, {"b", "ghost", "a", "b"}, FigureKind::Figure, "Figure 1", "Figure 1: Loss curves.")}});
  auto f = g().figure("f1");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->id, "f1");
  EXPECT_EQ(f->doc_id, "d1");
  EXPECT_EQ(f->chunk_id, "d1-fig-f1");
  EXPECT_EQ(f->kind, FigureKind::Figure);
  EXPECT_EQ(f->label, "Figure 1");
  EXPECT_EQ(f->caption, "Figure 1: Loss curves.");
  EXPECT_EQ(f->page, 3);
  EXPECT_EQ(f->entity_ids, (Ids{"b", "a"}));
  EXPECT_FALSE(g().figure("nope"));
  EXPECT_EQ(g().stats().figures, 1);
  EXPECT_EQ(g().stats().entities, 2) << "a figure adds no entity";
}

TEST_P(GraphStoreFigures, AFigureWithoutChunkOrEntitiesIsANodeAllTheSame) {
  FigureNode bare = fig("t9", "d1", 0, {}, FigureKind::Table);
  bare.chunk_id = "";
  g().upsert({{}, {}, {}, {bare}});
  auto f = g().figure("t9");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, FigureKind::Table);
  EXPECT_EQ(f->chunk_id, "");
  EXPECT_EQ(f->label, "");
  EXPECT_EQ(f->page, 0);
  EXPECT_TRUE(f->entity_ids.empty());
  EXPECT_EQ(figure_ids(g().figures()), (Ids{"t9"}));
  g().remove_document("d1");
  EXPECT_FALSE(g().figure("t9"));
}

TEST_P(GraphStoreFigures, FiguresOfEntityAreOrderedByDocumentPageAndIdUpToTheLimit) {
  two_documents();
  auto fs = g().figures_of_entity("a", 10);
  EXPECT_EQ(figure_ids(fs), (Ids{"f1", "t1", "f2"}));
  ASSERT_EQ(fs.size(), 3u);
  EXPECT_EQ(fs[0].entity_ids, (Ids{"b", "a", "shared"})) << "each with all its links, in order";
  EXPECT_EQ(fs[1].kind, FigureKind::Table);
  EXPECT_EQ(fs[1].caption, "Table 1: Scores of A.");
  EXPECT_EQ(fs[2].doc_id, "d2");
  EXPECT_EQ(fs[2].page, 1);
  EXPECT_EQ(figure_ids(g().figures_of_entity("a", 2)), (Ids{"f1", "t1"}));
  EXPECT_EQ(figure_ids(g().figures_of_entity("c", 10)), (Ids{"f2"}));
  EXPECT_EQ(figure_ids(g().figures_of_entity("shared", 10)), (Ids{"f1", "f2"}));
  EXPECT_TRUE(g().figures_of_entity("a", 0).empty());
  EXPECT_TRUE(g().figures_of_entity("nope", 10).empty());
  EXPECT_EQ(figure_ids(g().figures()), (Ids{"f1", "f2", "t1"})) << "every figure, ordered by id";
  EXPECT_EQ(g().stats().figures, 3);
}

TEST_P(GraphStoreFigures, UpsertingAFigureAgainReplacesItAndItsLinks) {
  two_documents();
  g().upsert({{}, {}, {}, {fig("f1", "d1", 4, {"c"}, FigureKind::Table, "Table 7", "Now a table.")}});
  auto f = g().figure("f1");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, FigureKind::Table);
  EXPECT_EQ(f->label, "Table 7");
  EXPECT_EQ(f->caption, "Now a table.");
  EXPECT_EQ(f->page, 4);
  EXPECT_EQ(f->entity_ids, (Ids{"c"})) << "the old links are gone, not added to";
  EXPECT_TRUE(g().figures_of_entity("b", 10).empty());
  EXPECT_EQ(figure_ids(g().figures_of_entity("c", 10)), (Ids{"f1", "f2"}));
  EXPECT_EQ(g().stats().figures, 3);
  // The same id twice in one delta: the last one is what is stored.
  g().upsert({{}, {}, {}, {fig("f9", "d2", 1, {"a"}, FigureKind::Figure, "first"),
                           fig("f9", "d2", 2, {"b", "c"}, FigureKind::Figure, "last")}});
  f = g().figure("f9");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->label, "last");
  EXPECT_EQ(f->page, 2);
  EXPECT_EQ(f->entity_ids, (Ids{"b", "c"}));
  // No links at all replaces every link.
  g().upsert({{}, {}, {}, {fig("f9", "d2", 2, {})}});
  EXPECT_TRUE(g().figure("f9")->entity_ids.empty());
  EXPECT_TRUE(g().figures_of_entity("b", 10).empty());
}

TEST_P(GraphStoreFigures, RemoveDocumentRemovesItsFiguresAndLeavesTheOthers) {
  two_documents();
  g().remove_document("d1");
  EXPECT_FALSE(g().figure("f1"));
  EXPECT_FALSE(g().figure("t1"));
  EXPECT_EQ(figure_ids(g().figures()), (Ids{"f2"}));
  EXPECT_EQ(g().stats().figures, 1);
  // `a` was mentioned in d1 only, so it went, and with it f2's link to it; the rest of f2 stays.
  EXPECT_FALSE(g().entity("a"));
  auto f2 = g().figure("f2");
  ASSERT_TRUE(f2);
  EXPECT_EQ(f2->entity_ids, (Ids{"c", "shared"}));
  EXPECT_EQ(f2->caption, "Figure 2: C.");
  EXPECT_EQ(figure_ids(g().figures_of_entity("shared", 10)), (Ids{"f2"}));
  EXPECT_TRUE(g().figures_of_entity("a", 10).empty());
  // An unknown document changes nothing.
  g().remove_document("no-such-doc");
  EXPECT_EQ(g().stats().figures, 1);
  g().remove_document("d2");
  EXPECT_TRUE(g().figures().empty());
  EXPECT_EQ(g().stats().figures, 0);
}

TEST_P(GraphStoreFigures, ClearDeletesTheFigures) {
  two_documents();
  g().clear();
  EXPECT_EQ(g().stats().figures, 0);
  EXPECT_FALSE(g().figure("f1"));
  EXPECT_TRUE(g().figures().empty());
  // And figures can be written afterwards.
  g().upsert({{fig_ent("a")}, {}, {}, {fig("f1", "d1", 1, {"a"})}});
  EXPECT_EQ(figure_ids(g().figures_of_entity("a", 10)), (Ids{"f1"}));
}

TEST_P(GraphStoreFigures, CaptionsRoundTripAndCannotInjectQueries) {
  const std::string evil = "x'}) MATCH (n) DETACH DELETE n //";
  const std::string sql = "'; DROP TABLE graph_figures; --";
  const std::string caption = "Figure 2: \"Loss\" — 注意力 🤖 \\ and\nmultiline " + evil;
  g().upsert({{fig_ent("a"), fig_ent(evil)},
              {},
              {},
              {fig(evil, "d'1", 2, {evil, "a"}, FigureKind::Figure, sql, caption), fig("keep", "d2", 1, {"a"})}});
  auto f = g().figure(evil);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->doc_id, "d'1");
  EXPECT_EQ(f->label, sql);
  EXPECT_EQ(f->caption, caption);
  EXPECT_EQ(f->entity_ids, (Ids{evil, "a"}));
  EXPECT_EQ(figure_ids(g().figures_of_entity(evil, 10)), (Ids{evil}));
  g().remove_document("d'1");
  EXPECT_FALSE(g().figure(evil));
  EXPECT_TRUE(g().figure("keep"));
  EXPECT_TRUE(g().entity(evil));
}

INSTANTIATE_TEST_SUITE_P(GraphStore, GraphStoreFigures, ::testing::Values("sqlite", "neo4j"),
                         [](const auto& info) { return info.param; });

// ---- backend-specific

TEST(GraphStoreSqliteFigures, MigratesAVersion2GraphAddingTheFigureTables) {
  TempDir dir;
  auto store = Store::open(dir.str());
  make_sqlite_graph_store(store->db())->upsert({{fig_ent("a")}, {fig_men("a", "c1", "d1")}, {}});
  // What version 2 looked like: no figure tables.
  Stmt(store->db(), "DROP TABLE graph_depicts").run();
  Stmt(store->db(), "DROP TABLE graph_figures").run();
  Stmt(store->db(), "UPDATE graph_meta SET value = '2' WHERE key = 'schema_version'").run();
  auto g = make_sqlite_graph_store(store->db());
  Stmt v(store->db(), "SELECT value FROM graph_meta WHERE key = 'schema_version'");
  ASSERT_TRUE(v.step());
  EXPECT_EQ(v.text(0), std::to_string(detail::kGraphSchemaVersion));
  EXPECT_TRUE(g->entity("a")) << "the graph is kept";
  EXPECT_EQ(g->stats().figures, 0);
  g->upsert({{}, {}, {}, {fig("f1", "d1", 1, {"a"})}});
  EXPECT_EQ(figure_ids(g->figures_of_entity("a", 10)), (Ids{"f1"}));
}

class GraphStoreNeo4jFigures : public ::testing::Test {
 protected:
  void SetUp() override {
    MMKG_REQUIRE_NEO4J(url_);
    g_ = make_neo4j_graph_store(url_);
    g_->clear();
  }
  std::string url_;
  std::unique_ptr<GraphStore> g_;
};

TEST_F(GraphStoreNeo4jFigures, AFigureIsLinkedToItsChunkNodeAndRemovedWithIt) {
  g_->upsert({{fig_ent("a")}, {fig_men("a", "d1c1", "d1")}, {}, {fig("f1", "d1", 2, {"a"})}});
  FigureNode bare = fig("f2", "d1", 2, {});
  bare.chunk_id = "";
  g_->upsert({{}, {}, {}, {bare}});
  Neo4jClient c(parse_neo4j_url(url_));
  auto r = c.run("MATCH (f:Figure {id: 'f1'})-[:IN_CHUNK]->(k:Chunk) RETURN k.id, k.doc_id");
  ASSERT_EQ(r.rows.size(), 1u) << "the chunk node is made when no mention made it";
  EXPECT_EQ(r.rows[0][0], "d1-fig-f1");
  EXPECT_EQ(r.rows[0][1], "d1");
  EXPECT_TRUE(c.run("MATCH (:Figure {id: 'f2'})-[:IN_CHUNK]->() RETURN 1").rows.empty());
  r = c.run("MATCH (:Figure {id: 'f1'})-[d:DEPICTS]->(e:Entity) RETURN e.id, d.pos");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0][0], "a");
  EXPECT_EQ(r.rows[0][1], 0);
  g_->remove_document("d1");
  EXPECT_EQ(c.run("MATCH (n) WHERE n:Figure OR n:Chunk RETURN count(n)").rows[0][0], 0);
}

TEST_F(GraphStoreNeo4jFigures, AVersion2GraphGetsTheFigureConstraintOnOpen) {
  Neo4jClient c(parse_neo4j_url(url_));
  c.run("DROP CONSTRAINT mmkg_figure_id IF EXISTS");
  c.run("DROP INDEX mmkg_figure_doc IF EXISTS");
  c.run("MATCH (m:MmkgGraphMeta {key: 'graph'}) SET m.schema_version = 2");
  auto g = make_neo4j_graph_store(url_);
  EXPECT_EQ(c.run("MATCH (m:MmkgGraphMeta {key: 'graph'}) RETURN m.schema_version").rows[0][0],
            detail::kGraphSchemaVersion);
  EXPECT_EQ(c.run("SHOW CONSTRAINTS YIELD name WHERE name = 'mmkg_figure_id' RETURN name").rows.size(), 1u);
  EXPECT_EQ(c.run("SHOW INDEXES YIELD name WHERE name = 'mmkg_figure_doc' RETURN name").rows.size(), 1u);
  g->upsert({{}, {}, {}, {fig("f1", "d1", 1, {})}});
  EXPECT_THROW(c.run("CREATE (:Figure {id: 'f1'})"), Error) << "Figure.id is unique";
}

}  // namespace
}  // namespace mmkg::graph
