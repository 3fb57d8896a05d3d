// The Neo4j graph store, through the HTTP Query API (neo4j_query.h). Every value travels as a
// parameter; writes are UNWIND batches of Neo4jTarget::batch rows.
//
// Model:
//   (:Entity {id, name, type, description, score, aliases: [surface forms]})
//   (:Alias {key, entity_id})                 one per distinct name_key() of an entity's aliases
//   (:Entity)-[:MENTIONED_IN {count, surface, doc_id}]->(:Chunk {id, doc_id, embedding?, heading_path,
//                                                               text, context})
//       a chunk's text as the store's FTS5 index holds it, since schema version 4
//   (:Entity)-[:REL {type, weight, description, ev_chunks, ev_docs, ev_sentences, ev_weights}]->(:Entity)
//       evidence as parallel lists; ev_weights[i] is the share of `weight` evidence i brought;
//       description since schema version 2 (absent on older relations, read as "")
//   (:Community {id, level, title, summary, chunk_ids})-[:HAS {pos}]->(:Entity)
//   (:Figure {id, doc_id, chunk_id, kind, label, caption, page})-[:DEPICTS {pos}]->(:Entity)
//   (:Figure)-[:IN_CHUNK]->(:Chunk)           its own chunk, when it has one (schema version 3)
//   (:MmkgGraphMeta {key: 'graph', schema_version, chunk_text_pending?})
// Documents have no node of their own here: a document is the doc_id property of its chunks,
// mentions, evidence and figures, and remove_document works through that property.
// Constraints: unique Entity.id, Chunk.id, Community.id, Figure.id; indexes on Alias.key,
// Alias.entity_id, Chunk.doc_id, Figure.doc_id, MENTIONED_IN.doc_id; vector index
// mmkg_chunk_embedding (cosine) on Chunk.embedding, created when the first vectors arrive;
// full-text index mmkg_chunk_text on Chunk.heading_path, text and context (schema version 4).
// Its analyzer is "english" (Lucene's EnglishAnalyzer: standard tokenizer, lower case, English
// stop words, Porter stemmer), the nearest Neo4j has to the store's FTS5 tokenizer (`porter
// unicode61`): stemming is what matters for recall ("rises" finds "rise"); the stop words it drops
// cost little, since fts_query leaves them out of the query anyway (but NEAR("x" "is", 2) becomes
// "x" alone). It does not fold diacritics as FTS5's remove_diacritics does.
//
// Each statement is its own transaction: an upsert or remove_document that fails half-way
// leaves the batches before the failure applied.
#include <cmath>

#include "core/error.h"
#include "graph/model/graph_store.h"
#include "graph/stores/graph_store_impl.h"
#include "graph/stores/lucene_query.h"
#include "net/neo4j_query.h"

namespace mmkg::graph {

namespace {

using nlohmann::json;

const char* kVectorIndex = "mmkg_chunk_embedding";
const char* kTextIndex = "mmkg_chunk_text";
// The fields of the full-text index, weighed alike. Not FTS5's column weights (heading 2,
// LexicalOptions): FTS5 scores a chunk's columns as one text, while Lucene scores each field on
// its own, so its length normalisation already favours a match in the short heading without a
// boost (docs/BENCHMARKS.md, "Neo4j full-text search").
const std::vector<LuceneField> kTextFields = {{"heading_path", 1.0}, {"text", 1.0}, {"context", 1.0}};
// Lucene's maxClauseCount is 1024 field phrases (measured on Neo4j 5.26); a little below it.
constexpr size_t kMaxTextClauses = 1000;

const char* kUpsertEntities = R"(
UNWIND $rows AS row
MERGE (e:Entity {id: row.id})
ON CREATE SET e.name = row.name, e.type = row.type, e.description = row.description,
              e.score = row.score, e.aliases = row.aliases
ON MATCH SET e.score = CASE WHEN row.score > e.score THEN row.score ELSE e.score END,
             e.type = CASE WHEN e.type IN ['', 'concept'] THEN row.type ELSE e.type END,
             e.description = CASE WHEN e.description = '' THEN row.description ELSE e.description END,
             e.aliases = e.aliases + [a IN row.aliases WHERE NOT a IN e.aliases]
WITH e, row
UNWIND row.keys AS k
MERGE (:Alias {entity_id: row.id, key: k}))";

const char* kUpsertMentions = R"(
UNWIND $rows AS row
MATCH (e:Entity {id: row.e})
MERGE (c:Chunk {id: row.c}) ON CREATE SET c.doc_id = row.d
MERGE (e)-[m:MENTIONED_IN]->(c)
ON CREATE SET m.count = row.n, m.surface = row.s, m.doc_id = row.d
ON MATCH SET m.count = m.count + row.n)";

