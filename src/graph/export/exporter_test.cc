// The exporters on a small graph with figures: each format carries the figure nodes and their
// DEPICTS links, and the Cypher export, loaded into a real Neo4j, reads back through the Neo4j
// graph store as the same figures. tests/e2e/test_graph.py exports a whole ingested corpus.
#include "graph/export/exporter.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "graph/stores/neo4j_query.h"
#include "support/neo4j_server.h"

namespace mmkg::graph {
namespace {

using json = nlohmann::json;
using mmkg::testing::Neo4jTestServer;

[[maybe_unused]] const Neo4jTestServer& kServer = Neo4jTestServer::instance();

// Two entities related and mentioned in d1; a figure depicting both (its caption with quotes and
// a line break, the awkward cases of each format) and a table with nothing to link.
GraphDump small_graph() {
  GraphDump g;
  Entity a;
  a.id = "ea";
  a.name = "Attention";
  a.aliases = {"Attention"};
  Entity b;
  b.id = "eb";
  b.name = "BLEU";
  b.aliases = {"BLEU"};
  g.entities = {a, b};
  g.relations = {Relation{"ea", "eb", "co_occurs", 1, {Evidence{"d1c1", "d1", "Attention and BLEU."}}, ""}};
  g.mentions = {Mention{"ea", "d1c1", "d1", "attention", 1}, Mention{"eb", "d1c1", "d1", "BLEU", 1}};
  g.figures = {FigureNode{"f1", "d1", "d1c2", "figure", "Figure 1", "Figure 1: \"Attention\" & <BLEU>\nit's good.",
                          3, {"eb", "ea"}},
               FigureNode{"t1", "d1", "", "table", "", "", 0, {}}};
  return g;
}

std::string write(const std::string& format, const GraphDump& g) {
  std::ostringstream out;
  find_exporter(format).write(g, out);
  return out.str();
}

TEST(GraphExport, JsonlHasAFigureObjectWithItsEntities) {
  std::istringstream in(write("jsonl", small_graph()));
  std::vector<json> figures;
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line);
    if (j["kind"] == "figure") figures.push_back(j);
  }
  ASSERT_EQ(figures.size(), 2u);
  const json& f = figures[0];
  EXPECT_EQ(f["id"], "f1");
  EXPECT_EQ(f["type"], "figure");
  EXPECT_EQ(f["doc_id"], "d1");
  EXPECT_EQ(f["chunk_id"], "d1c2");
  EXPECT_EQ(f["page"], 3);
  EXPECT_EQ(f["label"], "Figure 1");
  EXPECT_EQ(f["caption"], "Figure 1: \"Attention\" & <BLEU>\nit's good.");
  EXPECT_EQ(f["entities"], json::array({"eb", "ea"}));
  EXPECT_EQ(figures[1]["type"], "table");
  EXPECT_EQ(figures[1]["entities"], json::array());
}

TEST(GraphExport, GraphmlHasFigureNodesAndDepictsEdges) {
  const std::string x = write("graphml", small_graph());
  EXPECT_NE(x.find("<node id=\"f1\"><data key=\"name\">Figure 1</data><data key=\"type\">figure</data>"
                   "<data key=\"kind\">figure</data>"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("<data key=\"caption\">Figure 1: &quot;Attention&quot; &amp; &lt;BLEU&gt;\nit's good.</data>"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("<data key=\"page\">3</data>"), std::string::npos) << x;
  EXPECT_NE(x.find("<node id=\"t1\"><data key=\"name\">Table</data><data key=\"type\">table</data>"), std::string::npos)
      << x;
  EXPECT_NE(x.find("<edge id=\"d0\" source=\"f1\" target=\"eb\"><data key=\"rtype\">depicts</data>"), std::string::npos)
      << x;
  EXPECT_NE(x.find("<edge id=\"d1\" source=\"f1\" target=\"ea\">"), std::string::npos) << x;
  EXPECT_EQ(x.find("<edge id=\"d2\""), std::string::npos) << "the table depicts nothing";
  EXPECT_NE(x.find("<data key=\"kind\">entity</data>"), std::string::npos) << "entities say what they are too";
  // Every node a figure adds is declared before the edges that use it.
  EXPECT_LT(x.find("<node id=\"t1\""), x.find("<edge id=\"r0\""));
}

TEST(GraphExport, CypherMergesFiguresWithTheirLinksOneStatementPerLine) {
  const std::string x = write("cypher", small_graph());
  EXPECT_NE(x.find("CREATE CONSTRAINT mmkg_figure_id IF NOT EXISTS FOR (f:Figure) REQUIRE f.id IS UNIQUE;\n"),
            std::string::npos);
  EXPECT_NE(x.find("{id: 'f1', doc: 'd1', chunk: 'd1c2', kind: 'figure', label: 'Figure 1', caption: "
                   "'Figure 1: \"Attention\" & <BLEU>\\nit\\'s good.', page: 3, entities: ['eb', 'ea']}"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("MERGE (f)-[d:DEPICTS]->(e)"), std::string::npos);
  // The figures come after the entities they link to.
  EXPECT_LT(x.find("MERGE (e:Entity"), x.find("MERGE (f:Figure"));
}

TEST(GraphExport, AnEmptyGraphHasNoFigureStatements) {
  const std::string x = write("cypher", GraphDump{});
  EXPECT_EQ(x.find("MERGE (f:Figure"), std::string::npos);
  EXPECT_EQ(write("jsonl", GraphDump{}), "");
}

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
  EXPECT_EQ(t->kind, "table");
  EXPECT_TRUE(t->entity_ids.empty());
  EXPECT_EQ(g->stats().figures, 2);
  EXPECT_EQ(c.run("MATCH (:Figure {id: 'f1'})-[:IN_CHUNK]->(k:Chunk {id: 'd1c2'}) RETURN count(k)").rows[0][0], 1);
  g->clear();
}

}  // namespace
}  // namespace mmkg::graph
