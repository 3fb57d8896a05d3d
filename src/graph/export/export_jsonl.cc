// JSON lines: one object per entity, relation, community and figure (fields in docs/JSON.md).
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>

#include "graph/export/exporter.h"

namespace mmkg::graph {

namespace {

using nlohmann::json;

class JsonlExporter final : public Exporter {
 public:
  std::string name() const override { return "jsonl"; }
  std::string description() const override {
    return "one JSON object per entity, relation, community and figure";
  }
  void write(const GraphDump& g, std::ostream& out) const override {
    std::map<std::string, std::vector<const Mention*>> by_entity;
    for (const auto& m : g.mentions) by_entity[m.entity_id].push_back(&m);
    for (const auto& e : g.entities) {
      json ms = json::array();
      for (const auto* m : by_entity[e.id])
        ms.push_back({{"chunk_id", m->chunk_id}, {"doc_id", m->doc_id}, {"surface", m->surface}, {"count", m->count}});
      out << json({{"kind", "entity"}, {"id", e.id}, {"name", e.name}, {"type", e.type},
                   {"description", e.description}, {"aliases", e.aliases}, {"score", e.score}, {"mentions", ms}})
                 .dump()
          << "\n";
    }
    for (const auto& r : g.relations) {
      json ev = json::array();
      for (const auto& x : r.evidence) ev.push_back({{"chunk_id", x.chunk_id}, {"doc_id", x.doc_id}, {"sentence", x.sentence}});
      out << json({{"kind", "relation"}, {"src", r.src}, {"dst", r.dst}, {"type", r.type}, {"weight", r.weight},
                   {"description", r.description}, {"evidence", ev}})
                 .dump()
          << "\n";
    }
    for (const auto& cm : g.communities)
      out << json({{"kind", "community"}, {"id", cm.id}, {"level", cm.level}, {"title", cm.title},
                   {"summary", cm.summary}, {"entities", cm.entity_ids}, {"chunks", cm.chunk_ids}})
                 .dump()
          << "\n";
    // "type" is figure or table, as an entity's or relation's "type" is its sub-kind; "entities"
    // are the DEPICTS links, in their order.
    for (const auto& f : g.figures)
      out << json({{"kind", "figure"}, {"id", f.id}, {"type", figure_kind_name(f.kind)}, {"doc_id", f.doc_id},
                   {"chunk_id", f.chunk_id}, {"page", f.page}, {"label", f.label}, {"caption", f.caption},
                   {"entities", f.entity_ids}})
                 .dump(-1, ' ', false, json::error_handler_t::replace)
          << "\n";
  }
};

}  // namespace

const Exporter& jsonl_exporter() {
  static const JsonlExporter e;
  return e;
}

}  // namespace mmkg::graph