// Evidence identical in (chunk, sentence) to a stored one adds its weight to it; new evidence is
// appended to the parallel lists.
const char* kUpsertRelations = R"(
UNWIND $rows AS row
MATCH (a:Entity {id: row.s})
MATCH (b:Entity {id: row.d})
MERGE (a)-[r:REL {type: row.t}]->(b)
ON CREATE SET r.weight = 0.0, r.ev_chunks = [], r.ev_docs = [], r.ev_sentences = [], r.ev_weights = [],
              r.description = row.desc
ON MATCH SET r.description = CASE WHEN coalesce(r.description, '') = '' THEN row.desc ELSE r.description END
WITH r, row, reduce(acc = {c: r.ev_chunks, d: r.ev_docs, s: r.ev_sentences, w: r.ev_weights}, ev IN row.evs |
  CASE WHEN any(i IN range(0, size(acc.c) - 1) WHERE acc.c[i] = ev.c AND acc.s[i] = ev.s)
  THEN {c: acc.c, d: acc.d, s: acc.s,
        w: [i IN range(0, size(acc.w) - 1) |
            CASE WHEN acc.c[i] = ev.c AND acc.s[i] = ev.s THEN acc.w[i] + ev.w ELSE acc.w[i] END]}
  ELSE {c: acc.c + ev.c, d: acc.d + ev.d, s: acc.s + ev.s, w: acc.w + ev.w} END) AS acc
SET r.weight = r.weight + row.w, r.ev_chunks = acc.c, r.ev_docs = acc.d, r.ev_sentences = acc.s,
    r.ev_weights = acc.w)";

// A figure is replaced whole: properties set, old links dropped, then linked to its chunk (the
// chunk node made if mentions have not made it yet) and to the entities that exist.
const char* kUpsertFigures = R"(
UNWIND $rows AS row
MERGE (f:Figure {id: row.id})
SET f.doc_id = row.doc, f.chunk_id = row.chunk, f.kind = row.kind, f.label = row.label,
    f.caption = row.caption, f.page = row.page
WITH f, row
CALL { WITH f MATCH (f)-[old:DEPICTS|IN_CHUNK]->() DELETE old }
FOREACH (_ IN CASE WHEN row.chunk <> '' THEN [1] ELSE [] END |
  MERGE (c:Chunk {id: row.chunk}) ON CREATE SET c.doc_id = row.doc
  MERGE (f)-[:IN_CHUNK]->(c))
WITH f, row
UNWIND range(0, size(row.entities) - 1) AS i
MATCH (e:Entity {id: row.entities[i]})
MERGE (f)-[d:DEPICTS]->(e) SET d.pos = i)";

// A figure with its entity ids in link order; `f` must be bound, one row per figure.
const char* kFigureReturn = R"(
OPTIONAL MATCH (f)-[d:DEPICTS]->(e:Entity)
WITH f, d, e ORDER BY d.pos
WITH f, collect(e.id) AS entities
RETURN f.id AS id, f.doc_id AS doc, f.chunk_id, f.kind, f.label, f.caption, f.page AS page, entities)";

