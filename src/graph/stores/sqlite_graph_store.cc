// The SQLite graph store: graph_* tables inside the mmkg database, created on first use and
// versioned by a row in graph_meta (older versions are migrated step by step, see migrate()). Writes join the caller's open transaction (inside a
// savepoint, so a failed write leaves the caller's other work intact) or run in their own.
#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <unordered_map>

#include "core/error.h"
#include "core/hash.h"
#include "graph/model/graph_store.h"
#include "graph/stores/graph_store_impl.h"
#include "store/sqlite_util.h"

namespace mmkg::graph {

namespace {

// Evidence rows carry the share of the relation weight they brought, so that removing a document
// takes exactly that weight away. A relation's weight = sum of its evidence weights + any weight
// given without evidence.
const char* kGraphSchemaV1 = R"SQL(
CREATE TABLE IF NOT EXISTS graph_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE graph_entities(
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  type        TEXT NOT NULL,
  description TEXT NOT NULL,
  score       REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE graph_aliases(
  seq       INTEGER PRIMARY KEY,
  entity_id TEXT NOT NULL,
  alias     TEXT NOT NULL,
  name_key  TEXT NOT NULL,
  UNIQUE(entity_id, alias)
);
CREATE INDEX graph_aliases_key ON graph_aliases(name_key);
CREATE TABLE graph_mentions(
  entity_id TEXT NOT NULL,
  chunk_id  TEXT NOT NULL,
  doc_id    TEXT NOT NULL,
  surface   TEXT NOT NULL,
  count     INTEGER NOT NULL,
  PRIMARY KEY(entity_id, chunk_id)
) WITHOUT ROWID;
CREATE INDEX graph_mentions_doc ON graph_mentions(doc_id);
CREATE TABLE graph_relations(
  id     INTEGER PRIMARY KEY,
  src    TEXT NOT NULL,
  dst    TEXT NOT NULL,
  type   TEXT NOT NULL,
  weight REAL NOT NULL,
  UNIQUE(src, dst, type)
);
CREATE INDEX graph_relations_dst ON graph_relations(dst);
CREATE TABLE graph_evidence(
  seq      INTEGER PRIMARY KEY,
  rel_id   INTEGER NOT NULL,
  chunk_id TEXT NOT NULL,
  doc_id   TEXT NOT NULL,
  sentence TEXT NOT NULL,
  weight   REAL NOT NULL,
  UNIQUE(rel_id, chunk_id, sentence)
);
CREATE INDEX graph_evidence_doc ON graph_evidence(doc_id);
CREATE TABLE graph_communities(
  id        TEXT PRIMARY KEY,
  level     INTEGER NOT NULL,
  title     TEXT NOT NULL,
  summary   TEXT NOT NULL,
  chunk_ids TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE graph_community_members(
  community_id TEXT NOT NULL,
  entity_id    TEXT NOT NULL,
  pos          INTEGER NOT NULL,
  PRIMARY KEY(community_id, entity_id)
) WITHOUT ROWID;
CREATE INDEX graph_community_members_entity ON graph_community_members(entity_id);
)SQL";

// Version 2: a relation's description (LLM extraction; empty for rule-based relations).
const char* kGraphMigrateV1toV2 = R"SQL(
ALTER TABLE graph_relations ADD COLUMN description TEXT NOT NULL DEFAULT '';
)SQL";

// Version 3: figure and table nodes, and the entities each one depicts (`pos`: the order given).
const char* kGraphMigrateV2toV3 = R"SQL(
CREATE TABLE graph_figures(
  id       TEXT PRIMARY KEY,
  doc_id   TEXT NOT NULL,
  chunk_id TEXT NOT NULL,
  kind     TEXT NOT NULL,
  label    TEXT NOT NULL,
  caption  TEXT NOT NULL,
  page     INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX graph_figures_doc ON graph_figures(doc_id);
CREATE TABLE graph_depicts(
  figure_id TEXT NOT NULL,
  entity_id TEXT NOT NULL,
  pos       INTEGER NOT NULL,
  PRIMARY KEY(figure_id, entity_id)
) WITHOUT ROWID;
CREATE INDEX graph_depicts_entity ON graph_depicts(entity_id);
)SQL";

// Version 5: an evidence row is told apart by the 64-bit hash of its sentence (sentence_hash,
// XXH3 as a signed integer) instead of the sentence itself, so the unique index holds three
// integers-or-ids rather than a second copy of every sentence (half of the table's size).
const char* kGraphMigrateV4toV5 = R"SQL(
CREATE TABLE graph_evidence_v5(
  seq           INTEGER PRIMARY KEY,
  rel_id        INTEGER NOT NULL,
  chunk_id      TEXT NOT NULL,
  doc_id        TEXT NOT NULL,
  sentence      TEXT NOT NULL,
  sentence_hash INTEGER NOT NULL,
  weight        REAL NOT NULL,
  UNIQUE(rel_id, chunk_id, sentence_hash)
);
)SQL";

const char* kGraphMigrateV4toV5Swap = R"SQL(
DROP TABLE graph_evidence;
ALTER TABLE graph_evidence_v5 RENAME TO graph_evidence;
CREATE INDEX graph_evidence_doc ON graph_evidence(doc_id);
)SQL";

