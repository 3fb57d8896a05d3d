// One conformance suite for every GraphStore backend: SQLite (a real database file) and Neo4j
// (a server started once per run, see neo4j_test_server.h). Each test starts from clear().
// Figure nodes have their part of the suite in graph_store_figures_test.cc.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.h"
#include "support/temp_dir.h"
#include "graph/model/graph_store.h"
#include "graph/stores/graph_store_impl.h"
#include "net/neo4j_query.h"
#include "support/neo4j_server.h"
#include "store/sqlite_util.h"
#include "store/store.h"

namespace mmkg::graph {
namespace {

using mmkg::testing::TempDir;

Entity ent(const std::string& id, const std::string& name, std::vector<std::string> aliases = {},
           double score = 1.0, const std::string& description = "", const std::string& type = "concept") {
  Entity e;
  e.id = id;
  e.name = name;
  e.type = type;
  e.description = description;
  e.aliases = std::move(aliases);
  e.score = score;
  return e;
}

Mention men(const std::string& e, const std::string& chunk, const std::string& doc, int count = 1,
            const std::string& surface = "") {
  return Mention{e, chunk, doc, surface.empty() ? e : surface, count};
}

Evidence ev(const std::string& chunk, const std::string& doc, const std::string& sentence) {
  return Evidence{chunk, doc, sentence};
}

Relation rel(const std::string& src, const std::string& dst, const std::string& type, double weight,
             std::vector<Evidence> evidence) {
  return Relation{src, dst, type, weight, std::move(evidence), ""};
}

std::vector<std::string> ids(const std::vector<Entity>& es) {
  std::vector<std::string> out;
  for (const auto& e : es) out.push_back(e.id);
  return out;
}

std::optional<Relation> find_rel(GraphStore& g, const std::string& src, const std::string& dst,
                                 const std::string& type) {
  for (auto& r : g.relations())
    if (r.src == src && r.dst == dst && r.type == type) return r;
  return std::nullopt;
}

class GraphStoreConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "sqlite") {
      store_ = Store::open(dir_.str());
      g_ = make_sqlite_graph_store(store_->db());
    } else {
      std::string url;
      MMKG_REQUIRE_NEO4J(url);
      g_ = make_neo4j_graph_store(url);
    }
    g_->clear();
  }

  GraphStore& g() { return *g_; }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<GraphStore> g_;
};

TEST_P(GraphStoreConformance, UpsertStoresAndReadsBackAnEntity) {
  EXPECT_EQ(backend_name(g().backend()), GetParam());
  g().upsert({{ent("e1", "Multi-Head Attention", {"MHA"}, 2.5, "MHA runs attention in parallel.", "method")}, {}, {}});
  auto e = g().entity("e1");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->name, "Multi-Head Attention");
  EXPECT_EQ(e->type, "method");
  EXPECT_EQ(e->description, "MHA runs attention in parallel.");
  EXPECT_DOUBLE_EQ(e->score, 2.5);
  // The name is always one of the aliases.
  EXPECT_EQ(e->aliases, (std::vector<std::string>{"Multi-Head Attention", "MHA"}));
  EXPECT_FALSE(g().entity("nope"));
}

TEST_P(GraphStoreConformance, UpsertMergesEntitiesById) {
  g().upsert({{ent("e1", "Transformer", {"Transformer", "transformers"}, 1.0, "")}, {}, {}});
  g().upsert({{ent("e1", "The Transformer", {"transformers", "Transformer model"}, 3.0, "A model.", "method")}, {}, {}});
  auto e = g().entity("e1");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->name, "Transformer") << "the first name stays";
  EXPECT_EQ(e->type, "method") << "a specific type replaces the untyped concept";
  EXPECT_DOUBLE_EQ(e->score, 3.0) << "the higher score is kept";
  EXPECT_EQ(e->description, "A model.") << "an empty description is filled";
  EXPECT_EQ(e->aliases,
            (std::vector<std::string>{"Transformer", "transformers", "The Transformer", "Transformer model"}));
  // A lower score and another description change nothing.
  g().upsert({{ent("e1", "Transformer", {"TF"}, 0.5, "Another definition.", "model")}, {}, {}});
  e = g().entity("e1");
  EXPECT_EQ(e->type, "method") << "a specific type stays";
  EXPECT_DOUBLE_EQ(e->score, 3.0);
  EXPECT_EQ(e->description, "A model.");
  EXPECT_EQ(e->aliases.back(), "TF");
  // The same id twice in one delta merges too.
  g().upsert({{ent("e2", "BERT", {}, 1.0), ent("e2", "BERT", {"Bert model"}, 2.0, "Encoder.", "model")}, {}, {}});
  auto b = g().entity("e2");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->aliases, (std::vector<std::string>{"BERT", "Bert model"}));
  EXPECT_DOUBLE_EQ(b->score, 2.0);
  EXPECT_EQ(b->description, "Encoder.");
  EXPECT_EQ(b->type, "model") << "in one delta too";
  EXPECT_EQ(ids(g().entities()), (std::vector<std::string>{"e1", "e2"}));
}

