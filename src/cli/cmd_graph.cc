// mmkg graph entity|neighbors|export, and the graph plumbing the other commands share.
#include <cstdio>
#include <algorithm>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.h"
#include "core/error.h"
#include "embed/embedder.h"
#include "graph/graph_builder.h"
#include "net/http.h"
#include "store/store.h"

namespace mmkg::cli {

using nlohmann::json;

std::string graph_backend_key(const std::string& spec) {
  if (spec.empty() || spec == "sqlite") return "sqlite";
  // neo4j://user:pass@host:port/db → neo4j:host:port/db (no credentials in the store)
  std::string r = redact_url(spec);
  auto at = r.find("***@");
  if (at != std::string::npos) r = r.substr(0, r.find("://") + 3) + r.substr(at + 4);
  auto scheme = r.find("://");
  return "neo4j:" + (scheme == std::string::npos ? r : r.substr(scheme + 3));
}

std::unique_ptr<graph::GraphStore> open_graph(const Common& c, Store& store) {
  if (c.graph == "none") return nullptr;
  return graph::make_graph_store(c.graph, store.db());
}

json graph_sync_json(const graph::GraphSyncResult& g) {
  return {{"extractor", g.extractor}, {"llm_calls", g.model.model_calls}, {"llm_requests", g.model.model_requests},
          {"llm_cached", g.model.model_cached},
          {"llm_fallbacks", g.model.fallbacks}, {"prompt_tokens", g.model.prompt_tokens},
          {"completion_tokens", g.model.completion_tokens},
          {"documents_added", g.documents_added}, {"documents_removed", g.documents_removed},
          {"chunks_extracted", g.chunks_extracted}, {"extractions_cached", g.extractions_cached},
          {"entities", g.stats.entities}, {"relations", g.stats.relations}, {"mentions", g.stats.mentions},
          {"aliases", g.stats.aliases}, {"communities", g.stats.communities}, {"seconds", g.seconds},
          {"extract_seconds", g.extract_seconds}, {"resolve_seconds", g.resolve_seconds},
          {"write_seconds", g.write_seconds}, {"community_seconds", g.community_seconds}};
}

namespace {

std::string cypher_str(const std::string& s) {
  std::string o = "'";
  for (char ch : s) {
    if (ch == '\\' || ch == '\'') o += '\\';
    if (ch == '\n') {
      o += "\\n";
      continue;
    }
    if (ch == '\r') continue;
    o += ch;
  }
  return o + "'";
}

std::string cypher_list(const std::vector<std::string>& v) {
  std::string o = "[";
  for (size_t i = 0; i < v.size(); ++i) o += (i ? ", " : "") + cypher_str(v[i]);
  return o + "]";
}

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    switch (ch) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t') break;  // invalid in XML 1.0
        o += ch;
    }
  }
  return o;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string o;
  for (size_t i = 0; i < v.size(); ++i) o += (i ? sep : "") + v[i];
  return o;
}

// Finds the entity NAME names (exact, alias, then fuzzy/embedding); throws when none.
graph::Entity find_entity(graph::GraphStore& gs, graph::EntityIndex& index, const std::string& name) {
  auto hits = index.lookup(name, 1);
  if (hits.empty() && gs.stats().entities == 0) {
    throw Error("the knowledge graph is empty; `mmkg ingest` builds it (unless run with --extract none)");
  }
  if (hits.empty()) {
    throw Error("no entity matches \"" + name + "\"; `mmkg graph export --format jsonl` lists them all");
  }
  auto e = gs.entity(hits[0].entity_id);
  if (!e) throw Error("entity " + hits[0].entity_id + " vanished while reading; run the command again");
  return *e;
}

}  // namespace

