// Session: the graph commands (entity, neighbors, export).
#include <algorithm>
#include <map>
#include <ostream>
#include <string_view>
#include <unordered_set>

#include "app/session.h"
#include "agents/graph_retriever.h"
#include "core/error.h"
#include "embed/embedder.h"
#include "graph/export/exporter.h"
#include "graph/resolve/resolve.h"

namespace mmkg {

namespace {

graph::GraphStore& require_graph(graph::GraphStore* gs) {
  if (!gs) throw UsageError("the graph is disabled (--graph none); use --graph sqlite or a Neo4j URL");
  return *gs;
}

// The entity NAME names (its id, as the neighbours' "id" give it; then exact, alias, fuzzy,
// embedding); throws when none.
graph::Entity find_entity(graph::GraphStore& gs, graph::EntityIndex& index, const std::string& name) {
  if (name.size() > 8 && name[0] == 'e' && name.find_first_not_of("0123456789abcdef", 1) == std::string::npos)
    if (auto e = gs.entity(name)) return *e;
  auto hits = index.lookup(name, 1);
  if (hits.empty() && gs.stats().entities == 0)
    throw Error("the knowledge graph is empty; `mmkg ingest` builds it (unless run with --extract none)");
  if (hits.empty()) throw NotFoundError("no entity matches \"" + name + "\"; `mmkg graph export --format jsonl` lists them all");
  auto e = gs.entity(hits[0].entity_id);
  if (!e) throw Error("entity " + hits[0].entity_id + " vanished while reading; run the command again");
  return *e;
}

}  // namespace

EntityReport Session::graph_entity(const std::string& name, bool with_evidence, int limit) {
  graph::GraphStore& gs = require_graph(graph_store());
  // Lookup works without embeddings too (exact, alias, fuzzy).
  Embedder* emb = nullptr;
  try {
    emb = embedder().get();
  } catch (const Error&) {
  }
  auto index = graph::EntityIndex::build(gs, graph::make_embed_names(store(), emb));
  EntityReport rep;
  rep.entity = find_entity(gs, *index, name);
  const graph::Entity& e = rep.entity;
  rep.mentions = gs.mentions_of(e.id).size();
  std::map<std::string, std::string> names;
  auto name_of = [&](const std::string& id) {
    auto it = names.find(id);
    if (it != names.end()) return it->second;
    auto x = gs.entity(id);
    return names[id] = x ? x->name : id;
  };
  for (const auto& r : gs.relations_of(e.id, limit)) {
    EntityNeighbor n;
    n.outgoing = r.src == e.id;
    n.id = n.outgoing ? r.dst : r.src;
    n.name = name_of(n.id);
    n.relation = r.type;
    n.weight = r.weight;
    n.description = r.description;
    if (with_evidence)
      for (const auto& x : r.evidence) {
        auto ch = store().chunk(x.chunk_id);
        n.evidence.push_back({x.chunk_id, ch ? ch->doc_name : "", x.sentence, ch ? ch->chunk.page_start : 0});
      }
    rep.neighbors.push_back(std::move(n));
  }
  // A handful is enough to point at; `mmkg graph export` lists them all.
  constexpr int kFigures = 10;
  std::map<std::string, std::string> doc_names;
  for (const auto& f : gs.figures_of_entity(e.id, kFigures)) {
    auto it = doc_names.find(f.doc_id);
    if (it == doc_names.end()) {
      auto d = store().find_by_id(f.doc_id);
      it = doc_names.emplace(f.doc_id, d ? d->name : f.doc_id).first;
    }
    rep.figures.push_back({f.id, it->second, f.label, f.kind, f.caption, f.page});
  }
  return rep;
}

GraphOverview Session::graph_overview(int page, int per_page) {
  if (per_page < 1 || per_page > 200) throw UsageError("--per-page must be 1 to 200 (got " + std::to_string(per_page) + ")");
  if (page < 1) throw UsageError("--page must be 1 or more (got " + std::to_string(page) + ")");
  require_graph(graph_store());
  GraphOverview ov;
  ov.per_page = per_page;
  GraphContext* gc = graph_context();
  if (!gc || gc->empty()) return ov;
  const graph::GraphSnapshot& g = gc->snapshot();
  const std::vector<GraphContext::Connected>& all = gc->by_connection();
  ov.entities = all.size();
  ov.pages = static_cast<int>((all.size() + static_cast<size_t>(per_page) - 1) / static_cast<size_t>(per_page));
  ov.page = std::min(page, std::max(ov.pages, 1));
  const size_t from = static_cast<size_t>(ov.page - 1) * static_cast<size_t>(per_page);
  for (size_t i = from; i < all.size() && i < from + static_cast<size_t>(per_page); ++i) {
    const graph::Entity& e = g.entities[all[i].entity];
    ov.nodes.push_back({e.id, e.name, e.type, all[i].degree, all[i].mentions});
  }
  std::unordered_set<std::string_view> shown;
  for (const auto& n : ov.nodes) shown.insert(n.id);
  for (const auto& r : g.relations)
    if (r.src != r.dst && shown.count(r.src) && shown.count(r.dst)) ov.links.push_back({r.src, r.dst, r.type, r.weight});
  std::stable_sort(ov.links.begin(), ov.links.end(),
                   [](const GraphOverview::Link& a, const GraphOverview::Link& b) { return a.weight > b.weight; });
  if (ov.links.size() > 3 * ov.nodes.size()) ov.links.resize(3 * ov.nodes.size());
  return ov;
}

void Session::graph_export(const std::string& format, std::ostream& out) {
  const graph::Exporter& ex = graph::find_exporter(format);  // UsageError before any reading
  ex.write(graph::dump_graph(require_graph(graph_store())), out);
  out.flush();
  if (!out) throw IOError("writing the export failed (disk full?)");
}

std::vector<std::string> Session::export_formats() { return graph::exporter_names(); }

}  // namespace mmkg