/// The evidence key of a sentence (schema 5).
int64_t sentence_key(const std::string& sentence) { return static_cast<int64_t>(hash64(sentence)); }

const char* kFigureColumns = "id, doc_id, chunk_id, kind, label, caption, page";

void exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw IOError("graph store: database error: " + msg);
  }
}

/// Own transaction when none is open; a savepoint inside the caller's transaction otherwise.
class WriteScope {
 public:
  explicit WriteScope(sqlite3* db) : db_(db) {
    if (sqlite3_get_autocommit(db)) {
      tx_.emplace(db);
    } else {
      exec(db, "SAVEPOINT mmkg_graph");
      savepoint_ = true;
    }
  }
  ~WriteScope() {
    if (savepoint_ && !done_) {
      sqlite3_exec(db_, "ROLLBACK TO mmkg_graph", nullptr, nullptr, nullptr);
      sqlite3_exec(db_, "RELEASE mmkg_graph", nullptr, nullptr, nullptr);
    }
  }
  void commit() {
    if (tx_) tx_->commit();
    else exec(db_, "RELEASE mmkg_graph");
    done_ = true;
  }

 private:
  sqlite3* db_;
  std::optional<Transaction> tx_;
  bool savepoint_ = false;
  bool done_ = false;
};

class SqliteGraphStore final : public GraphStore {
 public:
  explicit SqliteGraphStore(sqlite3* db) : db_(db) { migrate(); }

  Backend backend() const override { return Backend::Sqlite; }

  void upsert(const GraphDelta& delta) override {
    const auto entities = detail::merge_entities(delta.entities);
    const auto mentions = detail::merge_mentions(delta.mentions);
    const auto relations = detail::merge_relations(delta.relations);
    const auto figures = detail::merge_figures(delta.figures);
    WriteScope w(db_);
    if (!entities.empty()) write_entities(entities);
    if (!mentions.empty()) write_mentions(mentions);
    if (!relations.empty()) write_relations(relations);
    if (!figures.empty()) write_figures(figures);
    w.commit();
  }