TEST_P(GraphStoreConformance, FindByKeyMatchesTheNameKeyOfEveryAlias) {
  g().upsert({{ent("e1", "Multi-Head Attention", {"MHA", "multi-head attentions"}),
               ent("e2", "Attention", {"attention mechanism"}), ent("e3", "MHA (disambig)", {"mha"})},
              {},
              {}});
  EXPECT_EQ(g().find_by_key(name_key("multi head  Attention")), (std::vector<std::string>{"e1"}));
  EXPECT_EQ(g().find_by_key(name_key("Attention Mechanisms")), (std::vector<std::string>{"e2"}));
  EXPECT_EQ(g().find_by_key("mha"), (std::vector<std::string>{"e1", "e3"}));
  EXPECT_TRUE(g().find_by_key("attention head").empty());
  EXPECT_TRUE(g().find_by_key("").empty());
  // Aliases added by a merge are found too.
  g().upsert({{ent("e2", "Attention", {"self-attention"})}, {}, {}});
  EXPECT_EQ(g().find_by_key("self attention"), (std::vector<std::string>{"e2"}));
}

TEST_P(GraphStoreConformance, MentionsAreKeyedByEntityAndChunkAndTheirCountsAdd) {
  g().upsert({{ent("a", "Alpha"), ent("b", "Beta")},
              {men("a", "d2c1", "d2", 2, "alpha"), men("a", "d1c2", "d1", 1, "Alpha"), men("a", "d1c1", "d1"),
               men("b", "d1c1", "d1"), men("a", "d1c2", "d1", 4, "ALPHA")},
              {}});
  g().upsert({{}, {men("a", "d1c1", "d1", 3, "alphas"), men("ghost", "d1c1", "d1")}, {}});
  auto ms = g().mentions_of("a");
  ASSERT_EQ(ms.size(), 3u);
  EXPECT_EQ(ms[0].chunk_id, "d1c1");
  EXPECT_EQ(ms[0].count, 4);
  EXPECT_EQ(ms[1].chunk_id, "d1c2");
  EXPECT_EQ(ms[1].count, 5);
  EXPECT_EQ(ms[1].surface, "Alpha") << "the first surface is kept";
  EXPECT_EQ(ms[2].chunk_id, "d2c1");
  EXPECT_EQ(ms[2].doc_id, "d2");
  auto all = g().mentions();
  ASSERT_EQ(all.size(), 4u) << "a mention of an unknown entity is dropped";
  EXPECT_EQ(all[0].entity_id, "a");
  EXPECT_EQ(all[2].chunk_id, "d2c1");
  EXPECT_EQ(all[3].entity_id, "b");
  EXPECT_TRUE(g().mentions_of("ghost").empty());
}

TEST_P(GraphStoreConformance, RelationWeightsAddAndEvidenceIsAppendedWithoutDuplicates) {
  g().upsert({{ent("a", "A"), ent("b", "B"), ent("c", "C")},
              {},
              {rel("a", "b", "uses", 2, {ev("c1", "d1", "A uses B."), ev("c2", "d1", "B is used by A.")}),
               // symmetric types are stored with src < dst
               rel("c", "a", "co_occurs", 1, {ev("c1", "d1", "A and C.")}),
               rel("a", "ghost", "uses", 1, {ev("c1", "d1", "A uses a ghost.")})}});
  g().upsert({{},
              {},
              {rel("a", "b", "uses", 2, {ev("c1", "d1", "A uses B."), ev("c3", "d2", "A still uses B.")})}});
  auto r = find_rel(g(), "a", "b", "uses");
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->weight, 4);
  ASSERT_EQ(r->evidence.size(), 3u);
  EXPECT_EQ(r->evidence[0].sentence, "A uses B.");
  EXPECT_EQ(r->evidence[1].chunk_id, "c2");
  EXPECT_EQ(r->evidence[2].doc_id, "d2");
  EXPECT_TRUE(find_rel(g(), "a", "c", "co_occurs"));
  auto all = g().relations();
  ASSERT_EQ(all.size(), 2u) << "a relation to an unknown entity is dropped";
  EXPECT_EQ(all[0].src, "a");
  EXPECT_EQ(all[0].dst, "b");
  EXPECT_EQ(all[1].dst, "c");
}

TEST_P(GraphStoreConformance, RelationDescriptionsAreKeptTheFirstNonEmptyOneWins) {
  Relation described = rel("a", "b", "uses", 1, {ev("c1", "d1", "A uses B.")});
  described.description = "A relies on B's \"output\" — always.";
  g().upsert({{ent("a", "A"), ent("b", "B"), ent("c", "C")},
              {},
              {rel("a", "c", "uses", 1, {ev("c1", "d1", "A uses C.")}), described}});
  EXPECT_EQ(find_rel(g(), "a", "c", "uses")->description, "") << "rule relations have none";
  Relation later = rel("a", "b", "uses", 1, {ev("c2", "d2", "A uses B again.")});
  later.description = "another description";
  Relation fill = rel("a", "c", "uses", 1, {ev("c2", "d2", "A uses C again.")});
  fill.description = "A builds on C.";
  g().upsert({{}, {}, {later, fill}});
  EXPECT_EQ(find_rel(g(), "a", "b", "uses")->description, described.description);
  EXPECT_EQ(find_rel(g(), "a", "c", "uses")->description, "A builds on C.");
  auto of = g().relations_of("b", 10);
  ASSERT_EQ(of.size(), 1u);
  EXPECT_EQ(of[0].description, described.description);
}

