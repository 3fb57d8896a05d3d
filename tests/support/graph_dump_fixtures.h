// A small graph dump with a figure and a table, and its export as text, for the exporters'
// tests (graph/export) and the Cypher export loaded into Neo4j (header-only).
#pragma once

#include <sstream>
#include <string>

#include "graph/export/exporter.h"

namespace mmkg::graph::graph_dump_fixture {

// Two entities related and mentioned in d1; a figure depicting both (its caption with quotes and
// a line break, the awkward cases of each format) and a table with nothing to link.
inline GraphDump small_graph() {
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
  g.figures = {FigureNode{"f1", "d1", "d1c2", FigureKind::Figure, "Figure 1", "Figure 1: \"Attention\" & <BLEU>\nit's good.",
                          3, {"eb", "ea"}},
               FigureNode{"t1", "d1", "", FigureKind::Table, "", "", 0, {}}};
  return g;
}

inline std::string write(const std::string& format, const GraphDump& g) {
  std::ostringstream out;
  find_exporter(format).write(g, out);
  return out.str();
}

}  // namespace mmkg::graph::graph_dump_fixture