  void remove_document(const std::string& doc_id) override {
    WriteScope w(db_);
    // Entities that lose a mention here are the only ones that can become orphans.
    std::vector<std::string> touched;
    {
      Stmt s(db_, "SELECT DISTINCT entity_id FROM graph_mentions WHERE doc_id = ?1");
      s.bind(1, doc_id);
      while (s.step()) touched.push_back(s.text(0));
    }
    Stmt(db_, "DELETE FROM graph_mentions WHERE doc_id = ?1").bind(1, doc_id).run();
    std::vector<std::pair<int64_t, double>> lost;  // relation id, weight its evidence from doc carried
    {
      Stmt s(db_, "SELECT rel_id, total(weight) FROM graph_evidence WHERE doc_id = ?1 GROUP BY rel_id");
      s.bind(1, doc_id);
      while (s.step()) lost.emplace_back(s.i64(0), s.f64(1));
    }
    Stmt(db_, "DELETE FROM graph_evidence WHERE doc_id = ?1").bind(1, doc_id).run();
    Stmt(db_, "DELETE FROM graph_depicts WHERE figure_id IN (SELECT id FROM graph_figures WHERE doc_id = ?1)")
        .bind(1, doc_id)
        .run();
    Stmt(db_, "DELETE FROM graph_figures WHERE doc_id = ?1").bind(1, doc_id).run();
    {
      Stmt sub(db_, "UPDATE graph_relations SET weight = weight - ?2 WHERE id = ?1");
      Stmt drop(db_, "DELETE FROM graph_relations WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM graph_evidence WHERE rel_id = ?1)");
      for (const auto& [id, wt] : lost) {
        sub.reset();
        sub.bind(1, id).bind(2, wt).run();
        drop.reset();
        drop.bind(1, id).run();
      }
    }
    {
      Stmt still(db_, "SELECT 1 FROM graph_mentions WHERE entity_id = ?1 LIMIT 1");
      for (const auto& e : touched) {
        still.reset();
        still.bind(1, e);
        if (still.step()) continue;
        still.reset();
        delete_entity(e);
      }
    }
    w.commit();
  }

  void clear() override {
    WriteScope w(db_);
    exec(db_,
         "DELETE FROM graph_entities; DELETE FROM graph_aliases; DELETE FROM graph_mentions; "
         "DELETE FROM graph_relations; DELETE FROM graph_evidence; DELETE FROM graph_communities; "
         "DELETE FROM graph_community_members; DELETE FROM graph_figures; DELETE FROM graph_depicts;");
    w.commit();
  }

  std::optional<Entity> entity(const std::string& id) override {
    Stmt s(db_, "SELECT id, name, type, description, score FROM graph_entities WHERE id = ?1");
    s.bind(1, id);
    if (!s.step()) return std::nullopt;
    Entity e = read_entity(s);
    Stmt a(db_, "SELECT alias FROM graph_aliases WHERE entity_id = ?1 ORDER BY seq");
    a.bind(1, id);
    while (a.step()) e.aliases.push_back(a.text(0));
    return e;
  }

  std::vector<std::string> find_by_key(const std::string& key) override {
    std::vector<std::string> out;
    if (key.empty()) return out;
    Stmt s(db_, "SELECT DISTINCT entity_id FROM graph_aliases WHERE name_key = ?1 ORDER BY entity_id");
    s.bind(1, key);
    while (s.step()) out.push_back(s.text(0));
    return out;
  }

  std::vector<Entity> entities() override {
    std::vector<Entity> out;
    std::unordered_map<std::string, size_t> at;
    {
      Stmt s(db_, "SELECT id, name, type, description, score FROM graph_entities ORDER BY id");
      while (s.step()) {
        at.emplace(s.text(0), out.size());
        out.push_back(read_entity(s));
      }
    }
    Stmt a(db_, "SELECT entity_id, alias FROM graph_aliases ORDER BY seq");
    while (a.step()) {
      auto it = at.find(a.text(0));
      if (it != at.end()) out[it->second].aliases.push_back(a.text(1));
    }
    return out;
  }

  std::vector<Relation> relations_of(const std::string& entity_id, int limit) override {
    if (limit <= 0) return {};
    Stmt s(db_,
           "SELECT id, src, dst, type, weight, description FROM graph_relations WHERE src = ?1 UNION "
           "SELECT id, src, dst, type, weight, description FROM graph_relations WHERE dst = ?1 "
           "ORDER BY weight DESC, src, dst, type LIMIT ?2");
    s.bind(1, entity_id).bind(2, limit);
    return read_relations(s);
  }

  std::vector<Relation> relations() override {
    Stmt s(db_, "SELECT id, src, dst, type, weight, description FROM graph_relations ORDER BY src, dst, type");
    return read_relations(s, /*all=*/true);
  }

