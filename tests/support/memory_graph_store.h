// An in-memory GraphStore for unit tests only (header-only; not part of the library). It follows
// the merge rules of GraphDelta (graph_types.h) and GraphStore (graph_store.h): entities merge by
// id (aliases unioned, higher score kept, empty description filled; name and type kept), mentions
// of the same (entity, chunk) add their counts, relation evidence is appended and the weight grows,
// remove_document takes back exactly what the document contributed; the first non-empty relation
// description stays; figures are replaced by id, links to unknown entities dropped.
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "graph/model/graph_store.h"
#include "graph/resolve/resolve.h"

namespace mmkg::graph::testing {

class MemoryGraphStore : public GraphStore {
 public:
  Backend backend() const override { return Backend::Memory; }

  void upsert(const GraphDelta& delta) override {
    for (const Entity& e : delta.entities) {
      auto [it, fresh] = entities_.try_emplace(e.id, e);
      Entity& cur = it->second;
      if (!fresh) {
        cur.score = std::max(cur.score, e.score);
        if (cur.description.empty()) cur.description = e.description;
      } else {
        cur.aliases.clear();
      }
      add_alias(cur, cur.name);
      for (const std::string& a : e.aliases) add_alias(cur, a);
    }
    for (const Mention& m : delta.mentions) {
      auto [it, fresh] = mentions_.try_emplace({m.entity_id, m.chunk_id}, m);
      if (!fresh) it->second.count += m.count;
    }
    for (const Relation& r : delta.relations) {
      auto key = std::make_tuple(r.src, r.dst, r.type);
      auto [it, fresh] = relations_.try_emplace(key, Relation{r.src, r.dst, r.type, 0, {}, {}});
      Relation& cur = it->second;
      cur.weight += r.weight;
      if (cur.description.empty()) cur.description = r.description;
      for (const Evidence& ev : r.evidence) cur.evidence.push_back(ev);
      // Remember which document carried which weight (spread evenly over its evidence).
      if (!r.evidence.empty()) {
        for (const Evidence& ev : r.evidence) weight_by_doc_[{key, ev.doc_id}] += r.weight / r.evidence.size();
      }
    }
    for (FigureNode f : delta.figures) {
      std::vector<std::string> linked;
      for (const std::string& e : f.entity_ids)
        if (entities_.count(e) && std::find(linked.begin(), linked.end(), e) == linked.end()) linked.push_back(e);
      f.entity_ids = std::move(linked);
      figures_[f.id] = std::move(f);
    }
  }

  void remove_document(const std::string& doc_id) override {
    for (auto it = mentions_.begin(); it != mentions_.end();)
      it = it->second.doc_id == doc_id ? mentions_.erase(it) : std::next(it);
    for (auto it = relations_.begin(); it != relations_.end();) {
      Relation& r = it->second;
      std::erase_if(r.evidence, [&](const Evidence& ev) { return ev.doc_id == doc_id; });
      if (auto w = weight_by_doc_.find({it->first, doc_id}); w != weight_by_doc_.end()) {
        r.weight -= w->second;
        weight_by_doc_.erase(w);
      }
      it = r.evidence.empty() ? relations_.erase(it) : std::next(it);
    }
    std::set<std::string> mentioned;
    for (const auto& [k, m] : mentions_) mentioned.insert(m.entity_id);
    for (auto it = entities_.begin(); it != entities_.end();)
      it = mentioned.count(it->first) ? std::next(it) : entities_.erase(it);
    std::erase_if(figures_, [&](const auto& kv) { return kv.second.doc_id == doc_id; });
    for (auto& [id, f] : figures_)
      std::erase_if(f.entity_ids, [&](const std::string& e) { return !entities_.count(e); });
  }

  void clear() override {
    entities_.clear();
    mentions_.clear();
    relations_.clear();
    weight_by_doc_.clear();
    communities_.clear();
    figures_.clear();
  }

  std::optional<Entity> entity(const std::string& id) override {
    auto it = entities_.find(id);
    if (it == entities_.end()) return std::nullopt;
    return it->second;
  }

  std::vector<std::string> find_by_key(const std::string& key) override {
    ++find_by_key_calls;
    std::vector<std::string> out;
    for (const auto& [id, e] : entities_)
      for (const std::string& a : e.aliases)
        if (name_key(a) == key) {
          out.push_back(id);
          break;
        }
    return out;
  }

