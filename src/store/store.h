// The store interface (documents, chunks, vectors, figures) and its records. The embedded
// implementation is sqlite_store.h, the shared one neo4j_store.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/types.h"

struct sqlite3;

namespace mmkg {

/// One ingested document.
struct DocumentRecord {
  std::string id;      ///< content hash (16 hex digits)
  std::string path;    ///< absolute path it was ingested from
  std::string name;    ///< file name (what citations show as `doc`)
  std::string format;  ///< pdf, markdown, text, html
  std::string title;
  int64_t bytes = 0;   ///< size of the source file
  int pages = 0;
  int chunks = 0;
  std::string ingested_at;  ///< UTC ISO-8601
};

struct StoreStats {
  int64_t documents = 0, chunks = 0, pages = 0, bytes = 0;
  int64_t text_chars = 0;  ///< characters (not bytes) of the documents' rendered text
  int schema_version = 0;
  std::string path;
  int64_t db_bytes = 0;
};

/// A chunk as stored, with its document's name (for citations).
struct StoredChunk {
  Chunk chunk;
  std::string doc_name;
  int64_t rowid = 0;  ///< the chunk's row id: its id in the vector index
  std::string figure_label;  ///< a figure's chunk: "Figure 2" (empty when uncaptioned)
  FigureKind figure_kind = FigureKind::Figure;  ///< a figure's chunk: figure or table (text chunks: unused)
};

/// What the full-text index's "context" column holds for a document's chunks: its file name
/// without the extension, separators turned into spaces ("attention_wiki.txt" → "attention
/// wiki"), and its title ("attention wiki | Attention (machine learning)").
std::string document_context(const std::string& name, const std::string& title);

/// A figure or table as stored (Figure::png is not loaded: the image is a file, figure_path()).
struct StoredFigure {
  Figure figure;
  std::string doc_id;
  std::string doc_name;
  std::string chunk_id;  ///< its own chunk (caption, references, inner text, description)
};

/// Row ids a write added and removed (to update the vector index incrementally).
struct WriteResult {
  std::vector<int64_t> added_rowids;
  std::vector<int64_t> removed_rowids;
  std::vector<std::string> removed_hashes;
};

/// Which documents a graph backend holds, and which extractor built each (the graph's
/// bookkeeping: `mmkg ingest` builds the documents missing from it, removes those gone from the
/// store, rebuilds those older rules made).
struct GraphDocMark {
  std::string doc_id;
  std::string extractor;
};

/// Where documents, chunks, vectors, figures and the per-image cache live. Two implementations
/// share this interface and one conformance suite (store_conformance_test.cc): SqliteStore, the
/// embedded default (one directory, store.h's Store::open), and Neo4jStore, a Neo4j database that
/// several mmkg processes and machines share (neo4j_store.h). Not thread-safe: one per thread.
///
/// Reads of a Neo4jStore are served by a node-local SQLite copy under its cache directory (dir()),
/// which sync() brings up to date; so db() and dir() name that local copy for both kinds, and the
/// derived indexes (vector index, Xapian) live beside it.
class Store {
 public:
  /// Current on-disk schema version of the SQLite store (PRAGMA user_version).
  static constexpr int kSchemaVersion = 6;

  /// Opens (and with `create`, creates) the embedded SQLite store in directory `dir`.
  /// Throws IOError when it cannot, UsageError for a store of a newer schema.
  /// A store on a read-only file system (or whose folder or database file this user may not
  /// write) opens read-only: search, ask and check work, every write throws IOError saying so.
  static std::unique_ptr<Store> open(const std::string& dir, bool create = true);
  virtual ~Store() = default;

  /// True when the store was opened read-only (see open()).
  virtual bool read_only() const = 0;

  virtual std::optional<DocumentRecord> find_by_path(const std::string& path) = 0;
  virtual std::optional<DocumentRecord> find_by_id(const std::string& id) = 0;
  /// Documents matching `key`: an id, an id prefix (>= 4 hex digits), a file name or a path.
  virtual std::vector<DocumentRecord> resolve(const std::string& key) = 0;
  virtual std::vector<DocumentRecord> documents() = 0;
  /// The document's rendered text ("" for an unknown id).
  virtual std::string document_text(const std::string& id) = 0;
  /// The document's file as it was ingested, when the store keeps it (a shared store does: the
  /// file is on another machine); nullopt for the embedded store, which reads it at its path.
  virtual std::optional<std::string> source(const std::string& /*doc_id*/) { return std::nullopt; }
  /// Keeps the file of document `doc_id` (before put_document), when keeps_sources().
  virtual void put_source(const std::string& /*doc_id*/, const std::string& /*bytes*/) {}
  virtual bool keeps_sources() const { return false; }