// remove_document, step 1: the document's evidence and the weight it carried; relations left
// without evidence go.
const char* kRemoveEvidence = R"(
MATCH ()-[r:REL]->() WHERE $doc IN r.ev_docs
WITH r, [i IN range(0, size(r.ev_docs) - 1) WHERE r.ev_docs[i] <> $doc] AS keep,
     reduce(x = 0.0, i IN range(0, size(r.ev_docs) - 1) |
            x + CASE WHEN r.ev_docs[i] = $doc THEN r.ev_weights[i] ELSE 0.0 END) AS lost
SET r.weight = r.weight - lost,
    r.ev_chunks = [i IN keep | r.ev_chunks[i]], r.ev_docs = [i IN keep | r.ev_docs[i]],
    r.ev_sentences = [i IN keep | r.ev_sentences[i]], r.ev_weights = [i IN keep | r.ev_weights[i]]
WITH r WHERE size(r.ev_docs) = 0
DELETE r)";

// Step 2: its mentions; entities that lost a mention and have none left go, with their aliases.
const char* kRemoveMentions = R"(
MATCH (e:Entity)-[m:MENTIONED_IN {doc_id: $doc}]->()
WITH collect(DISTINCT e) AS es, collect(m) AS ms
FOREACH (m IN ms | DELETE m)
WITH es
UNWIND es AS e
WITH e WHERE NOT (e)-[:MENTIONED_IN]->()
CALL { WITH e MATCH (a:Alias {entity_id: e.id}) DELETE a }
DETACH DELETE e)";

// Step 3: its figures (their DEPICTS and IN_CHUNK links with them), then its chunk nodes.
const char* kRemoveFigures = "MATCH (f:Figure {doc_id: $doc}) DETACH DELETE f";
const char* kRemoveChunks = "MATCH (c:Chunk {doc_id: $doc}) DETACH DELETE c";

const char* kRelationColumns =
    "startNode(r).id AS s, endNode(r).id AS d, r.type AS t, r.weight AS w, r.ev_chunks AS ec, "
    "r.ev_docs AS ed, r.ev_sentences AS es, coalesce(r.description, '') AS rd";

std::string str(const json& v) { return v.is_string() ? v.get<std::string>() : std::string(); }
double num(const json& v) { return v.is_number() ? v.get<double>() : 0.0; }

std::vector<std::string> strs(const json& v) {
  std::vector<std::string> out;
  if (v.is_array())
    for (const auto& x : v) out.push_back(str(x));
  return out;
}

Relation read_relation(const json& row) {
  Relation r{str(row[0]), str(row[1]), str(row[2]), num(row[3]), {}, row.size() > 7 ? str(row[7]) : ""};
  auto c = strs(row[4]), d = strs(row[5]), s = strs(row[6]);
  for (size_t i = 0; i < c.size(); ++i)
    r.evidence.push_back(Evidence{c[i], i < d.size() ? d[i] : "", i < s.size() ? s[i] : ""});
  return r;
}

FigureNode read_figure(const json& row) {
  FigureNode f;
  f.id = str(row[0]);
  f.doc_id = str(row[1]);
  f.chunk_id = str(row[2]);
  f.kind = figure_kind_from_name(str(row[3]));
  f.label = str(row[4]);
  f.caption = str(row[5]);
  f.page = row[6].is_number() ? row[6].get<int>() : 0;
  f.entity_ids = strs(row[7]);
  return f;
}

Mention read_mention(const json& row) {
  Mention m;
  m.entity_id = str(row[0]);
  m.chunk_id = str(row[1]);
  m.doc_id = str(row[2]);
  m.surface = str(row[3]);
  m.count = row[4].is_number() ? row[4].get<int>() : 0;
  return m;
}

class Neo4jGraphStore final : public GraphStore {
 public:
  Neo4jGraphStore(const std::string& url, bool chunks_owned_by_store)
      : db_(parse_neo4j_url(url)), chunks_external_(chunks_owned_by_store) {
    ensure_schema();
  }

  Backend backend() const override { return Backend::Neo4j; }