  std::vector<Entity> entities() override {
    std::vector<Entity> out;
    for (const auto& [id, e] : entities_) out.push_back(e);
    return out;
  }

  std::vector<Relation> relations_of(const std::string& entity_id, int limit) override {
    std::vector<Relation> out;
    for (const auto& [k, r] : relations_)
      if (r.src == entity_id || r.dst == entity_id) out.push_back(r);
    std::stable_sort(out.begin(), out.end(), [](const Relation& a, const Relation& b) { return a.weight > b.weight; });
    if (static_cast<int>(out.size()) > limit) out.resize(limit);
    return out;
  }

  std::vector<Relation> relations() override {
    std::vector<Relation> out;
    for (const auto& [k, r] : relations_) out.push_back(r);
    return out;
  }

  std::vector<FigureNode> figures_of_entity(const std::string& entity_id, int limit) override {
    std::vector<FigureNode> out;
    for (const auto& [id, f] : figures_)
      if (std::find(f.entity_ids.begin(), f.entity_ids.end(), entity_id) != f.entity_ids.end()) out.push_back(f);
    std::sort(out.begin(), out.end(), [](const FigureNode& a, const FigureNode& b) {
      return std::tie(a.doc_id, a.page, a.id) < std::tie(b.doc_id, b.page, b.id);
    });
    if (static_cast<int>(out.size()) > std::max(0, limit)) out.resize(std::max(0, limit));
    return out;
  }

  std::optional<FigureNode> figure(const std::string& id) override {
    auto it = figures_.find(id);
    if (it == figures_.end()) return std::nullopt;
    return it->second;
  }

  std::vector<FigureNode> figures() override {
    std::vector<FigureNode> out;
    for (const auto& [id, f] : figures_) out.push_back(f);
    return out;
  }

  std::vector<Mention> mentions_of(const std::string& entity_id) override {
    std::vector<Mention> out;
    for (const auto& [k, m] : mentions_)
      if (m.entity_id == entity_id) out.push_back(m);
    std::sort(out.begin(), out.end(), [](const Mention& a, const Mention& b) {
      return std::tie(a.doc_id, a.chunk_id) < std::tie(b.doc_id, b.chunk_id);
    });
    return out;
  }

  std::vector<Mention> mentions() override {
    std::vector<Mention> out;
    for (const auto& [k, m] : mentions_) out.push_back(m);
    return out;
  }

  GraphStats stats() override {
    GraphStats s;
    s.entities = static_cast<long long>(entities_.size());
    s.relations = static_cast<long long>(relations_.size());
    s.mentions = static_cast<long long>(mentions_.size());
    for (const auto& [id, e] : entities_) s.aliases += static_cast<long long>(e.aliases.size());
    s.communities = static_cast<long long>(communities_.size());
    s.figures = static_cast<long long>(figures_.size());
    return s;
  }

  void replace_communities(const std::vector<Community>& communities) override { communities_ = communities; }
  std::vector<Community> communities() override { return communities_; }

  int find_by_key_calls = 0;

 private:
  static void add_alias(Entity& e, const std::string& a) {
    if (!a.empty() && std::find(e.aliases.begin(), e.aliases.end(), a) == e.aliases.end()) e.aliases.push_back(a);
  }

  using RelKey = std::tuple<std::string, std::string, std::string>;
  std::map<std::string, Entity> entities_;
  std::map<std::pair<std::string, std::string>, Mention> mentions_;  // (entity, chunk)
  std::map<RelKey, Relation> relations_;
  std::map<std::pair<RelKey, std::string>, double> weight_by_doc_;
  std::vector<Community> communities_;
  std::map<std::string, FigureNode> figures_;
};

/// An entity named `name` (its one alias), score 1: what the retrieval tests link to.
inline Entity named_entity(const std::string& id, const std::string& name) {
  Entity e;
  e.id = id;
  e.name = name;
  e.aliases = {name};
  e.score = 1;
  return e;
}

/// Name embedding off: entities link by their names only.
inline const EmbedNames kNoNameVectors = [](const std::vector<std::string>&) {
  return std::vector<std::vector<float>>{};
};

}  // namespace mmkg::graph::testing
