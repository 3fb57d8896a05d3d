#include "graph/export/exporter.h"

#include "core/error.h"

namespace mmkg::graph {

namespace {

// The registry: every format, in the order --help lists them.
const std::vector<const Exporter*>& registry() {
  static const std::vector<const Exporter*> all = {&jsonl_exporter(), &graphml_exporter(), &cypher_exporter()};
  return all;
}

}  // namespace

GraphDump dump_graph(GraphStore& store) {
  GraphDump g;
  g.entities = store.entities();
  g.relations = store.relations();
  g.mentions = store.mentions();
  g.communities = store.communities();
  g.figures = store.figures();
  return g;
}

const Exporter& find_exporter(const std::string& name) {
  for (const Exporter* e : registry())
    if (e->name() == name) return *e;
  std::string names;
  for (const auto& n : exporter_names()) names += (names.empty() ? "" : ", ") + n;
  throw UsageError("unknown export format \"" + name + "\"; use " + names);
}

std::vector<std::string> exporter_names() {
  std::vector<std::string> out;
  for (const Exporter* e : registry()) out.push_back(e->name());
  return out;
}

}  // namespace mmkg::graph
