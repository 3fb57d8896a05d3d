// GraphStore: where the knowledge graph lives. Two backends pass one conformance suite
// (graph_store_conformance_test.cc): SQLite inside the mmkg store (default) and Neo4j 5.26
// through the HTTP Query API. Each backend in its own file.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph/model/graph_types.h"

struct sqlite3;

namespace mmkg::graph {

/// A chunk as the graph store sees it (Neo4j keeps chunk nodes, with their vectors and text, for
/// dense and full-text search).
struct ChunkNode {
  std::string id;
  std::string doc_id;
  std::vector<float> vector;  ///< may be empty: a stored node keeps the vector it has
  /// What the store's FTS5 index holds for the chunk (index/lexical.h): its heading path, its
  /// text, and its document's context (document_context(), store/store.h).
  std::string heading_path{}, text{}, context{};
};

/// Where a graph store keeps the graph: in the mmkg store's SQLite database, in Neo4j, or in
/// memory (the tests' store, tests/support/memory_graph_store.h).
enum class Backend { Sqlite, Neo4j, Memory };
/// "sqlite", "neo4j" or "memory".
const char* backend_name(Backend b);

class GraphStore {
 public:
  virtual ~GraphStore() = default;

  virtual Backend backend() const = 0;

  // ---- writes. SQLite: joins the caller's open transaction if there is one, else one
  // transaction per call. Neo4j: batched with UNWIND, every value a parameter.

  /// Adds a delta (see GraphDelta for the merge rules). Mentions and relations may refer to
  /// entities of the same delta or already stored ones.
  virtual void upsert(const GraphDelta& delta) = 0;

  /// Removes everything a document contributed: its mentions, its evidence sentences (and the
  /// weight they carried), relations left without evidence, entities left without mentions,
  /// its figures (with their entity links) and its chunk nodes. Entities shared with other
  /// documents stay, with their other mentions. A figure link does not keep an entity alive: an
  /// entity removed as unmentioned loses the links other documents' figures had to it.
  virtual void remove_document(const std::string& doc_id) = 0;

  /// Deletes the whole graph.
  virtual void clear() = 0;

  // ---- reads

  virtual std::optional<Entity> entity(const std::string& id) = 0;
  /// Ids of entities having an alias whose name_key() equals `key` (exact, case-insensitive
  /// through the key). Usually zero or one.
  virtual std::vector<std::string> find_by_key(const std::string& key) = 0;
  /// Every entity (for the linking index, communities and export), ordered by id.
  virtual std::vector<Entity> entities() = 0;
  /// Relations touching `entity_id` in either direction, highest weight first, at most `limit`.
  virtual std::vector<Relation> relations_of(const std::string& entity_id, int limit) = 0;
  /// Every relation (for PPR, communities and export), ordered by (src, dst, type).
  virtual std::vector<Relation> relations() = 0;
  /// Figures and tables linked to `entity_id` (each with all its entity links), ordered by
  /// (doc_id, page, id), at most `limit`.
  virtual std::vector<FigureNode> figures_of_entity(const std::string& entity_id, int limit) = 0;
  virtual std::optional<FigureNode> figure(const std::string& id) = 0;
  /// Every figure (for export), ordered by id.
  virtual std::vector<FigureNode> figures() = 0;
  /// Mentions of one entity, ordered by (doc_id, chunk_id).
  virtual std::vector<Mention> mentions_of(const std::string& entity_id) = 0;
  /// Every mention, ordered by (entity_id, chunk_id).
  virtual std::vector<Mention> mentions() = 0;
  virtual GraphStats stats() = 0;

  /// Replaces all communities (they are recomputed globally after ingest and delete).
  virtual void replace_communities(const std::vector<Community>& communities) = 0;
  virtual std::vector<Community> communities() = 0;

  // ---- chunk vectors (Neo4j's vector index lets a Neo4j-backed deployment serve dense search)

  /// True when upsert_chunks/vector_search are backed by an index (Neo4j). SQLite returns false:
  /// the mmkg store's FAISS index serves dense search there.
  virtual bool supports_vector_search() const { return false; }
  /// Adds or replaces chunk nodes (their vectors and text). Removed by remove_document.
  virtual void upsert_chunks(const std::vector<ChunkNode>& /*chunks*/) {}
  /// The k chunks nearest to `query` by cosine: (chunk id, cosine in [-1, 1]), best first.
  virtual std::vector<std::pair<std::string, double>> vector_search(const std::vector<float>& /*query*/,
                                                                    int /*k*/) {
    return {};
  }

  // ---- chunk text (Neo4j's full-text index serves the lexical side of search as well)

  /// True when upsert_chunks keeps the chunks' text in a full-text index that text_search
  /// queries (Neo4j). SQLite returns false: the mmkg store's FTS5 index serves it there.
  virtual bool supports_text_search() const { return false; }
  /// The k chunks that best match `match`, an FTS5 MATCH expression of the subset mmkg builds
  /// (see fts5_to_lucene, graph/stores/lucene_query.h): (chunk id, score, higher is better),
  /// best first. Throws UsageError for FTS5 syntax outside that subset.
  virtual std::vector<std::pair<std::string, double>> text_search(const std::string& /*match*/, int /*k*/) {
    return {};
  }
  /// True while chunk nodes an older mmkg stored lack their text (a Neo4j graph of schema
  /// version 3 or older): text_search misses them until the next graph sync writes it
  /// (sync_graph, then chunk_text_restored()).
  virtual bool chunk_text_pending() { return false; }
  /// Every chunk node now has its text (sync_graph has written it).
  virtual void chunk_text_restored() {}
};

/// The SQLite backend on an open mmkg database (tables created on first use, versioned).
std::unique_ptr<GraphStore> make_sqlite_graph_store(sqlite3* db);

/// The Neo4j backend. `url`: neo4j://USER:PASS@HOST:PORT[/DB] or http(s)://USER:PASS@HOST:PORT[/DB]
/// (the HTTP port, default database "neo4j"). Creates constraints and indexes on first use.
/// Throws Error (what to do) when the server cannot be reached or refuses the credentials.
/// `chunks_owned_by_store`: the chunk nodes belong to a shared mmkg store in the same database
/// (store/neo4j_store.h), which writes and deletes them; the graph only links to them
/// (upsert_chunks does nothing, remove_document and clear leave them).
std::unique_ptr<GraphStore> make_neo4j_graph_store(const std::string& url, bool chunks_owned_by_store = false);

}  // namespace mmkg::graph