TEST_P(GraphStoreConformance, RelationsOfGoesBothWaysHighestWeightFirstUpToTheLimit) {
  g().upsert({{ent("a", "A"), ent("b", "B"), ent("c", "C"), ent("d", "D"), ent("x", "X")},
              {},
              {rel("a", "b", "uses", 1, {ev("c1", "d1", "s1")}), rel("c", "a", "extends", 5, {ev("c1", "d1", "s2")}),
               rel("a", "d", "is_a", 3, {ev("c1", "d1", "s3")}), rel("a", "d", "part_of", 3, {ev("c1", "d1", "s4")}),
               rel("b", "c", "uses", 9, {ev("c1", "d1", "s5")})}});
  auto rs = g().relations_of("a", 10);
  ASSERT_EQ(rs.size(), 4u);
  EXPECT_EQ(rs[0].src, "c");
  EXPECT_EQ(rs[0].type, "extends");
  EXPECT_EQ(rs[1].type, "is_a") << "ties are ordered by (src, dst, type)";
  EXPECT_EQ(rs[2].type, "part_of");
  EXPECT_EQ(rs[3].dst, "b");
  ASSERT_EQ(rs[0].evidence.size(), 1u);
  EXPECT_EQ(rs[0].evidence[0].sentence, "s2");
  EXPECT_EQ(g().relations_of("a", 2).size(), 2u);
  EXPECT_TRUE(g().relations_of("a", 0).empty());
  EXPECT_TRUE(g().relations_of("x", 10).empty());
  EXPECT_TRUE(g().relations_of("nope", 10).empty());
}

// Two documents: "shared" appears in both, "only1" in d1 only, "only2" in d2 only, "lonely" in
// no document at all.
void add_two_documents(GraphStore& g) {
  g.upsert({{ent("shared", "Shared"), ent("only1", "Only One", {"O1"}), ent("only2", "Only Two"),
             ent("lonely", "Lonely")},
            {men("shared", "d1c1", "d1", 2), men("only1", "d1c1", "d1"), men("shared", "d2c1", "d2"),
             men("only2", "d2c1", "d2")},
            {rel("only1", "shared", "uses", 1, {ev("d1c1", "d1", "Only One uses Shared.")}),
             rel("shared", "only2", "co_occurs", 2,
                 {ev("d1c1", "d1", "Shared and Only Two."), ev("d2c1", "d2", "Only Two with Shared.")}),
             rel("shared", "only2", "extends", 1, {ev("d1c1", "d1", "Shared extends Only Two.")}),
             rel("lonely", "only2", "is_a", 1, {ev("d2c1", "d2", "Lonely is an Only Two.")})}});
  g.replace_communities({Community{"k1", 0, "Shared", "Summary.", {"shared", "only1", "only2"}, {"d1c1"}}});
}

TEST_P(GraphStoreConformance, RemoveDocumentRemovesWhatItContributedOnly) {
  add_two_documents(g());
  g().remove_document("d1");
  // The shared entity stays, with its d2 mention.
  ASSERT_TRUE(g().entity("shared"));
  auto ms = g().mentions_of("shared");
  ASSERT_EQ(ms.size(), 1u);
  EXPECT_EQ(ms[0].doc_id, "d2");
  // The entity only d1 mentioned is gone, with its aliases and relations.
  EXPECT_FALSE(g().entity("only1"));
  EXPECT_TRUE(g().find_by_key("o1").empty());
  EXPECT_FALSE(find_rel(g(), "only1", "shared", "uses"));
  // Evidence from d1 is gone and the weight it carried with it.
  auto co = find_rel(g(), "only2", "shared", "co_occurs");
  ASSERT_TRUE(co);
  EXPECT_DOUBLE_EQ(co->weight, 1);
  ASSERT_EQ(co->evidence.size(), 1u);
  EXPECT_EQ(co->evidence[0].doc_id, "d2");
  // A relation whose only evidence was in d1 is gone though both ends stay.
  EXPECT_FALSE(find_rel(g(), "shared", "only2", "extends"));
  // An entity no document mentions is not an orphan of d1.
  EXPECT_TRUE(g().entity("lonely"));
  EXPECT_TRUE(find_rel(g(), "lonely", "only2", "is_a"));
  // Community membership follows the entities.
  auto cs = g().communities();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].entity_ids, (std::vector<std::string>{"shared", "only2"}));

  auto st = g().stats();
  EXPECT_EQ(st.entities, 3);
  EXPECT_EQ(st.mentions, 2);
  EXPECT_EQ(st.relations, 2);
  EXPECT_EQ(st.aliases, 3);

  g().remove_document("d2");
  EXPECT_FALSE(g().entity("shared"));
  EXPECT_FALSE(g().entity("only2"));
  EXPECT_EQ(ids(g().entities()), (std::vector<std::string>{"lonely"}));
  EXPECT_TRUE(g().relations().empty());
  EXPECT_TRUE(g().mentions().empty());
}

TEST_P(GraphStoreConformance, RemoveDocumentSubtractsTheWeightEachEvidenceCarried) {
  g().upsert({{ent("a", "A"), ent("b", "B")},
              {men("a", "c1", "d1"), men("b", "c1", "d1"), men("a", "c2", "d2"), men("b", "c2", "d2")},
              {rel("a", "b", "uses", 0.9, {ev("c1", "d1", "A uses B.")}),
               rel("a", "b", "uses", 0.6, {ev("c2", "d2", "A uses B here."), ev("c2", "d2", "And there.")})}});
  // The same sentence again adds its weight to the stored evidence.
  g().upsert({{}, {}, {rel("a", "b", "uses", 0.5, {ev("c1", "d1", "A uses B.")})}});
  auto r = find_rel(g(), "a", "b", "uses");
  ASSERT_TRUE(r);
  EXPECT_NEAR(r->weight, 2.0, 1e-9);
  EXPECT_EQ(r->evidence.size(), 3u);
  g().remove_document("d2");
  r = find_rel(g(), "a", "b", "uses");
  ASSERT_TRUE(r);
  EXPECT_NEAR(r->weight, 1.4, 1e-9);
  EXPECT_EQ(r->evidence.size(), 1u);
  g().remove_document("d1");
  EXPECT_TRUE(g().relations().empty());
  EXPECT_TRUE(g().entities().empty());
}