  std::vector<FigureNode> figures_of_entity(const std::string& entity_id, int limit) override {
    if (limit <= 0) return {};
    Stmt s(db_, std::string("SELECT ") + kFigureColumns +
                    " FROM graph_figures WHERE id IN (SELECT figure_id FROM graph_depicts WHERE entity_id = ?1) "
                    "ORDER BY doc_id, page, id LIMIT ?2");
    s.bind(1, entity_id).bind(2, limit);
    return read_figures(s);
  }

  std::optional<FigureNode> figure(const std::string& id) override {
    Stmt s(db_, std::string("SELECT ") + kFigureColumns + " FROM graph_figures WHERE id = ?1");
    s.bind(1, id);
    auto out = read_figures(s);
    if (out.empty()) return std::nullopt;
    return std::move(out[0]);
  }

  std::vector<FigureNode> figures() override {
    Stmt s(db_, std::string("SELECT ") + kFigureColumns + " FROM graph_figures ORDER BY id");
    return read_figures(s, /*all=*/true);
  }

  std::vector<Mention> mentions_of(const std::string& entity_id) override {
    Stmt s(db_,
           "SELECT entity_id, chunk_id, doc_id, surface, count FROM graph_mentions WHERE entity_id = ?1 "
           "ORDER BY doc_id, chunk_id");
    s.bind(1, entity_id);
    return read_mentions(s);
  }

  std::vector<Mention> mentions() override {
    Stmt s(db_, "SELECT entity_id, chunk_id, doc_id, surface, count FROM graph_mentions ORDER BY entity_id, chunk_id");
    return read_mentions(s);
  }

  GraphStats stats() override {
    GraphStats st;
    Stmt s(db_,
           "SELECT (SELECT count(*) FROM graph_entities), (SELECT count(*) FROM graph_relations), "
           "(SELECT count(*) FROM graph_mentions), (SELECT count(*) FROM graph_aliases), "
           "(SELECT count(*) FROM graph_communities), (SELECT count(*) FROM graph_figures)");
    s.step();
    st.entities = s.i64(0);
    st.relations = s.i64(1);
    st.mentions = s.i64(2);
    st.aliases = s.i64(3);
    st.communities = s.i64(4);
    st.figures = s.i64(5);
    return st;
  }

