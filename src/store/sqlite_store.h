// The embedded store: one directory with mmkg.db (SQLite, WAL, versioned schema) and the figure
// images under figures/. The default; Store::open(dir) opens one.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "store/store.h"

namespace mmkg {

class SqliteStore final : public Store {
 public:
  /// See Store::open.
  static std::unique_ptr<SqliteStore> open(const std::string& dir, bool create = true);
  ~SqliteStore() override;

  bool read_only() const override { return read_only_; }
  std::optional<DocumentRecord> find_by_path(const std::string& path) override;
  std::optional<DocumentRecord> find_by_id(const std::string& id) override;
  std::vector<DocumentRecord> resolve(const std::string& key) override;
  std::vector<DocumentRecord> documents() override;
  std::string document_text(const std::string& id) override;
  WriteResult put_document(const DocumentRecord& doc, const std::string& text, const std::vector<Chunk>& chunks,
                           const std::optional<std::string>& replace_id, const std::string& embed_model,
                           const std::vector<Figure>& figures) override;
  bool delete_document(const std::string& id, WriteResult* removed) override;
  std::vector<std::vector<float>> cached_embeddings(const std::string& model,
                                                    const std::vector<std::string>& texts) override;
  void put_embeddings(const std::string& model, const std::vector<std::string>& texts,
                      const std::vector<std::vector<float>>& vecs, bool chunk_vectors) override;
  std::vector<std::pair<int64_t, std::string>> chunks_without_vectors(const std::string& model) override;
  void for_each_vector(const std::string& model, const std::function<void(int64_t, const float*, size_t)>& fn,
                       const std::vector<int64_t>* only) override;
  std::vector<StoredChunk> chunks_by_rowid(const std::vector<int64_t>& rowids) override;
  std::vector<int64_t> adjacent_rowids(int64_t rowid) override;
  int64_t generation() override;
  std::optional<StoredChunk> chunk(const std::string& chunk_id) override;
  std::vector<PageBox> chunk_boxes(const std::string& chunk_id) override;
  std::vector<PageBox> chunk_boxes(int64_t rowid) override;
  std::vector<StoredChunk> chunks_of(const std::string& doc_id) override;
  std::vector<StoredFigure> figures_of(const std::string& doc_id) override;
  std::vector<StoredFigure> find_figures(const std::string& key) override;
  std::vector<StoredFigure> figures_labelled(const std::string& label) override;
  std::string figure_path(const std::string& image_hash) const override;
  int64_t figure_count() override;
  std::optional<std::string> cache_get(const std::string& key) override;
  void cache_put(const std::string& key, const std::string& value) override;
  std::vector<std::string> leftover_files() override;
  int remove_unreferenced_images() override;
  StoreStats stats() override;
  std::vector<GraphDocMark> graph_documents(const std::string& backend) override;
  size_t graph_document_count(const std::string& backend) override;
  void mark_graph_document(const std::string& backend, const std::string& doc_id, const std::string& extractor,
                           bool present) override;
  std::unique_ptr<Store> open_reader() override { return Store::open(dir_, false); }
  sqlite3* db() override { return db_; }
  const std::string& dir() const override { return dir_; }
  void exec(const std::string& sql) override;

  /// A value of the `meta` table ("" when absent), and setting one (a shared store's local copy
  /// records there which generation of the shared store it reflects).
  std::string meta(const std::string& key);
  void set_meta(const std::string& key, const std::string& value);

 private:
  SqliteStore(sqlite3* db, std::string dir) : db_(db), dir_(std::move(dir)) {}
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