TEST_P(GraphStoreConformance, RemovingAnUnknownDocumentChangesNothing) {
  add_two_documents(g());
  auto before = g().stats();
  g().remove_document("no-such-doc");
  auto after = g().stats();
  EXPECT_EQ(before.entities, after.entities);
  EXPECT_EQ(before.relations, after.relations);
  EXPECT_EQ(before.mentions, after.mentions);
  EXPECT_EQ(before.aliases, after.aliases);
}

TEST_P(GraphStoreConformance, ReplaceCommunitiesReplacesAll) {
  g().upsert({{ent("a", "A"), ent("b", "B"), ent("c", "C")}, {}, {}});
  g().replace_communities({Community{"k1", 0, "A B", "About A and B.", {"b", "a"}, {"c1", "c2"}},
                           Community{"k2", 1, "C", "About C.", {"c", "ghost"}, {}}});
  auto cs = g().communities();
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[0].id, "k1");
  EXPECT_EQ(cs[0].title, "A B");
  EXPECT_EQ(cs[0].summary, "About A and B.");
  EXPECT_EQ(cs[0].entity_ids, (std::vector<std::string>{"b", "a"})) << "member order is kept";
  EXPECT_EQ(cs[0].chunk_ids, (std::vector<std::string>{"c1", "c2"}));
  EXPECT_EQ(cs[1].level, 1);
  EXPECT_EQ(cs[1].entity_ids, (std::vector<std::string>{"c"})) << "unknown entities are dropped";
  EXPECT_EQ(g().stats().communities, 2);
  g().replace_communities({Community{"k3", 0, "All", "Everything.", {"a", "b", "c"}, {"c9"}}});
  cs = g().communities();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].id, "k3");
  EXPECT_EQ(cs[0].entity_ids.size(), 3u);
  g().replace_communities({});
  EXPECT_TRUE(g().communities().empty());
  EXPECT_EQ(g().stats().communities, 0);
}

TEST_P(GraphStoreConformance, StatsCountEveryKind) {
  EXPECT_EQ(g().stats().entities, 0);
  add_two_documents(g());
  auto st = g().stats();
  EXPECT_EQ(st.entities, 4);
  EXPECT_EQ(st.mentions, 4);
  EXPECT_EQ(st.relations, 4);
  EXPECT_EQ(st.aliases, 5);  // four names and "O1"
  EXPECT_EQ(st.communities, 1);
}

TEST_P(GraphStoreConformance, ClearDeletesTheWholeGraph) {
  add_two_documents(g());
  g().clear();
  auto st = g().stats();
  EXPECT_EQ(st.entities + st.relations + st.mentions + st.aliases + st.communities, 0);
  EXPECT_TRUE(g().find_by_key("o1").empty());
  // And the store works afterwards.
  g().upsert({{ent("a", "A")}, {}, {}});
  EXPECT_EQ(g().stats().entities, 1);
}

TEST_P(GraphStoreConformance, UnicodeAndQuotesRoundTripAndCannotInjectQueries) {
  const std::string evil = "x'}) DETACH DELETE n //";
  const std::string evil2 = "\"}) MATCH (n) DETACH DELETE n RETURN 1 //\\";
  const std::string sql = "'; DROP TABLE graph_entities; --";
  g().upsert({{ent("keep", "Keep me"), ent(evil, evil, {evil2, sql}, 1, "It's \"quoted\" \\ and\nmultiline."),
               ent("uni", "Café Théorie 注意力 🤖", {"Кафе"})},
              {men(evil, "c'1", "d\"1", 1, evil), men("uni", "c'1", "d\"1", 1, "注意力")},
              {rel(evil, "uni", "uses", 1, {ev("c'1", "d\"1", evil2)})}});
  ASSERT_TRUE(g().entity("keep"));
  auto e = g().entity(evil);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->name, evil);
  EXPECT_EQ(e->description, "It's \"quoted\" \\ and\nmultiline.");
  EXPECT_EQ(e->aliases, (std::vector<std::string>{evil, evil2, sql}));
  EXPECT_EQ(g().find_by_key(name_key(evil)), (std::vector<std::string>{evil}));
  auto u = g().entity("uni");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->name, "Café Théorie 注意力 🤖");
  EXPECT_EQ(g().find_by_key(name_key("CAFE theorie 注意力 🤖")), (std::vector<std::string>{"uni"}));
  EXPECT_EQ(g().find_by_key(name_key("кафе")), (std::vector<std::string>{"uni"}));
  auto r = find_rel(g(), evil, "uni", "uses");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->evidence.size(), 1u);
  EXPECT_EQ(r->evidence[0].sentence, evil2);
  EXPECT_EQ(r->evidence[0].doc_id, "d\"1");
  EXPECT_EQ(g().mentions_of("uni")[0].surface, "注意力");
  g().remove_document("d\"1");
  EXPECT_FALSE(g().entity(evil));
  EXPECT_FALSE(g().entity("uni"));
  EXPECT_TRUE(g().entity("keep"));
  EXPECT_EQ(g().stats().entities, 1);
}

