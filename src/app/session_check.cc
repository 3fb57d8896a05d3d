// Session::check (mmkg check): each part of a store checked against what it is derived from.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <iterator>
#include <optional>

#include "app/session.h"
#include "core/error.h"
#include "embed/embedder.h"
#include "graph/build/graph_builder.h"
#include "index/vector_store.h"
#include "index/xapian_lexical.h"
#include "store/sqlite_util.h"

namespace mmkg {

namespace {

long long count(Store& store, const char* sql) {
  Stmt s(store.db(), sql);
  return s.step() ? s.i64(0) : 0;
}

using ChunkRows = std::vector<std::pair<int64_t, std::string>>;

// SQLite's own check of the file: pages, indexes, constraints.
Check check_sqlite(Store& store) {
  Stmt s(store.db(), "PRAGMA quick_check");
  std::string first = s.step() ? s.text(0) : "no answer";
  return {"sqlite", first == "ok", first == "ok" ? "the database file is sound" : "PRAGMA quick_check: " + first};
}

// The FTS5 index against the chunks it indexes (an external-content table: rank 1 makes
// integrity-check compare the index with the chunks table, not only with itself).
Check check_fulltext(Store& store, long long chunks) {
  if (store.read_only())
    return {"fulltext", true, "not checked: the store is read-only here (FTS5's integrity check needs write access)"};
  try {
    store.exec("INSERT INTO chunks_fts(chunks_fts, rank) VALUES('integrity-check', 1)");
    return {"fulltext", true, "the full-text index matches the " + std::to_string(chunks) + " chunks"};
  } catch (const Error& e) {
    return {"fulltext", false,
            std::string("the full-text index does not match the chunks (") + e.what() +
                "); rebuild it with `sqlite3 STORE/mmkg.db \"INSERT INTO chunks_fts(chunks_fts) VALUES('rebuild')\"`"};
  }
}

// Every chunk belongs to a stored document, every page box to a chunk.
Check check_chunks(Store& store) {
  const long long orphans = count(store, "SELECT count(*) FROM chunks WHERE doc_id NOT IN (SELECT id FROM documents)");
  const long long stray_boxes =
      count(store, "SELECT count(*) FROM chunk_boxes WHERE chunk_rowid NOT IN (SELECT rowid FROM chunks)");
  std::string detail =
      orphans == 0 ? "every chunk belongs to a document" : std::to_string(orphans) + " chunks without a document";
  if (stray_boxes > 0)
    detail += "; " + std::to_string(stray_boxes) +
              " page boxes without a chunk (remove them with `sqlite3 STORE/mmkg.db \"DELETE FROM chunk_boxes "
              "WHERE chunk_rowid NOT IN (SELECT rowid FROM chunks)\"`)";
  return {"chunks", orphans == 0 && stray_boxes == 0, detail};
}

// The embeddings and the vector index derived from them. Not only the count: every id of the
// index must be a chunk that has a vector (a count can match while one row id is missing and
// another one is stale).
Check check_vectors(Store& store, Embedder& emb, long long chunks, const std::function<const ChunkRows&()>& chunk_rows) {
  const auto without = store.chunks_without_vectors(emb.id());
  const size_t missing = without.size();
  VectorIndexStatus st;
  auto index = open_vector_index(store, emb.id(), emb.dim(), {}, &st);
  const long long indexed = index ? static_cast<long long>(index->size()) : 0;
  long long stray = 0;
  if (index) {
    std::vector<int64_t> with_vector;  // chunk row ids minus `without` (both by row id)
    auto w = without.begin();
    for (const auto& [id, chunk_id] : chunk_rows()) {
      while (w != without.end() && w->first < id) ++w;
      if (w == without.end() || w->first != id) with_vector.push_back(id);
    }
    std::vector<int64_t> ids = index->ids(), extra;
    std::sort(ids.begin(), ids.end());
    std::set_difference(ids.begin(), ids.end(), with_vector.begin(), with_vector.end(), std::back_inserter(extra));
    stray = static_cast<long long>(extra.size());
  }
  const bool ok = indexed + static_cast<long long>(missing) == chunks && stray == 0;
  std::string detail =
      std::to_string(indexed) + " of " + std::to_string(chunks) + " chunks in the vector index (" + emb.id() + ")";
  if (missing) detail += "; " + std::to_string(missing) + " without a vector (the next ingest computes them)";
  if (stray) {
    detail += "; " + std::to_string(stray) + " ids in the index are not chunks with a vector (delete " +
              vector_index_path(store.dir()) + ": the next search rebuilds it)";
  }
  if (st.rebuilt) detail += "; the index file was rebuilt (" + st.reason + ")";
  return {"vectors", ok, detail};
}

// The Xapian lexical index of a large store against the chunks; search uses FTS5 whenever it is
// missing, unreadable or behind the store, so only a disagreement at the store's own generation
// is a fault.
Check check_lexical(Store& store, const std::function<const ChunkRows&()>& chunk_rows) {
  const std::string path = lexical_index_path(store.dir());
  std::string why;
  auto index = XapianLexical::open(store.dir(), &why);
  if (!std::filesystem::exists(path))
    return {"lexical", true,
            "no lexical index: FTS5 serves BM25 (the index is built from " + std::to_string(lexical_index_threshold()) +
                " chunks on)"};
  if (!index) return {"lexical", true, why + "; FTS5 serves BM25 until the next ingest or delete rebuilds it"};
  if (const int64_t g = index->generation(); g != store.generation())
    return {"lexical", true,
            "the lexical index is behind the store (generation " + std::to_string(g) + ", store " +
                std::to_string(store.generation()) + "); FTS5 serves BM25 until the next ingest or delete syncs it"};
  const auto& chunks = chunk_rows();
  const bool same = index->entries() == chunks;
  return {"lexical", same,
          same ? "the lexical index matches the " + std::to_string(chunks.size()) + " chunks"
               : "the lexical index (" + std::to_string(index->size()) + " chunks) does not match the " +
                     std::to_string(chunks.size()) + " chunks; remove STORE/lexical.xapian and the next ingest "
                     "rebuilds it"};
}

// Files nothing refers to: what a killed write left (the next ingest removes them).
Check check_files(Store& store) {
  const auto left = store.leftover_files();
  return {"files", true,
          left.empty() ? "no leftover files"
                       : std::to_string(left.size()) + " leftover files of an interrupted write (" +
                             std::filesystem::path(left[0]).filename().string() + (left.size() > 1 ? ", ..." : "") +
                             "); the next ingest removes them"};
}

}  // namespace

// Which documents the graph holds, against the store. Mentions of a document the graph holds and
// the store still has must point at its live chunks (the in-store graph only: a Neo4j graph is
// checked by its document count).
Check Session::check_graph(long long docs) {
  try {
    const std::string key = cfg_.graph.key();
    const long long in_graph = graph::graph_document_count(store(), key);
    const long long stale = graph_deleted_documents();
    auto g = graph_store()->stats();
    std::string detail = std::to_string(in_graph) + " of " + std::to_string(docs) + " documents in the graph (" + key +
                         "): " + std::to_string(g.entities) + " entities, " + std::to_string(g.relations) +
                         " relations";
    if (in_graph - stale < docs) detail += "; the next ingest builds the rest";
    if (stale) detail += "; " + std::to_string(stale) + " deleted documents still in the graph (the next ingest removes them)";
    long long dangling = 0;
    if (cfg_.graph.kind != GraphBackend::Kind::Neo4j) {
      Stmt m(store().db(),
             "SELECT count(*) FROM graph_mentions WHERE doc_id IN (SELECT id FROM documents) "
             "AND chunk_id NOT IN (SELECT id FROM chunks)");
      dangling = m.step() ? m.i64(0) : 0;
      if (dangling) detail += "; " + std::to_string(dangling) + " mentions point at chunks that do not exist";
    }
    return {"graph", dangling == 0, detail};
  } catch (const Error& e) {
    return {"graph", false, e.what()};
  }
}

CheckReport Session::check() {
  CheckReport rep;
  const StoreStats counts = store().stats();
  auto add = [&](Check c) {
    rep.ok = rep.ok && c.ok;
    rep.checks.push_back(std::move(c));
  };
  add(check_sqlite(store()));
  add(check_fulltext(store(), counts.chunks));
  add(check_chunks(store()));
  // The chunks' (row id, id) by row id, read once for the vector and lexical checks.
  std::optional<ChunkRows> chunk_rows_cache;
  auto chunk_rows = [&]() -> const ChunkRows& {
    if (!chunk_rows_cache) chunk_rows_cache = chunk_entries(store());
    return *chunk_rows_cache;
  };
  if (!embedder().disabled()) {
    Embedder* emb = embedder().get();
    add(emb ? check_vectors(store(), *emb, counts.chunks, chunk_rows)
            : Check{"vectors", true, "not checked: " + embedder().unavailable_reason()});
  }
  add(check_lexical(store(), chunk_rows));
  add(check_files(store()));
  if (cfg_.graph.enabled()) add(check_graph(counts.documents));
  return rep;
}

}  // namespace mmkg