  void replace_communities(const std::vector<Community>& communities) override {
    WriteScope w(db_);
    exec(db_, "DELETE FROM graph_communities; DELETE FROM graph_community_members;");
    Stmt c(db_,
           "INSERT INTO graph_communities(id, level, title, summary, chunk_ids) VALUES (?1, ?2, ?3, ?4, ?5) "
           "ON CONFLICT(id) DO UPDATE SET level = excluded.level, title = excluded.title, "
           "summary = excluded.summary, chunk_ids = excluded.chunk_ids");
    // Members that are not stored entities are dropped (Neo4j has no node to link them to).
    Stmt m(db_,
           "INSERT OR IGNORE INTO graph_community_members(community_id, entity_id, pos) "
           "SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM graph_entities WHERE id = ?2)");
    for (const auto& com : communities) {
      c.reset();
      c.bind(1, com.id).bind(2, com.level).bind(3, com.title).bind(4, com.summary)
          .bind(5, nlohmann::json(com.chunk_ids).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
          .run();
      int pos = 0;
      for (const auto& e : com.entity_ids) {
        m.reset();
        m.bind(1, com.id).bind(2, e).bind(3, pos++).run();
      }
    }
    w.commit();
  }

  std::vector<Community> communities() override {
    std::vector<Community> out;
    std::unordered_map<std::string, size_t> at;
    {
      Stmt s(db_, "SELECT id, level, title, summary, chunk_ids FROM graph_communities ORDER BY level, id");
      while (s.step()) {
        Community c;
        c.id = s.text(0);
        c.level = s.i32(1);
        c.title = s.text(2);
        c.summary = s.text(3);
        auto j = nlohmann::json::parse(s.text(4), nullptr, false);
        if (j.is_array())
          for (const auto& x : j)
            if (x.is_string()) c.chunk_ids.push_back(x.get<std::string>());
        at.emplace(c.id, out.size());
        out.push_back(std::move(c));
      }
    }
    Stmt m(db_, "SELECT community_id, entity_id FROM graph_community_members ORDER BY community_id, pos");
    while (m.step()) {
      auto it = at.find(m.text(0));
      if (it != at.end()) out[it->second].entity_ids.push_back(m.text(1));
    }
    return out;
  }

 private:
  // upsert()'s steps, inside its write scope, each given a non-empty merged list.
  void write_entities(const std::vector<Entity>& entities) {
    Stmt ent(db_,
             "INSERT INTO graph_entities(id, name, type, description, score) VALUES (?1, ?2, ?3, ?4, ?5) "
             "ON CONFLICT(id) DO UPDATE SET score = max(score, excluded.score), "
             "type = CASE WHEN type IN ('', 'concept') THEN excluded.type ELSE type END, "
             "description = CASE WHEN description = '' THEN excluded.description ELSE description END");
    Stmt alias(db_, "INSERT OR IGNORE INTO graph_aliases(entity_id, alias, name_key) VALUES (?1, ?2, ?3)");
    for (const auto& e : entities) {
      ent.reset();
      ent.bind(1, e.id).bind(2, e.name).bind(3, e.type).bind(4, e.description).bind(5, e.score).run();
      for (const auto& a : e.aliases) {
        alias.reset();
        alias.bind(1, e.id).bind(2, a).bind(3, name_key(a)).run();
      }
    }
  }

  void write_mentions(const std::vector<Mention>& mentions) {
    // Mentions of unknown entities are dropped (as in Neo4j, where they have nothing to hang on).
    Stmt men(db_,
             "INSERT INTO graph_mentions(entity_id, chunk_id, doc_id, surface, count) "
             "SELECT ?1, ?2, ?3, ?4, ?5 WHERE EXISTS (SELECT 1 FROM graph_entities WHERE id = ?1) "
             "ON CONFLICT(entity_id, chunk_id) DO UPDATE SET count = count + excluded.count");
    for (const auto& m : mentions) {
      men.reset();
      men.bind(1, m.entity_id).bind(2, m.chunk_id).bind(3, m.doc_id).bind(4, m.surface).bind(5, m.count).run();
    }
  }

  void write_relations(const std::vector<detail::RelationWrite>& relations) {
    Stmt rel(db_,
             "INSERT INTO graph_relations(src, dst, type, weight, description) SELECT ?1, ?2, ?3, ?4, ?5 "
             "WHERE EXISTS (SELECT 1 FROM graph_entities WHERE id = ?1) "
             "AND EXISTS (SELECT 1 FROM graph_entities WHERE id = ?2) "
             "ON CONFLICT(src, dst, type) DO UPDATE SET weight = weight + excluded.weight, "
             "description = CASE WHEN description = '' THEN excluded.description ELSE description END "
             "RETURNING id");
    Stmt ev(db_,
            "INSERT INTO graph_evidence(rel_id, chunk_id, doc_id, sentence, sentence_hash, weight) "
            "VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
            "ON CONFLICT(rel_id, chunk_id, sentence_hash) DO UPDATE SET weight = weight + excluded.weight");
    for (const auto& r : relations) {
      rel.reset();
      rel.bind(1, r.src).bind(2, r.dst).bind(3, r.type).bind(4, r.weight).bind(5, r.description);
      if (!rel.step()) continue;  // an endpoint is unknown
      const int64_t id = rel.i64(0);
      rel.run();
      for (const auto& e : r.evidence) {
        ev.reset();
        ev.bind(1, id).bind(2, e.ev.chunk_id).bind(3, e.ev.doc_id).bind(4, e.ev.sentence);
        ev.bind(5, sentence_key(e.ev.sentence)).bind(6, e.weight).run();
      }
    }
  }

  void write_figures(const std::vector<FigureNode>& figures) {
    // A figure is replaced whole: its row and all its links (a re-extraction may link others).
    Stmt fig(db_,
             "INSERT OR REPLACE INTO graph_figures(id, doc_id, chunk_id, kind, label, caption, page) "
             "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    Stmt unlink(db_, "DELETE FROM graph_depicts WHERE figure_id = ?1");
    // Links to unknown entities are dropped (Neo4j has no node to link them to).
    Stmt link(db_,
              "INSERT OR IGNORE INTO graph_depicts(figure_id, entity_id, pos) "
              "SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM graph_entities WHERE id = ?2)");
    for (const auto& f : figures) {
      fig.reset();
      fig.bind(1, f.id).bind(2, f.doc_id).bind(3, f.chunk_id).bind(4, std::string(figure_kind_name(f.kind)))
          .bind(5, f.label).bind(6, f.caption).bind(7, f.page).run();
      unlink.reset();
      unlink.bind(1, f.id).run();
      int pos = 0;
      for (const auto& e : f.entity_ids) {
        link.reset();
        link.bind(1, f.id).bind(2, e).bind(3, pos++).run();
      }
    }
  }

  void migrate() {
    if (schema_version() == detail::kGraphSchemaVersion) return;
    WriteScope w(db_);
    // Read again under the write lock: another process may have made the tables meanwhile.
    const int version = schema_version();
    if (version == detail::kGraphSchemaVersion) return;
    if (version > detail::kGraphSchemaVersion)
      throw UsageError("the store's graph has schema version " + std::to_string(version) +
                       ", this mmkg understands up to " + std::to_string(detail::kGraphSchemaVersion) +
                       "; upgrade mmkg");
    // Each step takes the schema one version up; a fresh store runs them all.
    if (version < 1) exec(db_, kGraphSchemaV1);
    if (version < 2) exec(db_, kGraphMigrateV1toV2);
    if (version < 3) exec(db_, kGraphMigrateV2toV3);
    if (version < 5) migrate_evidence_v5();
    Stmt(db_, "INSERT OR REPLACE INTO graph_meta(key, value) VALUES ('schema_version', ?1)")
        .bind(1, std::to_string(detail::kGraphSchemaVersion))
        .run();
    w.commit();
  }

  // Schema 5: the evidence rows move, in their order, to a table keyed by the sentence's hash.
  void migrate_evidence_v5() {
    exec(db_, kGraphMigrateV4toV5);
    {
      Stmt read(db_, "SELECT seq, rel_id, chunk_id, doc_id, sentence, weight FROM graph_evidence ORDER BY seq");
      Stmt put(db_,
               "INSERT INTO graph_evidence_v5(seq, rel_id, chunk_id, doc_id, sentence, sentence_hash, weight) "
               "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
               "ON CONFLICT(rel_id, chunk_id, sentence_hash) DO UPDATE SET weight = weight + excluded.weight");
      while (read.step()) {
        const std::string sentence = read.text(4);
        put.reset();
        put.bind(1, read.i64(0)).bind(2, read.i64(1)).bind(3, read.text(2)).bind(4, read.text(3));
        put.bind(5, sentence).bind(6, sentence_key(sentence)).bind(7, read.f64(5)).run();
      }
    }
    exec(db_, kGraphMigrateV4toV5Swap);
  }

  int schema_version() {
    int version = 0;
    {
      Stmt s(db_, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'graph_meta'");
      s.step();
      if (s.i64(0) > 0) {
        Stmt v(db_, "SELECT value FROM graph_meta WHERE key = 'schema_version'");
        if (v.step()) version = std::stoi(v.text(0));
      }
    }
    return version;
  }

  static Entity read_entity(Stmt& s) {
    Entity e;
    e.id = s.text(0);
    e.name = s.text(1);
    e.type = s.text(2);
    e.description = s.text(3);
    e.score = s.f64(4);
    return e;
  }

  static std::vector<Mention> read_mentions(Stmt& s) {
    std::vector<Mention> out;
    while (s.step()) {
      Mention m;
      m.entity_id = s.text(0);
      m.chunk_id = s.text(1);
      m.doc_id = s.text(2);
      m.surface = s.text(3);
      m.count = s.i32(4);
      out.push_back(std::move(m));
    }
    return out;
  }

  // Rows (id, src, dst, type, weight, description) → relations with their evidence in insertion order.
  std::vector<Relation> read_relations(Stmt& s, bool all = false) {
    std::vector<Relation> out;
    std::unordered_map<int64_t, size_t> at;
    while (s.step()) {
      at.emplace(s.i64(0), out.size());
      out.push_back(Relation{s.text(1), s.text(2), s.text(3), s.f64(4), {}, s.text(5)});
    }
    if (out.empty()) return out;
    auto add = [&](Stmt& e) {
      while (e.step()) {
        auto it = at.find(e.i64(0));
        if (it != at.end()) out[it->second].evidence.push_back(Evidence{e.text(1), e.text(2), e.text(3)});
      }
    };
    if (all) {
      Stmt e(db_, "SELECT rel_id, chunk_id, doc_id, sentence FROM graph_evidence ORDER BY seq");
      add(e);
    } else {
      Stmt e(db_, "SELECT rel_id, chunk_id, doc_id, sentence FROM graph_evidence WHERE rel_id = ?1 ORDER BY seq");
      for (const auto& [id, idx] : at) {
        e.reset();
        e.bind(1, id);
        add(e);
      }
    }
    return out;
  }

  // Rows of kFigureColumns → figures with their entity links in the order given.
  std::vector<FigureNode> read_figures(Stmt& s, bool all = false) {
    std::vector<FigureNode> out;
    std::unordered_map<std::string, size_t> at;
    while (s.step()) {
      FigureNode f;
      f.id = s.text(0);
      f.doc_id = s.text(1);
      f.chunk_id = s.text(2);
      f.kind = figure_kind_from_name(s.text(3));
      f.label = s.text(4);
      f.caption = s.text(5);
      f.page = s.i32(6);
      at.emplace(f.id, out.size());
      out.push_back(std::move(f));
    }
    if (out.empty()) return out;
    auto add = [&](Stmt& d) {
      while (d.step()) {
        auto it = at.find(d.text(0));
        if (it != at.end()) out[it->second].entity_ids.push_back(d.text(1));
      }
    };
    if (all) {
      Stmt d(db_, "SELECT figure_id, entity_id FROM graph_depicts ORDER BY figure_id, pos");
      add(d);
    } else {
      Stmt d(db_, "SELECT figure_id, entity_id FROM graph_depicts WHERE figure_id = ?1 ORDER BY pos");
      for (const auto& [id, idx] : at) {
        d.reset();
        d.bind(1, id);
        add(d);
      }
    }
    return out;
  }

  // An entity and everything hanging on it: aliases, relations (with evidence), memberships,
  // figure links.
  void delete_entity(const std::string& id) {
    Stmt(db_,
         "DELETE FROM graph_evidence WHERE rel_id IN "
         "(SELECT id FROM graph_relations WHERE src = ?1 UNION SELECT id FROM graph_relations WHERE dst = ?1)")
        .bind(1, id)
        .run();
    Stmt(db_, "DELETE FROM graph_relations WHERE src = ?1 OR dst = ?1").bind(1, id).run();
    Stmt(db_, "DELETE FROM graph_aliases WHERE entity_id = ?1").bind(1, id).run();
    Stmt(db_, "DELETE FROM graph_community_members WHERE entity_id = ?1").bind(1, id).run();
    Stmt(db_, "DELETE FROM graph_depicts WHERE entity_id = ?1").bind(1, id).run();
    Stmt(db_, "DELETE FROM graph_entities WHERE id = ?1").bind(1, id).run();
  }

  sqlite3* db_;
};

}  // namespace

std::unique_ptr<GraphStore> make_sqlite_graph_store(sqlite3* db) {
  if (!db) throw UsageError("the SQLite graph store needs an open mmkg store");
  return std::make_unique<SqliteGraphStore>(db);
}

}  // namespace mmkg::graph
