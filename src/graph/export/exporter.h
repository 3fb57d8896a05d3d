// Graph export (entities, relations, mentions, communities, figures with their DEPICTS links):
// one Exporter per format, found by name in a registry (jsonl, graphml, cypher).
// Each backend in its own file (export_*.cc); adding a format is one file and one line in
// exporter.cc's registry.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "graph/model/graph_store.h"

namespace mmkg::graph {

/// The whole graph, read once from a GraphStore.
struct GraphDump {
  std::vector<Entity> entities;      ///< ordered by id
  std::vector<Relation> relations;   ///< ordered by (src, dst, type)
  std::vector<Mention> mentions;     ///< ordered by (entity_id, chunk_id)
  std::vector<Community> communities;
  std::vector<FigureNode> figures;   ///< ordered by id, each with the entities it depicts
};

/// Reads everything an exporter writes.
GraphDump dump_graph(GraphStore& store);

class Exporter {
 public:
  virtual ~Exporter() = default;
  /// The --format name ("jsonl").
  virtual std::string name() const = 0;
  /// One line for --help.
  virtual std::string description() const = 0;
  /// Writes `g` to `out`. Throws IOError when the stream fails.
  virtual void write(const GraphDump& g, std::ostream& out) const = 0;
};

/// The exporter named `name`; throws UsageError naming the formats there are.
const Exporter& find_exporter(const std::string& name);
/// Every format's name, in registry order.
std::vector<std::string> exporter_names();

/// Backends (export_*.cc).
const Exporter& jsonl_exporter();
const Exporter& graphml_exporter();
const Exporter& cypher_exporter();

}  // namespace mmkg::graph
