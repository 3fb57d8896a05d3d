// The embedded store: one directory with mmkg.db (SQLite, WAL, versioned schema).
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

/// SQLite-backed store. Not thread-safe: use one Store per thread.
class Store {
 public:
  /// Current on-disk schema version (PRAGMA user_version).
  static constexpr int kSchemaVersion = 4;

  /// Opens (and with `create`, creates) the store in directory `dir`.
  /// Throws IOError when it cannot, UsageError for a store of a newer schema.
  /// A store on a read-only file system (or whose folder or database file this user may not
  /// write) opens read-only: search, ask and check work, every write throws IOError saying so.
  static std::unique_ptr<Store> open(const std::string& dir, bool create = true);
  ~Store();

  /// True when the store was opened read-only (see open()).
  bool read_only() const { return read_only_; }

  std::optional<DocumentRecord> find_by_path(const std::string& path);
  std::optional<DocumentRecord> find_by_id(const std::string& id);
  /// Documents matching `key`: an id, an id prefix (>= 4 hex digits), a file name or a path.
  std::vector<DocumentRecord> resolve(const std::string& key);
  std::vector<DocumentRecord> documents();

  /// Inserts a document and its chunks (with their embeddings for `embed_model`, when a chunk's
  /// `vector` is set) in one transaction; first deletes the document with id `replace_id` (an
  /// older version of the same path) if given. Atomic under SIGKILL.
  /// `figures` (with their PNG bytes) are written too: each image once per content hash under
  /// figures/, before the transaction (a kill in between leaves an unreferenced file that the
  /// next write removes, never a row without its file).
  WriteResult put_document(const DocumentRecord& doc, const std::string& text, const std::vector<Chunk>& chunks,
                           const std::optional<std::string>& replace_id, const std::string& embed_model = "",
                           const std::vector<Figure>& figures = {});
  /// Deletes a document and everything derived from it. Returns false if it did not exist.
  bool delete_document(const std::string& id, WriteResult* removed = nullptr);

  /// Embeddings already stored for these chunk texts under `model` (empty vectors where none).
  std::vector<std::vector<float>> cached_embeddings(const std::string& model, const std::vector<std::string>& texts);
  /// Stores embeddings for chunk texts (backfill of chunks ingested without a model). With
  /// `chunk_vectors` false (entity names and other non-chunk texts) the store generation is not
  /// bumped, so the vector index is not made stale.
  void put_embeddings(const std::string& model, const std::vector<std::string>& texts,
                      const std::vector<std::vector<float>>& vecs, bool chunk_vectors = true);
  /// (rowid, text) of chunks with no embedding under `model`.
  std::vector<std::pair<int64_t, std::string>> chunks_without_vectors(const std::string& model);
  /// Calls fn(rowid, vector, dim) for every embedded chunk (or only for the row ids in `only`).
  void for_each_vector(const std::string& model, const std::function<void(int64_t, const float*, size_t)>& fn,
                       const std::vector<int64_t>* only = nullptr);
  std::vector<StoredChunk> chunks_by_rowid(const std::vector<int64_t>& rowids);
  /// The row ids of the chunks just before and after a chunk in its document (by seq); empty
  /// for an unknown row id.
  std::vector<int64_t> adjacent_rowids(int64_t rowid);
  /// Incremented by every write: the vector index records the generation it reflects.
  int64_t generation();

  /// The chunk with this id; its `boxes` are not loaded (chunk_boxes()).
  std::optional<StoredChunk> chunk(const std::string& chunk_id);
  /// Where a chunk's text lies on its PDF pages (Chunk::boxes), in order; empty for a chunk of
  /// another format, one stored before schema version 4, or an unknown chunk.
  std::vector<PageBox> chunk_boxes(const std::string& chunk_id);
  std::vector<PageBox> chunk_boxes(int64_t rowid);

  // ---- figures and tables (store_figures.cc) ----
  /// Figures of a document in reading order.
  std::vector<StoredFigure> figures_of(const std::string& doc_id);
  /// Figures whose id is `key` or starts with it (>= 4 hex digits).
  std::vector<StoredFigure> find_figures(const std::string& key);
  /// Figures and tables captioned `label` ("Figure 3", "Table 2"), over all documents.
  std::vector<StoredFigure> figures_labelled(const std::string& label);
  /// Path of a stored image (figures/HASH.png); the file exists unless the store was damaged.
  std::string figure_path(const std::string& image_hash) const;
  int64_t figure_count();
  /// Cache of per-image work (OCR, vision descriptions) keyed by what produced it and the
  /// image's hash; survives deletes, so a document ingested again costs no OCR or model call.
  std::optional<std::string> cache_get(const std::string& key);
  void cache_put(const std::string& key, const std::string& value);
  /// Files in the store folder that nothing refers to: figure images no figure uses, and
  /// temporary files (NAME.tmpPID...) whose writing process is gone. Left by a killed write.
  std::vector<std::string> leftover_files();
  /// Removes leftover_files(); returns how many. Runs after deletes and at the start of an ingest
  /// (under StoreWriteLock, so no other writer's image is taken for a leftover).
  int remove_unreferenced_images();
  std::vector<StoredChunk> chunks_of(const std::string& doc_id);
  StoreStats stats();

  sqlite3* db() { return db_; }
  const std::string& dir() const { return dir_; }

  /// Runs `sql` (no results); throws IOError with the SQLite message on failure.
  void exec(const std::string& sql);

 private:
  Store(sqlite3* db, std::string dir) : db_(db), dir_(std::move(dir)) {}
  void migrate();
  void remove_rows(const std::string& doc_id, WriteResult& wr);
  void collect_garbage(const std::vector<std::string>& hashes);
  void bump_generation();
  void write_images(const std::vector<Figure>& figures);
  void insert_figures(const std::string& doc_id, const std::vector<Chunk>& chunks, const std::vector<Figure>& figures);
  sqlite3* db_;
  bool read_only_ = false;
  std::string dir_;
};

}  // namespace mmkg
