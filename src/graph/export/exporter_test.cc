// The exporters on a small graph with figures: each format carries the figure nodes and their
// DEPICTS links (app/graph_export_neo4j_test.cc loads the Cypher export into a real Neo4j).
// tests/e2e/test_graph.py exports a whole ingested corpus.
#include "graph/export/exporter.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "support/graph_dump_fixtures.h"

namespace mmkg::graph {
namespace {

using json = nlohmann::json;
using namespace graph_dump_fixture;


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

}  // namespace
}  // namespace mmkg::graph