TEST_P(GraphStoreConformance, LargeBatchesInOneUpsert) {
  const int n = 5000;
  GraphDelta d;
  for (int i = 0; i < n; ++i) {
    const std::string id = "e" + std::to_string(100000 + i);
    d.entities.push_back(ent(id, "Entity " + std::to_string(i), {"alias " + std::to_string(i)}, i * 0.001));
    d.mentions.push_back(men(id, "c" + std::to_string(i % 100), "doc" + std::to_string(i % 10)));
    if (i > 0)
      d.relations.push_back(rel("e" + std::to_string(100000 + i - 1), id, "co_occurs", 1,
                                {ev("c" + std::to_string(i % 100), "doc" + std::to_string(i % 10), "s")}));
  }
  g().upsert(d);
  auto st = g().stats();
  EXPECT_EQ(st.entities, n);
  EXPECT_EQ(st.aliases, 2 * n);
  EXPECT_EQ(st.mentions, n);
  EXPECT_EQ(st.relations, n - 1);
  auto es = g().entities();
  ASSERT_EQ(es.size(), static_cast<size_t>(n));
  EXPECT_EQ(es.front().id, "e100000");
  EXPECT_EQ(es.back().aliases.back(), "alias 4999");
  EXPECT_EQ(g().find_by_key("alias 4321"), (std::vector<std::string>{"e104321"}));
  EXPECT_EQ(g().relations().size(), static_cast<size_t>(n - 1));
  EXPECT_EQ(g().mentions().size(), static_cast<size_t>(n));
  // Removing one document takes a tenth of the mentions and the entities only it mentioned.
  g().remove_document("doc3");
  EXPECT_EQ(g().stats().entities, n - n / 10);
  EXPECT_EQ(g().stats().mentions, n - n / 10);
}

TEST_P(GraphStoreConformance, ChunkVectorsAreSearchableAndRemovedWithTheirDocument) {
  if (!g().supports_vector_search()) {
    g().upsert_chunks({ChunkNode{"c1", "d1", {1, 0, 0}}});
    EXPECT_TRUE(g().vector_search({1, 0, 0}, 3).empty()) << "without vector support the search is empty";
    return;  // the mmkg store's FAISS index serves dense search for this backend
  }
  EXPECT_TRUE(g().vector_search({1, 0, 0, 0}, 3).empty()) << "no vectors yet";
  g().upsert({{ent("a", "A")}, {men("a", "d1c1", "d1")}, {}});
  g().upsert_chunks({ChunkNode{"d1c1", "d1", {1, 0, 0, 0}}, ChunkNode{"d1c2", "d1", {0.8f, 0.6f, 0, 0}},
                     ChunkNode{"d2c1", "d2", {0, 1, 0, 0}}, ChunkNode{"d2c2", "d2", {-1, 0, 0, 0}},
                     ChunkNode{"d2c3", "d2", {}}});
  auto hits = g().vector_search({2, 0, 0, 0}, 3);
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_EQ(hits[0].first, "d1c1");
  EXPECT_NEAR(hits[0].second, 1.0, 1e-4) << "scores are cosines, not Neo4j's (1+cos)/2";
  EXPECT_EQ(hits[1].first, "d1c2");
  EXPECT_NEAR(hits[1].second, 0.8, 1e-4);
  EXPECT_EQ(hits[2].first, "d2c1");
  EXPECT_NEAR(hits[2].second, 0.0, 1e-4);
  auto far = g().vector_search({2, 0, 0, 0}, 10);
  ASSERT_EQ(far.size(), 4u) << "a chunk without a vector is not in the index";
  EXPECT_NEAR(far[3].second, -1.0, 1e-4);
  // Replacing a chunk's vector.
  g().upsert_chunks({ChunkNode{"d2c1", "d2", {1, 0.01f, 0, 0}}});
  EXPECT_EQ(g().vector_search({1, 0, 0, 0}, 2)[1].first, "d2c1");
  EXPECT_THROW(g().vector_search({1, 0, 0}, 3), UsageError);
  EXPECT_THROW(g().upsert_chunks({ChunkNode{"x", "d3", {1, 0, 0}}}), UsageError);
  g().remove_document("d1");
  auto left = g().vector_search({1, 0, 0, 0}, 10);
  ASSERT_EQ(left.size(), 2u);
  for (const auto& [id, score] : left) EXPECT_EQ(id.substr(0, 2), "d2");
  EXPECT_FALSE(g().entity("a"));
}

ChunkNode text_chunk(const std::string& id, const std::string& doc, const std::string& heading,
                     const std::string& text, const std::string& context = "") {
  return ChunkNode{id, doc, {}, heading, text, context};
}

std::vector<std::string> hit_ids(const std::vector<std::pair<std::string, double>>& hits) {
  std::vector<std::string> out;
  for (const auto& h : hits) out.push_back(h.first);
  return out;
}

