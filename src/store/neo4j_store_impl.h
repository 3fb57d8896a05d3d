// Internal to the Neo4j store (neo4j_store.cc: the class and its writes; neo4j_store_sync.cc:
// the local copy's sync and the JSON forms of documents, chunks and figures).
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "net/neo4j_query.h"
#include "store/neo4j_store.h"
#include "store/sqlite_store.h"

namespace mmkg::neo4j_store {

using nlohmann::json;

/// Version of the model written in neo4j_store.h (MmkgStore.schema_version).
constexpr int kSchemaVersion = 1;

/// The JSON forms written to and read from Neo4j (property maps; empty vectors left out).
json document_props(const DocumentRecord& d, const std::string& text, size_t chunks);
DocumentRecord document_from(const json& props);
json chunk_props(const Chunk& c, const DocumentRecord& d, const std::string& embed_model);
Chunk chunk_from(const json& props, std::string* embed_model);
json figure_props(const Figure& f, const std::string& doc_id);
Figure figure_from(const json& data);

/// A vector as a JSON list of doubles (exact: every float is a double; Neo4j stores LIST<FLOAT>).
json float_array(const std::vector<float>& v);
/// A number of a Query API row (integers arrive as JSON numbers).
int64_t as_i64(const json& v);

class Neo4jStore final : public Store {
 public:
  /// `worker`: this process's writer id (a reader connection shares its writer's).
  Neo4jStore(Neo4jTarget target, std::unique_ptr<SqliteStore> local, std::string uuid, std::string worker);
  ~Neo4jStore() override;

  bool read_only() const override { return false; }
  std::optional<DocumentRecord> find_by_path(const std::string& path) override { return local_->find_by_path(path); }
  std::optional<DocumentRecord> find_by_id(const std::string& id) override { return local_->find_by_id(id); }
  std::vector<DocumentRecord> resolve(const std::string& key) override { return local_->resolve(key); }
  std::vector<DocumentRecord> documents() override { return local_->documents(); }
  std::string document_text(const std::string& id) override { return local_->document_text(id); }
  std::optional<std::string> source(const std::string& doc_id) override;
  void put_source(const std::string& doc_id, const std::string& bytes) override;
  bool keeps_sources() const override { return true; }
  WriteResult put_document(const DocumentRecord& doc, const std::string& text, const std::vector<Chunk>& chunks,
                           const std::optional<std::string>& replace_id, const std::string& embed_model,
                           const std::vector<Figure>& figures) override;
  bool delete_document(const std::string& id, WriteResult* removed) override;
  std::vector<std::vector<float>> cached_embeddings(const std::string& model,
                                                    const std::vector<std::string>& texts) override {
    return local_->cached_embeddings(model, texts);
  }
  void put_embeddings(const std::string& model, const std::vector<std::string>& texts,
                      const std::vector<std::vector<float>>& vecs, bool chunk_vectors) override;
  std::vector<std::pair<int64_t, std::string>> chunks_without_vectors(const std::string& model) override {
    return local_->chunks_without_vectors(model);
  }
  void for_each_vector(const std::string& model, const std::function<void(int64_t, const float*, size_t)>& fn,
                       const std::vector<int64_t>* only) override {
    local_->for_each_vector(model, fn, only);
  }
  std::vector<StoredChunk> chunks_by_rowid(const std::vector<int64_t>& rowids) override {
    return local_->chunks_by_rowid(rowids);
  }
  std::vector<int64_t> adjacent_rowids(int64_t rowid) override { return local_->adjacent_rowids(rowid); }
  int64_t generation() override { return local_->generation(); }
  std::optional<StoredChunk> chunk(const std::string& chunk_id) override { return local_->chunk(chunk_id); }
  std::vector<PageBox> chunk_boxes(const std::string& chunk_id) override { return local_->chunk_boxes(chunk_id); }
  std::vector<PageBox> chunk_boxes(int64_t rowid) override { return local_->chunk_boxes(rowid); }
  std::vector<StoredChunk> chunks_of(const std::string& doc_id) override { return local_->chunks_of(doc_id); }
  std::vector<StoredFigure> figures_of(const std::string& doc_id) override { return local_->figures_of(doc_id); }
  std::vector<StoredFigure> find_figures(const std::string& key) override { return local_->find_figures(key); }
  std::vector<StoredFigure> figures_labelled(const std::string& label) override {
    return local_->figures_labelled(label);
  }
  std::string figure_path(const std::string& image_hash) const override { return local_->figure_path(image_hash); }
  int64_t figure_count() override { return local_->figure_count(); }
  std::optional<std::string> cache_get(const std::string& key) override;
  void cache_put(const std::string& key, const std::string& value) override;
  std::vector<std::string> leftover_files() override { return local_->leftover_files(); }
  int remove_unreferenced_images() override;
  StoreStats stats() override;
  std::vector<GraphDocMark> graph_documents(const std::string& backend) override;
  size_t graph_document_count(const std::string& backend) override;
  void mark_graph_document(const std::string& backend, const std::string& doc_id, const std::string& extractor,
                           bool present) override;
  void join_writers() override;
  Claim claim(const std::string& path, const std::string& doc_id) override;
  void release(const std::string& path) override;
  bool done_writing() override;
  void take_graph_lease(const std::function<void(const std::string&)>& on_wait) override;
  void leave_writers() override;
  std::unique_ptr<Store> open_reader() override;
  void put_job(const std::string& id, const std::string& json) override;
  std::optional<std::string> job(const std::string& id) override;
  bool shared() const override { return true; }
  WriteResult sync() override;
  std::string location() const override { return db_.target().shown; }
  sqlite3* db() override { return local_->db(); }
  const std::string& dir() const override { return local_->dir(); }
  void exec(const std::string& sql) override { local_->exec(sql); }

 private:
  void write_images(const std::vector<Figure>& figures);
  void write_staged(const std::string& version, const DocumentRecord& doc, const std::string& text,
                    const std::vector<Chunk>& chunks, const std::string& embed_model,
                    const std::vector<Figure>& figures);
  void drop_staged(const std::string& version);
  void sweep_staged();
  /// Runs `statement` over `rows` in UNWIND batches of at most kBatchRows rows and kBatchBytes.
  void run_rows(const std::string& statement, const std::vector<json>& rows, const json& params = json::object());
  // sync (neo4j_store_sync.cc)
  int64_t remote_generation();
  void apply_document(const std::string& id, WriteResult& out);
  void apply_tombstone(const std::string& id, WriteResult& out);

  void heartbeat();

  Neo4jClient db_;
  std::unique_ptr<SqliteStore> local_;
  std::string uuid_;
  std::string worker_;
  int64_t ttl_ms_;  ///< a writer's registration, claims and lease lapse this long after its last heartbeat
  bool swept_ = false;
  bool joined_ = false;
  std::thread beat_;
  std::mutex beat_mu_;
  std::condition_variable beat_cv_;
  bool beat_stop_ = false;
};

/// A random 16-hex-digit token (staged versions, writer ids).
std::string random_token();

/// Adds `r`'s row ids to `out`.
void append(WriteResult& out, WriteResult&& r);

}  // namespace mmkg::neo4j_store