  void upsert(const GraphDelta& delta) override {
    std::vector<json> rows;
    for (const auto& e : detail::merge_entities(delta.entities)) {
      std::vector<std::string> keys;
      for (const auto& a : e.aliases) {
        std::string k = name_key(a);
        if (!k.empty() && std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(std::move(k));
      }
      rows.push_back({{"id", e.id}, {"name", e.name}, {"type", e.type}, {"description", e.description},
                      {"score", e.score}, {"aliases", e.aliases}, {"keys", keys}});
    }
    run_batched(kUpsertEntities, rows);
    rows.clear();
    for (const auto& m : detail::merge_mentions(delta.mentions))
      rows.push_back({{"e", m.entity_id}, {"c", m.chunk_id}, {"d", m.doc_id}, {"s", m.surface}, {"n", m.count}});
    run_batched(kUpsertMentions, rows);
    rows.clear();
    for (const auto& r : detail::merge_relations(delta.relations)) {
      json evs = json::array();
      for (const auto& e : r.evidence)
        evs.push_back({{"c", e.ev.chunk_id}, {"d", e.ev.doc_id}, {"s", e.ev.sentence}, {"w", e.weight}});
      rows.push_back({{"s", r.src}, {"d", r.dst}, {"t", r.type}, {"w", r.weight}, {"desc", r.description},
                      {"evs", std::move(evs)}});
    }
    run_batched(kUpsertRelations, rows);
    rows.clear();
    for (const auto& f : detail::merge_figures(delta.figures))
      rows.push_back({{"id", f.id}, {"doc", f.doc_id}, {"chunk", f.chunk_id}, {"kind", figure_kind_name(f.kind)}, {"label", f.label},
                      {"caption", f.caption}, {"page", f.page}, {"entities", f.entity_ids}});
    run_batched(kUpsertFigures, rows);
  }

  void remove_document(const std::string& doc_id) override {
    const json p = {{"doc", doc_id}};
    db_.run(kRemoveEvidence, p);
    db_.run(kRemoveMentions, p);
    db_.run(kRemoveFigures, p);
    if (!chunks_external_) db_.run(kRemoveChunks, p);
  }

  void clear() override {
    // In slices, so that a large graph does not need one huge transaction; only mmkg's labels.
    for (;;) {
      auto r = db_.run(
          std::string("MATCH (n) WHERE n:Entity OR n:Alias OR n:Community OR n:Figure") +
          (chunks_external_ ? "" : " OR n:Chunk") + " WITH n LIMIT 10000 DETACH DELETE n RETURN count(*)");
      if (r.rows.empty() || num(r.rows[0][0]) == 0) break;
    }
    db_.run("DROP INDEX " + std::string(kVectorIndex) + " IF EXISTS");
    if (text_pending_) chunk_text_restored();  // no chunk node is left to lack its text
    vector_dim_ = 0;
    vector_awaited_ = false;
  }

  std::optional<Entity> entity(const std::string& id) override {
    auto r = db_.run(
        "MATCH (e:Entity {id: $id}) RETURN e.id, e.name, e.type, e.description, e.score, e.aliases",
        {{"id", id}});
    if (r.rows.empty()) return std::nullopt;
    return read_entity(r.rows[0]);
  }

  std::vector<std::string> find_by_key(const std::string& key) override {
    if (key.empty()) return {};
    auto r = db_.run("MATCH (a:Alias {key: $key}) RETURN DISTINCT a.entity_id AS id ORDER BY id", {{"key", key}});
    std::vector<std::string> out;
    for (const auto& row : r.rows) out.push_back(str(row[0]));
    return out;
  }

  std::vector<Entity> entities() override {
    auto r = db_.run(
        "MATCH (e:Entity) RETURN e.id, e.name, e.type, e.description, e.score, e.aliases ORDER BY e.id");
    std::vector<Entity> out;
    out.reserve(r.rows.size());
    for (const auto& row : r.rows) out.push_back(read_entity(row));
    return out;
  }

  std::vector<Relation> relations_of(const std::string& entity_id, int limit) override {
    if (limit <= 0) return {};
    auto r = db_.run(std::string("MATCH (:Entity {id: $id})-[r:REL]-() WITH DISTINCT r RETURN ") +
                         kRelationColumns + " ORDER BY w DESC, s, d, t LIMIT $limit",
                     {{"id", entity_id}, {"limit", limit}});
    std::vector<Relation> out;
    for (const auto& row : r.rows) out.push_back(read_relation(row));
    return out;
  }

  std::vector<Relation> relations() override {
    auto r = db_.run(std::string("MATCH (:Entity)-[r:REL]->(:Entity) RETURN ") + kRelationColumns +
                     " ORDER BY s, d, t");
    std::vector<Relation> out;
    out.reserve(r.rows.size());
    for (const auto& row : r.rows) out.push_back(read_relation(row));
    return out;
  }

  std::vector<FigureNode> figures_of_entity(const std::string& entity_id, int limit) override {
    if (limit <= 0) return {};
    auto r = db_.run(std::string("MATCH (:Entity {id: $id})<-[:DEPICTS]-(f:Figure) "
                                 "WITH DISTINCT f ORDER BY f.doc_id, f.page, f.id LIMIT $limit") +
                         kFigureReturn + " ORDER BY doc, page, id",
                     {{"id", entity_id}, {"limit", limit}});
    return read_figures(r);
  }

  std::optional<FigureNode> figure(const std::string& id) override {
    auto r = db_.run(std::string("MATCH (f:Figure {id: $id})") + kFigureReturn, {{"id", id}});
    auto out = read_figures(r);
    if (out.empty()) return std::nullopt;
    return std::move(out[0]);
  }

  std::vector<FigureNode> figures() override {
    auto r = db_.run(std::string("MATCH (f:Figure)") + kFigureReturn + " ORDER BY id");
    return read_figures(r);
  }

  std::vector<Mention> mentions_of(const std::string& entity_id) override {
    auto r = db_.run(
        "MATCH (e:Entity {id: $id})-[m:MENTIONED_IN]->(c:Chunk) "
        "RETURN e.id, c.id AS c, m.doc_id AS d, m.surface, m.count ORDER BY d, c",
        {{"id", entity_id}});
    std::vector<Mention> out;
    for (const auto& row : r.rows) out.push_back(read_mention(row));
    return out;
  }

  std::vector<Mention> mentions() override {
    auto r = db_.run(
        "MATCH (e:Entity)-[m:MENTIONED_IN]->(c:Chunk) "
        "RETURN e.id AS e, c.id AS c, m.doc_id, m.surface, m.count ORDER BY e, c");
    std::vector<Mention> out;
    out.reserve(r.rows.size());
    for (const auto& row : r.rows) out.push_back(read_mention(row));
    return out;
  }

  GraphStats stats() override {
    auto r = db_.run(
        "CALL { MATCH (e:Entity) RETURN count(e) AS entities, sum(size(e.aliases)) AS aliases } "
        "CALL { MATCH ()-[r:REL]->() RETURN count(r) AS relations } "
        "CALL { MATCH ()-[m:MENTIONED_IN]->() RETURN count(m) AS mentions } "
        "CALL { MATCH (c:Community) RETURN count(c) AS communities } "
        "CALL { MATCH (f:Figure) RETURN count(f) AS figures } "
        "RETURN entities, relations, mentions, aliases, communities, figures");
    GraphStats st;
    if (r.rows.empty()) return st;
    const auto& row = r.rows[0];
    auto i64 = [](const json& v) { return v.is_number() ? v.get<long long>() : 0LL; };
    st.entities = i64(row[0]);
    st.relations = i64(row[1]);
    st.mentions = i64(row[2]);
    st.aliases = i64(row[3]);
    st.communities = i64(row[4]);
    st.figures = i64(row[5]);
    return st;
  }

  void replace_communities(const std::vector<Community>& communities) override {
    for (;;) {
      auto r = db_.run("MATCH (c:Community) WITH c LIMIT 10000 DETACH DELETE c RETURN count(*)");
      if (r.rows.empty() || num(r.rows[0][0]) == 0) break;
    }
    std::vector<json> rows;
    for (const auto& c : communities)
      rows.push_back({{"id", c.id}, {"level", c.level}, {"title", c.title}, {"summary", c.summary},
                      {"chunks", c.chunk_ids}, {"entities", c.entity_ids}});
    // Members that are not stored entities are dropped: there is no node to link them to.
    run_batched(R"(
UNWIND $rows AS row
MERGE (c:Community {id: row.id})
SET c.level = row.level, c.title = row.title, c.summary = row.summary, c.chunk_ids = row.chunks
WITH c, row
UNWIND range(0, size(row.entities) - 1) AS i
MATCH (e:Entity {id: row.entities[i]})
MERGE (c)-[h:HAS]->(e) ON CREATE SET h.pos = i)",
                rows);
  }