TEST_P(GraphStoreConformance, ChunkTextIsSearchableAndRemovedWithItsDocument) {
  if (!g().supports_text_search()) {
    g().upsert_chunks({text_chunk("c1", "d1", "", "The platypus lays eggs.")});
    EXPECT_TRUE(g().text_search("\"platypus\"", 3).empty()) << "without text support the search is empty";
    return;  // the mmkg store's FTS5 index serves lexical search for this backend
  }
  EXPECT_TRUE(g().text_search("\"platypus\"", 3).empty()) << "no text yet";
  g().upsert({{ent("a", "A")}, {men("a", "d1c1", "d1")}, {}});  // the node made by a mention first
  g().upsert_chunks({text_chunk("d1c1", "d1", "Mammals", "The platypus lays eggs, though it is a mammal.", "monotremes"),
                     text_chunk("d1c2", "d1", "Echidna", "It has spines and a long snout.", "monotremes"),
                     text_chunk("d2c1", "d2", "Spines", "Hedgehogs curl up; an echidna does not.", "garden animals"),
                     text_chunk("d2c2", "d2", "", "Birds lay eggs in nests (\"real\" ones).", "garden animals"),
                     ChunkNode{"d2c3", "d2", {1, 0, 0, 0}}});
  EXPECT_EQ(hit_ids(g().text_search("\"platypus\"", 5)), (std::vector<std::string>{"d1c1"}));
  // Stemmed as FTS5's porter tokenizer stems: "laying" finds "lays" and "lay".
  auto eggs = hit_ids(g().text_search("\"laying\"", 5));
  std::sort(eggs.begin(), eggs.end());
  EXPECT_EQ(eggs, (std::vector<std::string>{"d1c1", "d2c2"}));
  // The heading is searched too ("echidna" is d1c2's heading, in d2c1's text); best first.
  auto echidna = g().text_search("\"echidna\"", 5);
  auto found = hit_ids(echidna);
  std::sort(found.begin(), found.end());
  ASSERT_EQ(found, (std::vector<std::string>{"d1c2", "d2c1"}));
  EXPECT_GE(echidna[0].second, echidna[1].second);
  EXPECT_GT(echidna[1].second, 0.0) << "scores are positive, higher is better";
  // The document context, AND, NEAR, phrases and characters Lucene would read as syntax.
  EXPECT_EQ(hit_ids(g().text_search("\"monotremes\" AND \"snout\"", 5)), (std::vector<std::string>{"d1c2"}));
  EXPECT_EQ(hit_ids(g().text_search("NEAR(\"eggs\" \"platypus\", 2)", 5)), (std::vector<std::string>{"d1c1"}));
  EXPECT_TRUE(g().text_search("NEAR(\"platypus\" \"mammal\", 2)", 5).empty()) << "5 words apart";
  EXPECT_EQ(hit_ids(g().text_search("\"garden animals\" NOT \"birds\"", 5)), (std::vector<std::string>{"d2c1"}));
  EXPECT_EQ(hit_ids(g().text_search("\"\"\"real\"\" ones)\" OR \"curl: up*\"", 5)).size(), 2u);
  EXPECT_EQ(g().text_search("\"eggs\" OR \"spines\" OR \"snout\"", 2).size(), 2u) << "k";
  EXPECT_THROW(g().text_search("heading_path: \"eggs\"", 5), UsageError);
  EXPECT_TRUE(g().text_search("", 5).empty());
  // Replacing a chunk's text; its vector stays when the new node gives none.
  g().upsert_chunks({text_chunk("d1c1", "d1", "Mammals", "Platypuses hunt under water.", "monotremes")});
  EXPECT_TRUE(g().text_search("\"eggs\" AND \"platypus\"", 5).empty());
  EXPECT_EQ(hit_ids(g().text_search("\"water\"", 5)), (std::vector<std::string>{"d1c1"}));
  g().upsert_chunks({text_chunk("d2c3", "d2", "", "Vectors and words.")});
  EXPECT_EQ(hit_ids(g().vector_search({1, 0, 0, 0}, 1)), (std::vector<std::string>{"d2c3"}));
  g().remove_document("d1");
  EXPECT_TRUE(g().text_search("\"water\" OR \"snout\" OR \"monotremes\"", 5).empty());
  EXPECT_EQ(hit_ids(g().text_search("\"echidna\"", 5)), (std::vector<std::string>{"d2c1"}));
}

INSTANTIATE_TEST_SUITE_P(GraphStore, GraphStoreConformance, ::testing::Values("sqlite", "neo4j"),
                         [](const auto& info) { return info.param; });

// ---- backend-specific

TEST(GraphStoreSqlite, WritesJoinTheCallersTransaction) {
  TempDir dir;
  auto store = Store::open(dir.str());
  auto g = make_sqlite_graph_store(store->db());
  {
    Transaction tx(store->db());
    g->upsert({{ent("a", "A")}, {}, {}});
    EXPECT_EQ(g->stats().entities, 1) << "visible inside the transaction";
  }  // rolled back
  EXPECT_EQ(g->stats().entities, 0);
  {
    Transaction tx(store->db());
    g->upsert({{ent("a", "A")}, {}, {}});
    tx.commit();
  }
  EXPECT_EQ(g->stats().entities, 1);
  // Without a transaction each call commits on its own, and the data is in the file.
  g->upsert({{ent("b", "B")}, {}, {}});
  g.reset();
  store.reset();
  auto again = Store::open(dir.str());
  EXPECT_EQ(make_sqlite_graph_store(again->db())->stats().entities, 2);
}

TEST(GraphStoreSqlite, AFailedWriteInsideTheCallersTransactionLeavesItsOtherWork) {
  TempDir dir;
  auto store = Store::open(dir.str());
  auto g = make_sqlite_graph_store(store->db());
  Transaction tx(store->db());
  g->upsert({{ent("a", "A")}, {}, {}});
  Stmt(store->db(), "DROP TABLE graph_evidence").run();  // make the next relation write fail
  EXPECT_THROW(g->upsert({{ent("b", "B")}, {}, {rel("a", "b", "uses", 1, {ev("c", "d", "s")})}}), Error);
  EXPECT_TRUE(g->entity("a"));
  EXPECT_FALSE(g->entity("b")) << "the failed upsert was rolled back to its savepoint";
}