int cmd_graph(const Common& c, const std::string& action, const std::string& name, const std::string& format,
              const std::string& output) {
  auto store = Store::open(c.store, false);
  auto gs = open_graph(c, *store);
  if (!gs) throw UsageError("the graph is disabled (--graph none); use --graph sqlite or a Neo4j URL");

  if (action == "export") {
    std::ofstream file;
    if (!output.empty()) {
      file.open(output, std::ios::binary);
      if (!file) throw IOError(output + ": cannot write the export file");
    }
    std::ostream& out = output.empty() ? std::cout : file;
    auto entities = gs->entities();
    auto relations = gs->relations();
    auto mentions = gs->mentions();
    std::map<std::string, std::vector<const graph::Mention*>> by_entity;
    for (const auto& m : mentions) by_entity[m.entity_id].push_back(&m);
    if (format == "jsonl") {
      for (const auto& e : entities) {
        json ms = json::array();
        for (const auto* m : by_entity[e.id])
          ms.push_back({{"chunk_id", m->chunk_id}, {"doc_id", m->doc_id}, {"surface", m->surface}, {"count", m->count}});
        out << json({{"kind", "entity"}, {"id", e.id}, {"name", e.name}, {"type", e.type},
                     {"description", e.description}, {"aliases", e.aliases}, {"score", e.score}, {"mentions", ms}})
                   .dump()
            << "\n";
      }
      for (const auto& r : relations) {
        json ev = json::array();
        for (const auto& x : r.evidence) ev.push_back({{"chunk_id", x.chunk_id}, {"doc_id", x.doc_id}, {"sentence", x.sentence}});
        out << json({{"kind", "relation"}, {"src", r.src}, {"dst", r.dst}, {"type", r.type}, {"weight", r.weight},
                     {"description", r.description}, {"evidence", ev}})
                   .dump()
            << "\n";
      }
      for (const auto& cm : gs->communities())
        out << json({{"kind", "community"}, {"id", cm.id}, {"level", cm.level}, {"title", cm.title},
                     {"summary", cm.summary}, {"entities", cm.entity_ids}, {"chunks", cm.chunk_ids}})
                   .dump()
            << "\n";
    } else if (format == "graphml") {
      out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
             "  <key id=\"name\" for=\"node\" attr.name=\"name\" attr.type=\"string\"/>\n"
             "  <key id=\"type\" for=\"node\" attr.name=\"type\" attr.type=\"string\"/>\n"
             "  <key id=\"aliases\" for=\"node\" attr.name=\"aliases\" attr.type=\"string\"/>\n"
             "  <key id=\"description\" for=\"node\" attr.name=\"description\" attr.type=\"string\"/>\n"
             "  <key id=\"mentions\" for=\"node\" attr.name=\"mentions\" attr.type=\"int\"/>\n"
             "  <key id=\"rtype\" for=\"edge\" attr.name=\"type\" attr.type=\"string\"/>\n"
             "  <key id=\"weight\" for=\"edge\" attr.name=\"weight\" attr.type=\"double\"/>\n"
             "  <key id=\"rdescription\" for=\"edge\" attr.name=\"description\" attr.type=\"string\"/>\n"
             "  <graph id=\"mmkg\" edgedefault=\"directed\">\n";
      for (const auto& e : entities) {
        out << "    <node id=\"" << xml_escape(e.id) << "\"><data key=\"name\">" << xml_escape(e.name)
            << "</data><data key=\"type\">" << xml_escape(e.type) << "</data><data key=\"aliases\">"
            << xml_escape(join(e.aliases, "|")) << "</data><data key=\"description\">" << xml_escape(e.description)
            << "</data><data key=\"mentions\">" << by_entity[e.id].size() << "</data></node>\n";
      }
      size_t n = 0;
      for (const auto& r : relations) {
        out << "    <edge id=\"r" << n++ << "\" source=\"" << xml_escape(r.src) << "\" target=\"" << xml_escape(r.dst)
            << "\"><data key=\"rtype\">" << xml_escape(r.type) << "</data><data key=\"weight\">" << r.weight
            << "</data>";
        if (!r.description.empty()) out << "<data key=\"rdescription\">" << xml_escape(r.description) << "</data>";
        out << "</edge>\n";
      }
      out << "  </graph>\n</graphml>\n";
    } else if (format == "cypher") {
      // One statement per line, every string quoted and escaped; loads with cypher-shell or the
      // Query API. Rows go in UNWIND batches of literal maps (500 per statement): a stock Neo4j
      // plans one statement per batch instead of one per entity, about 50x faster to load.
      constexpr size_t kBatch = 500;
      out << "CREATE CONSTRAINT mmkg_entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE e.id IS UNIQUE;\n";
      out << "CREATE CONSTRAINT mmkg_chunk_id IF NOT EXISTS FOR (c:Chunk) REQUIRE c.id IS UNIQUE;\n";
      auto batches = [&](size_t n, const std::function<std::string(size_t)>& row, const std::string& body) {
        for (size_t b = 0; b < n; b += kBatch) {
          out << "UNWIND [";
          for (size_t i = b; i < std::min(n, b + kBatch); ++i) out << (i > b ? ", " : "") << row(i);
          out << "] AS row " << body << ";\n";
        }
      };
      batches(entities.size(), [&](size_t i) {
        const auto& e = entities[i];
        std::ostringstream r;
        r << "{id: " << cypher_str(e.id) << ", name: " << cypher_str(e.name) << ", type: " << cypher_str(e.type)
          << ", description: " << cypher_str(e.description) << ", aliases: " << cypher_list(e.aliases)
          << ", score: " << e.score << "}";
        return r.str();
      }, "MERGE (e:Entity {id: row.id}) SET e.name = row.name, e.type = row.type, e.description = row.description, "
         "e.aliases = row.aliases, e.score = row.score");
      batches(relations.size(), [&](size_t i) {
        const auto& rl = relations[i];
        std::vector<std::string> chunks, sentences;
        for (const auto& x : rl.evidence) chunks.push_back(x.chunk_id), sentences.push_back(x.sentence);
        std::ostringstream r;
        r << "{src: " << cypher_str(rl.src) << ", dst: " << cypher_str(rl.dst) << ", type: " << cypher_str(rl.type)
          << ", weight: " << rl.weight << ", description: " << cypher_str(rl.description)
          << ", chunks: " << cypher_list(chunks) << ", sentences: " << cypher_list(sentences) << "}";
        return r.str();
      }, "MATCH (a:Entity {id: row.src}), (b:Entity {id: row.dst}) MERGE (a)-[r:REL {type: row.type}]->(b) "
         "SET r.weight = row.weight, r.description = row.description, r.ev_chunks = row.chunks, "
         "r.ev_sentences = row.sentences");
      batches(mentions.size(), [&](size_t i) {
        const auto& m = mentions[i];
        std::ostringstream r;
        r << "{entity: " << cypher_str(m.entity_id) << ", chunk: " << cypher_str(m.chunk_id) << ", doc: "
          << cypher_str(m.doc_id) << ", count: " << m.count << ", surface: " << cypher_str(m.surface) << "}";
        return r.str();
      }, "MATCH (e:Entity {id: row.entity}) MERGE (c:Chunk {id: row.chunk}) SET c.doc_id = row.doc "
         "MERGE (e)-[m:MENTIONED_IN]->(c) SET m.count = row.count, m.surface = row.surface");
    } else {
      throw UsageError("unknown export format \"" + format + "\"; use jsonl, graphml or cypher");
    }
    out.flush();
    if (!out) throw IOError("writing the export failed (disk full?)");
    return 0;
  }

  std::unique_ptr<Embedder> emb;
  if (c.embedder != "none") {
    try {
      emb = make_embedder(c.embedder);
    } catch (const Error&) {  // lookup works without embeddings (exact, alias, fuzzy)
    }
  }
  auto index = graph::EntityIndex::build(*gs, graph::make_embed_names(*store, emb.get()));
  graph::Entity e = find_entity(*gs, *index, name);
  auto rels = gs->relations_of(e.id, action == "entity" ? 20 : 200);
  auto mentions = gs->mentions_of(e.id);
  std::map<std::string, std::string> names;
  auto name_of = [&](const std::string& id) {
    auto it = names.find(id);
    if (it != names.end()) return it->second;
    auto x = gs->entity(id);
    return names[id] = x ? x->name : id;
  };
  json neighbors = json::array();
  for (const auto& r : rels) {
    const bool out_edge = r.src == e.id;
    const std::string other = out_edge ? r.dst : r.src;
    json n = {{"id", other}, {"name", name_of(other)}, {"relation", r.type}, {"weight", r.weight},
              {"direction", out_edge ? "out" : "in"}, {"description", r.description}};
    if (action == "neighbors") {
      json ev = json::array();
      for (const auto& x : r.evidence) {
        auto ch = store->chunk(x.chunk_id);
        ev.push_back({{"chunk_id", x.chunk_id}, {"doc", ch ? ch->doc_name : ""}, {"page", ch && ch->chunk.page_start ? json(ch->chunk.page_start) : json(nullptr)}, {"sentence", x.sentence}});
      }
      n["evidence"] = ev;
    }
    neighbors.push_back(n);
  }
  if (c.json) {
    json out = {{"id", e.id},           {"name", e.name},         {"aliases", e.aliases},
                {"type", e.type},       {"description", e.description}, {"mentions", mentions.size()},
                {"score", e.score},     {"neighbors", neighbors}};
    std::printf("%s\n", out.dump().c_str());
    return 0;
  }
  std::printf("%s  (%s, %s; %zu mentions)\n", e.name.c_str(), e.id.c_str(), e.type.c_str(), mentions.size());
  if (e.aliases.size() > 1) std::printf("  aliases: %s\n", join(e.aliases, ", ").c_str());
  if (!e.description.empty()) std::printf("  %s\n", e.description.c_str());
  for (const auto& n : neighbors) {
    const bool out_edge = n["direction"] == "out";
    std::printf("  %s %s %s  (weight %.1f)\n", out_edge ? e.name.c_str() : n["name"].get<std::string>().c_str(),
                n["relation"].get<std::string>().c_str(),
                out_edge ? n["name"].get<std::string>().c_str() : e.name.c_str(), n["weight"].get<double>());
    if (!n["description"].get<std::string>().empty())
      std::printf("      %s\n", n["description"].get<std::string>().c_str());
    if (n.contains("evidence"))
      for (const auto& x : n["evidence"])
        std::printf("      \"%s\" (%s, chunk %s)\n", x["sentence"].get<std::string>().c_str(),
                    x["doc"].get<std::string>().c_str(), x["chunk_id"].get<std::string>().c_str());
  }
  return 0;
}

}  // namespace mmkg::cli