  std::vector<Community> communities() override {
    auto r = db_.run(R"(
MATCH (c:Community)
OPTIONAL MATCH (c)-[h:HAS]->(e:Entity)
WITH c, h, e ORDER BY h.pos
WITH c, collect(e.id) AS members
RETURN c.id AS id, c.level AS level, c.title, c.summary, c.chunk_ids, members ORDER BY level, id)");
    std::vector<Community> out;
    for (const auto& row : r.rows) {
      Community c;
      c.id = str(row[0]);
      c.level = row[1].is_number() ? row[1].get<int>() : 0;
      c.title = str(row[2]);
      c.summary = str(row[3]);
      c.chunk_ids = strs(row[4]);
      c.entity_ids = strs(row[5]);
      out.push_back(std::move(c));
    }
    return out;
  }

  bool supports_vector_search() const override { return true; }

  void upsert_chunks(const std::vector<ChunkNode>& chunks) override {
    size_t dim = 0;
    for (const auto& c : chunks) {
      if (c.vector.empty()) continue;
      if (dim && c.vector.size() != dim)
        throw UsageError("chunk vectors of different dimensions (" + std::to_string(dim) + " and " +
                         std::to_string(c.vector.size()) + ") in one batch; use one embedding model");
      dim = c.vector.size();
    }
    if (dim) ensure_vector_index(dim);
    if (chunks_external_) return;  // the shared store wrote them; the index over them is made here
    std::vector<json> rows;
    for (const auto& c : chunks) {
      json v = json::array();
      for (float x : c.vector) v.push_back(static_cast<double>(x));
      rows.push_back({{"id", c.id}, {"doc", c.doc_id}, {"v", std::move(v)}, {"h", c.heading_path}, {"t", c.text},
                      {"x", c.context}});
    }
    run_batched(R"(
UNWIND $rows AS row
MERGE (c:Chunk {id: row.id})
SET c.doc_id = row.doc, c.embedding = CASE WHEN size(row.v) > 0 THEN row.v ELSE c.embedding END,
    c.heading_path = row.h, c.text = row.t, c.context = row.x)",
                rows);
  }

  bool supports_text_search() const override { return true; }

  std::vector<std::pair<std::string, double>> text_search(const std::string& match, int k) override {
    const std::string q = fts5_to_lucene(match, kTextFields, kMaxTextClauses);
    if (q.empty() || k <= 0) return {};
    if (!text_awaited_) {  // the index made by ensure_schema may still be populating
      db_.run("CALL db.awaitIndexes(300)");
      text_awaited_ = true;
    }
    auto r = db_.run(
        "CALL db.index.fulltext.queryNodes($index, $q, {limit: $k}) YIELD node, score RETURN node.id, score",
        {{"index", kTextIndex}, {"q", q}, {"k", k}});
    std::vector<std::pair<std::string, double>> out;
    for (const auto& row : r.rows) out.emplace_back(str(row[0]), num(row[1]));
    return out;
  }

  bool chunk_text_pending() override { return text_pending_; }

  void chunk_text_restored() override {
    db_.run("MATCH (m:MmkgGraphMeta {key: 'graph'}) REMOVE m.chunk_text_pending");
    text_pending_ = false;
  }

  std::vector<std::pair<std::string, double>> vector_search(const std::vector<float>& query, int k) override {
    if (query.empty() || k <= 0) return {};
    if (!vector_dim_) vector_dim_ = existing_vector_dim();
    if (!vector_dim_) return {};  // no vectors were ever stored
    if (query.size() != vector_dim_)
      throw UsageError("query vector has dimension " + std::to_string(query.size()) +
                       ", the Neo4j chunk vectors have " + std::to_string(vector_dim_) +
                       "; use the embedding model the graph was built with");
    if (!vector_awaited_) {
      db_.run("CALL db.awaitIndexes(300)");
      vector_awaited_ = true;
    }
    json q = json::array();
    for (float x : query) q.push_back(static_cast<double>(x));
    auto r = db_.run(
        "CALL db.index.vector.queryNodes($index, $k, $q) YIELD node, score RETURN node.id, score",
        {{"index", kVectorIndex}, {"k", k}, {"q", std::move(q)}});
    std::vector<std::pair<std::string, double>> out;
    // Neo4j's cosine score is (1 + cos) / 2; give back the cosine.
    for (const auto& row : r.rows) out.emplace_back(str(row[0]), 2 * num(row[1]) - 1);
    return out;
  }

 private:
  void run_batched(const char* statement, const std::vector<json>& rows) {
    const size_t batch = static_cast<size_t>(std::max(1, db_.target().batch));
    for (size_t i = 0; i < rows.size(); i += batch) {
      json slice = json::array();
      for (size_t j = i; j < std::min(rows.size(), i + batch); ++j) slice.push_back(rows[j]);
      db_.run(statement, {{"rows", std::move(slice)}});
    }
  }

  void ensure_schema() {
    auto meta = db_.run("OPTIONAL MATCH (m:MmkgGraphMeta {key: 'graph'}) RETURN m.schema_version, m.chunk_text_pending");
    bool older = false;
    if (!meta.rows.empty() && meta.rows[0][0].is_number()) {
      const int v = meta.rows[0][0].get<int>();
      text_pending_ = meta.rows[0][1].is_boolean() && meta.rows[0][1].get<bool>();
      if (v > detail::kGraphSchemaVersion)
        throw UsageError("the graph in Neo4j at " + db_.target().shown + " has schema version " +
                         std::to_string(v) + ", this mmkg understands up to " +
                         std::to_string(detail::kGraphSchemaVersion) + "; upgrade mmkg");
      if (v == detail::kGraphSchemaVersion) return;
      // 1 → 2 needs no data change: REL.description is read with coalesce(…, ''). 2 → 3 neither:
      // a graph without Figure nodes has no figures; their constraint and index are made below.
      // 3 → 4: the full-text index is made below; the text of the chunk nodes already stored
      // comes from the mmkg store, which this graph store cannot read: chunk_text_pending until
      // the next graph sync writes it (sync_graph). 4 → 5 changed SQLite's evidence key only.
      older = v < 4;
    }
    for (const char* s : {
             "CREATE CONSTRAINT mmkg_entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE e.id IS UNIQUE",
             "CREATE CONSTRAINT mmkg_chunk_id IF NOT EXISTS FOR (c:Chunk) REQUIRE c.id IS UNIQUE",
             "CREATE CONSTRAINT mmkg_community_id IF NOT EXISTS FOR (c:Community) REQUIRE c.id IS UNIQUE",
             "CREATE CONSTRAINT mmkg_figure_id IF NOT EXISTS FOR (f:Figure) REQUIRE f.id IS UNIQUE",
             "CREATE INDEX mmkg_alias_key IF NOT EXISTS FOR (a:Alias) ON (a.key)",
             "CREATE INDEX mmkg_alias_entity IF NOT EXISTS FOR (a:Alias) ON (a.entity_id)",
             "CREATE INDEX mmkg_chunk_doc IF NOT EXISTS FOR (c:Chunk) ON (c.doc_id)",
             "CREATE INDEX mmkg_figure_doc IF NOT EXISTS FOR (f:Figure) ON (f.doc_id)",
             "CREATE INDEX mmkg_mention_doc IF NOT EXISTS FOR ()-[m:MENTIONED_IN]-() ON (m.doc_id)",
             "CREATE FULLTEXT INDEX mmkg_chunk_text IF NOT EXISTS FOR (c:Chunk) ON EACH [c.heading_path, c.text, "
             "c.context] OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: false}}",
         })
      db_.run(s);
    db_.run("CALL db.awaitIndexes(300)");
    if (older && !db_.run("MATCH (c:Chunk) WHERE c.text IS NULL RETURN 1 LIMIT 1").rows.empty()) text_pending_ = true;
    db_.run("MERGE (m:MmkgGraphMeta {key: 'graph'}) SET m.schema_version = $v, m.chunk_text_pending = $p",
            {{"v", detail::kGraphSchemaVersion}, {"p", text_pending_ ? json(true) : json(nullptr)}});
  }

  // Dimension of the existing vector index, 0 when there is none.
  size_t existing_vector_dim() {
    auto r = db_.run("SHOW INDEXES YIELD name, options WHERE name = $name RETURN options", {{"name", kVectorIndex}});
    if (r.rows.empty()) return 0;
    const json& o = r.rows[0][0];
    if (o.is_object() && o.contains("indexConfig") && o["indexConfig"].contains("vector.dimensions") &&
        o["indexConfig"]["vector.dimensions"].is_number())
      return o["indexConfig"]["vector.dimensions"].get<size_t>();
    return 0;
  }

  void ensure_vector_index(size_t dim) {
    if (!vector_dim_) vector_dim_ = existing_vector_dim();
    if (!vector_dim_) {
      // Exact (unquantised) vectors, so that scores are true cosines.
      db_.run(std::string("CREATE VECTOR INDEX ") + kVectorIndex +
                  " IF NOT EXISTS FOR (c:Chunk) ON c.embedding OPTIONS {indexConfig: {"
                  "`vector.dimensions`: $dim, `vector.similarity_function`: 'cosine', "
                  "`vector.quantization.enabled`: false}}",
              {{"dim", dim}});
      vector_dim_ = dim;
      vector_awaited_ = false;
    }
    if (dim != vector_dim_)
      throw UsageError("chunk vectors have dimension " + std::to_string(dim) + ", the Neo4j vector index holds " +
                       std::to_string(vector_dim_) + "; use the embedding model the graph was built with, or clear it");
  }

  static std::vector<FigureNode> read_figures(const Neo4jResult& r) {
    std::vector<FigureNode> out;
    out.reserve(r.rows.size());
    for (const auto& row : r.rows) out.push_back(read_figure(row));
    return out;
  }

  static Entity read_entity(const json& row) {
    Entity e;
    e.id = str(row[0]);
    e.name = str(row[1]);
    e.type = str(row[2]);
    e.description = str(row[3]);
    e.score = num(row[4]);
    e.aliases = strs(row[5]);
    return e;
  }

  Neo4jClient db_;
  bool chunks_external_ = false;  ///< chunk nodes belong to a shared store (make_neo4j_graph_store)
  size_t vector_dim_ = 0;
  bool vector_awaited_ = false;
  bool text_awaited_ = false;
  bool text_pending_ = false;  ///< chunk nodes of an older mmkg lack their text (schema version 4)
};

}  // namespace

std::unique_ptr<GraphStore> make_neo4j_graph_store(const std::string& url, bool chunks_owned_by_store) {
  return std::make_unique<Neo4jGraphStore>(url, chunks_owned_by_store);
}

}  // namespace mmkg::graph