TEST(GraphStoreSqlite, RefusesANewerGraphSchema) {
  TempDir dir;
  auto store = Store::open(dir.str());
  make_sqlite_graph_store(store->db());
  Stmt(store->db(), "UPDATE graph_meta SET value = '99' WHERE key = 'schema_version'").run();
  try {
    make_sqlite_graph_store(store->db());
    FAIL() << "a newer schema was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 99"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("upgrade mmkg"), std::string::npos) << e.what();
  }
}

TEST(GraphStoreSqlite, MigratesAVersion1GraphKeepingItsRelations) {
  TempDir dir;
  auto store = Store::open(dir.str());
  make_sqlite_graph_store(store->db())->upsert(
      {{ent("a", "A"), ent("b", "B")}, {}, {rel("a", "b", "uses", 1, {ev("c1", "d1", "A uses B.")})}});
  // What version 1 looked like: no description column, no figure tables (version 3).
  Stmt(store->db(), "ALTER TABLE graph_relations DROP COLUMN description").run();
  Stmt(store->db(), "DROP TABLE graph_depicts").run();
  Stmt(store->db(), "DROP TABLE graph_figures").run();
  Stmt(store->db(), "UPDATE graph_meta SET value = '1' WHERE key = 'schema_version'").run();
  auto g = make_sqlite_graph_store(store->db());
  Stmt v(store->db(), "SELECT value FROM graph_meta WHERE key = 'schema_version'");
  ASSERT_TRUE(v.step());
  EXPECT_EQ(v.text(0), std::to_string(detail::kGraphSchemaVersion)) << "migrated to the current version";
  auto r = find_rel(*g, "a", "b", "uses");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->description, "");
  EXPECT_EQ(r->evidence.size(), 1u);
  Relation d = rel("a", "b", "uses", 1, {ev("c2", "d1", "A uses B well.")});
  d.description = "A uses B.";
  g->upsert({{}, {}, {d}});
  EXPECT_EQ(find_rel(*g, "a", "b", "uses")->description, "A uses B.");
}

TEST(GraphStoreSqlite, MigratesVersion4EvidenceToRowsKeyedByTheSentenceHash) {
  TempDir dir;
  auto store = Store::open(dir.str());
  make_sqlite_graph_store(store->db())->upsert({{ent("a", "A"), ent("b", "B")}, {}, {rel("a", "b", "uses", 0, {})}});
  // Version 4's evidence table, unique by the sentence itself, with two rows of one relation.
  Stmt(store->db(), "DROP TABLE graph_evidence").run();
  Stmt(store->db(),
       "CREATE TABLE graph_evidence(seq INTEGER PRIMARY KEY, rel_id INTEGER NOT NULL, chunk_id TEXT NOT NULL, "
       "doc_id TEXT NOT NULL, sentence TEXT NOT NULL, weight REAL NOT NULL, UNIQUE(rel_id, chunk_id, sentence))")
      .run();
  Stmt(store->db(),
       "INSERT INTO graph_evidence(seq, rel_id, chunk_id, doc_id, sentence, weight) SELECT 7, id, 'c2', 'd1', "
       "'A uses B again.', 2 FROM graph_relations UNION ALL SELECT 9, id, 'c1', 'd1', 'A uses B.', 1 FROM graph_relations")
      .run();
  Stmt(store->db(), "UPDATE graph_relations SET weight = 3").run();
  Stmt(store->db(), "UPDATE graph_meta SET value = '4' WHERE key = 'schema_version'").run();

  auto g = make_sqlite_graph_store(store->db());
  Stmt cols(store->db(), "SELECT count(*) FROM pragma_table_info('graph_evidence') WHERE name = 'sentence_hash'");
  ASSERT_TRUE(cols.step());
  EXPECT_EQ(cols.i64(0), 1);
  auto r = find_rel(*g, "a", "b", "uses");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->evidence.size(), 2u);
  EXPECT_EQ(r->evidence[0].sentence, "A uses B again.") << "the rows keep their order";
  EXPECT_EQ(r->evidence[1].chunk_id, "c1");
  // The same sentence again adds its weight to the migrated row; a new one adds a row.
  g->upsert({{}, {}, {rel("a", "b", "uses", 1, {ev("c1", "d1", "A uses B.")})}});
  g->upsert({{}, {}, {rel("a", "b", "uses", 1, {ev("c1", "d1", "B is used by A.")})}});
  r = find_rel(*g, "a", "b", "uses");
  EXPECT_EQ(r->evidence.size(), 3u);
  EXPECT_DOUBLE_EQ(r->weight, 5.0);
  Stmt w(store->db(), "SELECT weight FROM graph_evidence WHERE chunk_id = 'c1' AND sentence = 'A uses B.'");
  ASSERT_TRUE(w.step());
  EXPECT_DOUBLE_EQ(w.f64(0), 2.0);
  // Removing the document takes exactly its evidence weight away.
  g->remove_document("d1");
  EXPECT_FALSE(find_rel(*g, "a", "b", "uses"));
}

