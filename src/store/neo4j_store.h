// The shared store: a Neo4j 5 database (a single server, a cluster or Aura, through the HTTP
// Query API) that several mmkg processes on several machines read and write at once.
//
// Neo4j is the source of truth. Every process keeps a node-local SQLite copy of it (a SqliteStore
// under its cache directory, dir()) and serves every read from that copy, so search ranks exactly
// as the embedded store does (FTS5 or Xapian, the same vector index); sync() brings the copy up to
// date from the shared store's change feed (a generation counter, each committed document's
// generation and tombstones of deleted ones). The copy is a cache: deleting it costs one sync.
//
// Writes go to Neo4j first. A document is written staged (labels no reader or index matches:
// :StagedDocument, :StagedChunk, :StagedFigureRecord, tagged with a random version), then
// published by one statement, one transaction: the staged nodes get their real labels, the
// document replaced at the same path is deleted with a tombstone, and the store's generation
// goes up. A process killed before that statement leaves only staged nodes (invisible; swept by
// a later write after kStagedTtl); one killed after it has written the whole document.
//
// Model (besides the graph store's own nodes, which share the database):
//   (:MmkgStore {key:'store', uuid, schema_version, generation})
//   (:Document {id, path, name, format, title, bytes, pages, chunks, text, ingested_at, gen})
//   (:Chunk {id, doc_id, seq, page_start, page_end, heading_path, start, end, text, text_hash,
//            context, figure_id, boxes: [page, x0, y0, x1, y1, ...], embedding?, embed_model?})
//       the nodes the graph store's vector index (mmkg_chunk_embedding) and full-text index
//       (mmkg_chunk_text) cover; the graph store leaves them to this store
//   (:FigureRecord {id, doc_id, seq, image_hash, data: the figure as JSON})
//   (:Image {hash, png: base64})          one per distinct image
//   (:Tombstone {doc_id, gen})            a document deleted at generation gen
//   (:FigureCache {key, value})           the OCR/vision cache, shared by every worker
//   (:GraphDoc {backend, doc_id, extractor})  the graph's bookkeeping
#pragma once

#include <memory>
#include <string>

#include "store/store.h"

namespace mmkg {

/// How to reach and cache a shared store.
struct SharedStoreOptions {
  /// neo4j://USER:PASS@HOST:PORT[/DB] or http(s)://... (the HTTP port, as for --graph).
  std::string url;
  /// The folder for node-local caches ("" = $MMKG_CACHE_DIR, else $XDG_CACHE_HOME/mmkg, else
  /// ~/.cache/mmkg); the local copy goes in a subfolder named after the server and database.
  std::string cache_dir;
  /// Whether the store may be created (its schema and counter node made) when absent.
  bool create = true;
};

/// True for a --store value that names a shared store (neo4j://, http://, https://).
bool is_shared_store_spec(const std::string& spec);

/// Opens the shared store and its local copy (dropped first when it is a copy of another database).
/// The copy is as the last sync() of this cache folder left it: call sync() and hand the rows it
/// changed to the derived indexes (Session does). Throws UsageError for a bad URL or a missing
/// store with `create` false, Error when Neo4j cannot be reached.
std::unique_ptr<Store> open_neo4j_store(const SharedStoreOptions& opt);

/// The folder of the local copy for `url` under `cache_dir` (resolved as in SharedStoreOptions).
std::string shared_store_cache_dir(const std::string& url, const std::string& cache_dir);

}  // namespace mmkg
