// The Cypher export (graph/export) loaded into a real Neo4j reads back through the Neo4j graph
// store (graph/stores) as the same figures: the two share one model.
#include <gtest/gtest.h>

#include <sstream>

#include "graph/model/graph_store.h"
#include "net/neo4j_query.h"
#include "support/graph_dump_fixtures.h"
#include "support/neo4j_server.h"

namespace mmkg::graph {
namespace {

using namespace graph_dump_fixture;

class GraphExportNeo4j : public ::testing::Test {
 protected:
  void SetUp() override { MMKG_REQUIRE_NEO4J(url_); }
  std::string url_;
};

TEST_F(GraphExportNeo4j, TheCypherExportLoadsBackAsTheSameFigures) {
  auto g = make_neo4j_graph_store(url_);
  g->clear();
  const GraphDump dump = small_graph();
  Neo4jClient c(parse_neo4j_url(url_));
  std::istringstream in(write("cypher", dump));
  for (std::string line; std::getline(in, line);) c.run(line);
  // The export's model is the store's: the store reads what the export wrote.
  auto f = g->figure("f1");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->caption, dump.figures[0].caption);
  EXPECT_EQ(f->page, 3);
  EXPECT_EQ(f->entity_ids, (std::vector<std::string>{"eb", "ea"}));
  EXPECT_EQ(g->figures_of_entity("ea", 10).size(), 1u);
  auto t = g->figure("t1");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->kind, FigureKind::Table);
  EXPECT_TRUE(t->entity_ids.empty());
  EXPECT_EQ(g->stats().figures, 2);
  EXPECT_EQ(c.run("MATCH (:Figure {id: 'f1'})-[:IN_CHUNK]->(k:Chunk {id: 'd1c2'}) RETURN count(k)").rows[0][0], 1);
  g->clear();
}

}  // namespace
}  // namespace mmkg::graph