  /// Inserts a document and its chunks (with their embeddings for `embed_model`, when a chunk's
  /// `vector` is set) in one transaction; first deletes the document with id `replace_id` (an
  /// older version of the same path) if given. Atomic under SIGKILL.
  /// `figures` (with their PNG bytes) are written too: each image once per content hash, before
  /// the transaction (a kill in between leaves an unreferenced image that the next write
  /// removes, never a row without its image).
  virtual WriteResult put_document(const DocumentRecord& doc, const std::string& text,
                                   const std::vector<Chunk>& chunks, const std::optional<std::string>& replace_id,
                                   const std::string& embed_model = "", const std::vector<Figure>& figures = {}) = 0;
  /// Deletes a document and everything derived from it. Returns false if it did not exist.
  virtual bool delete_document(const std::string& id, WriteResult* removed = nullptr) = 0;

  /// Embeddings already stored for these chunk texts under `model` (empty vectors where none).
  virtual std::vector<std::vector<float>> cached_embeddings(const std::string& model,
                                                            const std::vector<std::string>& texts) = 0;
  /// Stores embeddings for chunk texts (backfill of chunks ingested without a model). With
  /// `chunk_vectors` false (entity names and other non-chunk texts) the store generation is not
  /// bumped, so the vector index is not made stale, and the vectors are kept as IEEE binary16
  /// (they read back as round_to_half of what was given: core/half.h).
  virtual void put_embeddings(const std::string& model, const std::vector<std::string>& texts,
                              const std::vector<std::vector<float>>& vecs, bool chunk_vectors = true) = 0;
  /// (rowid, text) of chunks with no embedding under `model`.
  virtual std::vector<std::pair<int64_t, std::string>> chunks_without_vectors(const std::string& model) = 0;
  /// Calls fn(rowid, vector, dim) for every embedded chunk (or only for the row ids in `only`).
  virtual void for_each_vector(const std::string& model, const std::function<void(int64_t, const float*, size_t)>& fn,
                               const std::vector<int64_t>* only = nullptr) = 0;
  virtual std::vector<StoredChunk> chunks_by_rowid(const std::vector<int64_t>& rowids) = 0;
  /// The row ids of the chunks just before and after a chunk in its document (by seq); empty
  /// for an unknown row id.
  virtual std::vector<int64_t> adjacent_rowids(int64_t rowid) = 0;
  /// Incremented by every change of the (local) rows: the vector index records the generation
  /// it reflects.
  virtual int64_t generation() = 0;

  /// The chunk with this id; its `boxes` are not loaded (chunk_boxes()).
  virtual std::optional<StoredChunk> chunk(const std::string& chunk_id) = 0;
  /// Where a chunk's text lies on its PDF pages (Chunk::boxes), in order; empty for a chunk of
  /// another format, one stored before schema version 4, or an unknown chunk.
  virtual std::vector<PageBox> chunk_boxes(const std::string& chunk_id) = 0;
  virtual std::vector<PageBox> chunk_boxes(int64_t rowid) = 0;
  virtual std::vector<StoredChunk> chunks_of(const std::string& doc_id) = 0;