TEST(GraphStoreDispatch, GraphUrlForms) {
  auto t = parse_neo4j_url("neo4j://neo4j:s%40cret@db.example:7474/graph");
  EXPECT_EQ(t.base, "http://db.example:7474");
  EXPECT_EQ(t.db, "graph");
  EXPECT_EQ(t.authorization, "Authorization: Basic bmVvNGo6c0BjcmV0");  // neo4j:s@cret
  EXPECT_EQ(t.shown.find("cret"), std::string::npos);
  t = parse_neo4j_url("neo4j://localhost");
  EXPECT_EQ(t.base, "http://localhost:7474");
  EXPECT_EQ(t.db, "neo4j");
  EXPECT_TRUE(t.authorization.empty());
  t = parse_neo4j_url("https://u:p@[::1]:7473/?batch=10");
  EXPECT_EQ(t.base, "https://[::1]:7473");
  EXPECT_EQ(t.db, "neo4j");
  EXPECT_EQ(t.batch, 10);
  EXPECT_THROW(parse_neo4j_url("neo4j://h:1/a/b"), UsageError);
  EXPECT_THROW(parse_neo4j_url("ftp://h"), UsageError);
}

TEST(GraphStoreDispatch, AnUnreachableServerFailsWithoutShowingCredentials) {
  try {
    make_neo4j_graph_store("http://neo4j:t0psecret@127.0.0.1:1");
    FAIL() << "no error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_EQ(m.find("t0psecret"), std::string::npos) << m;
    EXPECT_NE(m.find("cannot connect"), std::string::npos) << m;
    EXPECT_NE(m.find("start Neo4j"), std::string::npos) << m;
  }
}

class GraphStoreNeo4j : public ::testing::Test {
 protected:
  void SetUp() override { MMKG_REQUIRE_NEO4J(url_); }
  std::string url_;
};

TEST_F(GraphStoreNeo4j, ErrorsInsideA202BodyAreErrors) {
  Neo4jClient c(parse_neo4j_url(url_));
  EXPECT_EQ(c.run("RETURN $x AS x", {{"x", 41}}).rows[0][0], 41);
  try {
    c.run("UNWIND [1, 0] AS x RETURN 1 / x");
    FAIL() << "a division by zero after the first row was not reported";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ArithmeticError"), std::string::npos) << e.what();
  }
  EXPECT_THROW(c.run("RETURN 1 +"), Error);
}

TEST_F(GraphStoreNeo4j, Neo4jSchemeAndCredentialsReachTheHttpPort) {
  // The test server has authentication disabled: credentials are sent and ignored.
  ASSERT_EQ(url_.rfind("http://", 0), 0u) << url_;
  auto g = make_neo4j_graph_store("neo4j://neo4j:pw@" + url_.substr(7) + "/neo4j");
  EXPECT_EQ(g->backend(), Backend::Neo4j);
  EXPECT_GE(g->stats().entities, 0);
}

TEST_F(GraphStoreNeo4j, WrongDatabaseAndNewerSchemaAreRefusedClearly) {
  try {
    make_neo4j_graph_store(url_ + "/nosuchdb");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
  make_neo4j_graph_store(url_);
  Neo4jClient c(parse_neo4j_url(url_));
  c.run("MATCH (m:MmkgGraphMeta {key: 'graph'}) SET m.schema_version = 99");
  EXPECT_THROW(make_neo4j_graph_store(url_), UsageError);
  c.run("MATCH (m:MmkgGraphMeta {key: 'graph'}) SET m.schema_version = 1");
  EXPECT_NO_THROW(make_neo4j_graph_store(url_));
}

TEST_F(GraphStoreNeo4j, AVersion3GraphWithChunkNodesWaitsForTheirText) {
  auto g = make_neo4j_graph_store(url_);
  g->clear();
  EXPECT_FALSE(g->chunk_text_pending());
  Neo4jClient c(parse_neo4j_url(url_));
  c.run("DROP INDEX mmkg_chunk_text IF EXISTS");
  c.run("CREATE (:Chunk {id: 'old1', doc_id: 'd1'})");  // what version 3 stored: no text
  c.run("MATCH (m:MmkgGraphMeta {key: 'graph'}) SET m.schema_version = 3");
  g = make_neo4j_graph_store(url_);
  EXPECT_EQ(c.run("MATCH (m:MmkgGraphMeta {key: 'graph'}) RETURN m.schema_version").rows[0][0],
            detail::kGraphSchemaVersion);
  EXPECT_EQ(c.run("SHOW INDEXES YIELD name, type WHERE name = 'mmkg_chunk_text' RETURN type").rows[0][0], "FULLTEXT");
  EXPECT_TRUE(g->chunk_text_pending());
  EXPECT_TRUE(make_neo4j_graph_store(url_)->chunk_text_pending()) << "remembered in the graph";
  g->upsert_chunks({ChunkNode{"old1", "d1", {}, "", "The platypus lays eggs.", ""}});
  g->chunk_text_restored();
  EXPECT_FALSE(make_neo4j_graph_store(url_)->chunk_text_pending());
  EXPECT_EQ(hit_ids(g->text_search("\"platypus\"", 3)), (std::vector<std::string>{"old1"}));
  // A version 3 graph without chunk nodes has nothing to wait for.
  g->clear();
  c.run("MATCH (m:MmkgGraphMeta {key: 'graph'}) SET m.schema_version = 3");
  EXPECT_FALSE(make_neo4j_graph_store(url_)->chunk_text_pending());
}

}  // namespace
}  // namespace mmkg::graph
