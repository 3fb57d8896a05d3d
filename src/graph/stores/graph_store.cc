// The backends' names and the delta normalisation they share. (--graph is parsed in one place,
// app/config.cc's GraphBackend::parse, which chooses the factory.)
#include "graph/model/graph_store.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "graph/stores/graph_store_impl.h"

namespace mmkg::graph {

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::Sqlite: return "sqlite";
    case Backend::Neo4j: return "neo4j";
    case Backend::Memory: return "memory";
  }
  return "sqlite";
}

namespace detail {

std::vector<Entity> merge_entities(const std::vector<Entity>& in) {
  std::vector<Entity> out;
  std::unordered_map<std::string, size_t> at;
  auto add_alias = [](Entity& e, const std::string& a) {
    if (a.empty()) return;
    for (const auto& x : e.aliases)
      if (x == a) return;
    e.aliases.push_back(a);
  };
  for (const auto& e : in) {
    auto [it, fresh] = at.emplace(e.id, out.size());
    if (fresh) {
      Entity n = e;
      n.aliases.clear();
      add_alias(n, e.name);
      for (const auto& a : e.aliases) add_alias(n, a);
      out.push_back(std::move(n));
      continue;
    }
    Entity& m = out[it->second];
    add_alias(m, e.name);
    for (const auto& a : e.aliases) add_alias(m, a);
    if (e.score > m.score) m.score = e.score;
    if (m.description.empty()) m.description = e.description;
    if (untyped(m.type)) m.type = e.type;
  }
  return out;
}

std::vector<Mention> merge_mentions(const std::vector<Mention>& in) {
  std::vector<Mention> out;
  std::map<std::pair<std::string, std::string>, size_t> at;
  for (const auto& m : in) {
    auto [it, fresh] = at.emplace(std::make_pair(m.entity_id, m.chunk_id), out.size());
    if (fresh) out.push_back(m);
    else out[it->second].count += m.count;
  }
  return out;
}

std::vector<RelationWrite> merge_relations(const std::vector<Relation>& in) {
  std::vector<RelationWrite> out;
  std::map<std::tuple<std::string, std::string, std::string>, size_t> at;
  for (const auto& r : in) {
    std::string src = r.src, dst = r.dst;
    if (symmetric_relation(r.type) && dst < src) std::swap(src, dst);
    auto [it, fresh] = at.emplace(std::make_tuple(src, dst, r.type), out.size());
    if (fresh) out.push_back(RelationWrite{src, dst, r.type, 0, {}});
    RelationWrite& w = out[it->second];
    w.weight += r.weight;
    if (w.description.empty()) w.description = r.description;
    const double share = r.evidence.empty() ? 0 : r.weight / static_cast<double>(r.evidence.size());
    for (const auto& ev : r.evidence) {
      bool merged = false;
      for (auto& have : w.evidence) {
        if (have.ev.chunk_id == ev.chunk_id && have.ev.sentence == ev.sentence) {
          have.weight += share;
          merged = true;
          break;
        }
      }
      if (!merged) w.evidence.push_back({ev, share});
    }
  }
  return out;
}

std::vector<FigureNode> merge_figures(const std::vector<FigureNode>& in) {
  std::vector<FigureNode> out;
  std::unordered_map<std::string, size_t> at;
  for (const auto& f : in) {
    auto [it, fresh] = at.emplace(f.id, out.size());
    if (fresh) out.push_back(f);
    else out[it->second] = f;
  }
  for (auto& f : out) {
    std::vector<std::string> ids;
    for (const auto& e : f.entity_ids)
      if (!e.empty() && std::find(ids.begin(), ids.end(), e) == ids.end()) ids.push_back(e);
    f.entity_ids = std::move(ids);
  }
  return out;
}

}  // namespace detail

}  // namespace mmkg::graph