  // ---- figures and tables ----
  /// Figures of a document in reading order.
  virtual std::vector<StoredFigure> figures_of(const std::string& doc_id) = 0;
  /// Figures whose id is `key` or starts with it (>= 4 hex digits).
  virtual std::vector<StoredFigure> find_figures(const std::string& key) = 0;
  /// Figures and tables captioned `label` ("Figure 3", "Table 2"), over all documents.
  virtual std::vector<StoredFigure> figures_labelled(const std::string& label) = 0;
  /// Path of a stored image (figures/HASH.png under dir()); the file exists unless the store was
  /// damaged.
  virtual std::string figure_path(const std::string& image_hash) const = 0;
  virtual int64_t figure_count() = 0;
  /// Cache of per-image work (OCR, vision descriptions) keyed by what produced it and the
  /// image's hash; survives deletes, so a document ingested again costs no OCR or model call.
  virtual std::optional<std::string> cache_get(const std::string& key) = 0;
  virtual void cache_put(const std::string& key, const std::string& value) = 0;
  /// Files in the store folder that nothing refers to: figure images no figure uses, and
  /// temporary files (NAME.tmpPID...) whose writing process is gone. Left by a killed write.
  virtual std::vector<std::string> leftover_files() = 0;
  /// Removes leftover_files(); returns how many. Runs after deletes and at the start of an ingest
  /// (under StoreWriteLock, so no other writer's image is taken for a leftover).
  virtual int remove_unreferenced_images() = 0;
  virtual StoreStats stats() = 0;

  // ---- the graph's bookkeeping (which documents a graph backend holds) ----
  virtual std::vector<GraphDocMark> graph_documents(const std::string& backend) = 0;
  /// How many documents the graph `backend` holds: what every server request asks (read_mark), so
  /// a shared store answers with a count, not with every document's row.
  virtual size_t graph_document_count(const std::string& backend) = 0;
  /// Records that `doc_id` is in (`present`) or out of the graph `backend`.
  virtual void mark_graph_document(const std::string& backend, const std::string& doc_id,
                                   const std::string& extractor, bool present) = 0;

  // ---- several writers at once ----
  // A shared store takes several ingesting processes at once; the embedded store has one writer
  // at a time (StoreWriteLock), so there these do nothing and every path is this writer's.
  /// Registers this process as a writer until leave_writers(); a heartbeat keeps the
  /// registration, and the claims, alive; a killed writer's lapse after MMKG_CLAIM_TTL seconds.
  virtual void join_writers() {}
  /// What claim() found.
  enum class Claim {
    Mine,       ///< this writer holds the file now (release() it once written)
    Elsewhere,  ///< another live writer holds it
    Stored,     ///< the file with content `doc_id` is stored already (by a writer this process's
                ///< local copy has not caught up with); nothing is held
  };
  /// Claims `path`, whose content is document `doc_id`, for this writer.
  virtual Claim claim(const std::string& /*path*/, const std::string& /*doc_id*/) { return Claim::Mine; }
  virtual void release(const std::string& /*path*/) {}
  /// This writer has written its documents: true when no other live writer is still writing
  /// (the caller then brings the graph in step, once, for all of them).
  virtual bool done_writing() { return true; }
  /// Takes the graph's lease, waiting while another live writer holds it (`on_wait` is told
  /// once); held until leave_writers().
  virtual void take_graph_lease(const std::function<void(const std::string&)>& /*on_wait*/) {}
  virtual void leave_writers() {}
  /// Another connection to the same store, for a parsing thread: reads, the per-image cache
  /// and claims (as this writer). Never syncs.
  virtual std::unique_ptr<Store> open_reader() = 0;

  /// The server's ingest jobs, as JSON by id, so that every server of a shared store answers for
  /// each; the embedded store keeps none (its one server holds its jobs in memory).
  virtual void put_job(const std::string& /*id*/, const std::string& /*json*/) {}
  virtual std::optional<std::string> job(const std::string& /*id*/) { return std::nullopt; }

  // ---- sharing ----
  /// True for a store several processes and machines write (Neo4jStore): ingest then embeds
  /// before it commits, and readers call sync() to see the others' writes.
  virtual bool shared() const { return false; }
  /// Brings the node-local copy up to date with the shared store; returns the local rows it
  /// added and removed, for the derived indexes (the caller updates them, as ingest does with
  /// put_document's). Nothing to do for the embedded store.
  virtual WriteResult sync() { return {}; }
  /// What messages call the store: its directory, or a shared store's URL without credentials.
  virtual std::string location() const { return dir(); }

  /// The local SQLite database: the store itself, or a shared store's node-local copy.
  virtual sqlite3* db() = 0;
  /// The local directory: the store's, or a shared store's cache directory.
  virtual const std::string& dir() const = 0;
  /// Runs `sql` (no results) on db(); throws IOError with the SQLite message on failure.
  virtual void exec(const std::string& sql) = 0;
};

}  // namespace mmkg
