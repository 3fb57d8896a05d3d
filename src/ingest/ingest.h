// The ingest pipeline: files → parse (parser threads) → chunk → store (one transaction per document,
// searchable by BM25 once committed) → embed (its own thread, batches across documents).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/chunker.h"
#include "ingest/figures.h"
#include "ingest/files.h"

namespace mmkg {

class Store;
class Embedder;

struct IngestOptions {
  ChunkerOptions chunker;
  int64_t max_file_bytes = int64_t{256} << 20;  ///< larger files are refused (--max-file-size)
  int threads = 0;                              ///< parser threads; 0 = number of cores
  Embedder* embedder = nullptr;                 ///< computes chunk embeddings; nullptr = BM25 only
  FigureOptions figures;                        ///< figures and tables: OCR, vision model
  bool follow_symlinks = false;  ///< also ingest what symlinks inside a folder lead to outside it
};

/// Snapshot passed to the progress callback after each file and after each embedding batch (one
/// call at a time, from the writer's thread or the embedding stage's).
struct IngestProgress {
  size_t files_done = 0, files_total = 0;
  int64_t pages = 0;
  int64_t bytes = 0;
  double seconds = 0;
  std::string current;  ///< path of the file last finished
  /// While committed chunks wait to be embedded: how many of those handed to the embedding stage
  /// in this ingest are embedded, out of how many (embed_total == 0 when none waits). Embedding
  /// runs behind the files: a large document's takes minutes.
  int64_t embed_done = 0, embed_total = 0;
};

struct IngestResult {
  int documents = 0;    ///< added or replaced
  int skipped = 0;      ///< unchanged (same path, same content) or duplicate content
  int64_t chunks = 0;   ///< chunks written
  int figures = 0;      ///< figures extracted (images and drawings)
  int tables = 0;       ///< tables extracted
  int ocr_runs = 0;     ///< images OCR'd
  int ocr_cached = 0;   ///< OCR results reused from the store's cache (same image seen before)
  int ocr_skipped = 0;  ///< of ocr_runs: no line of text found (or blank), Tesseract not run
  double ocr_seconds = 0;   ///< summed over threads
  int described = 0;       ///< vision model calls
  int describe_cached = 0;  ///< descriptions reused from the cache
  double describe_seconds = 0;
  int64_t pages = 0;    ///< pages parsed
  int64_t bytes = 0;    ///< input bytes parsed
  int ignored = 0;      ///< unsupported files inside folders
  int64_t embedded = 0;       ///< chunk embeddings computed (including the backfill of missing ones)
  int64_t embed_reused = 0;   ///< chunks whose text was embedded before (stored, or earlier in this ingest)
  double embed_seconds = 0;   ///< time spent computing embeddings
  std::string vector_index;   ///< what happened to the vector index ("updated", "rebuilt: why", "")
  std::string lexical_index;  ///< what happened to the Xapian lexical index ("built: why", "updated", "synced: why", "")
  std::vector<FileError> failed;
  std::vector<FileError> warnings;
  std::vector<FileError> skipped_links;  ///< symlinks leading out of an ingested folder, not followed
  double seconds = 0;
};

using ProgressFn = std::function<void(const IngestProgress&)>;

/// The revision of mmkg's reader of a format: 1 for every format as first released, raised when
/// a reader change alters the text of files it already read (PDF 2: TeX ligature slots).
int reader_revision(const std::string& format);
/// A document's id: the hash of its bytes, combined with its reader's revision when that is above
/// 1. A file that a newer reader reads differently gets a new id, so the next ingest replaces
/// its stored text, chunks, vectors and graph as it replaces an edited file's.
std::string document_id(std::string_view bytes, const std::string& format);

/// Ingests files and folders into `store`. Bad files are reported in `failed` and never stop
/// the batch. Throws for store-level failures (StoreFullError, StoreLockedError), and, after
/// every document is stored, when the embedder failed (the chunks it did not embed stay without
/// vectors; the next ingest embeds them). The caller holds the store's write lock.
IngestResult ingest(Store& store, const std::vector<std::string>& paths, const IngestOptions& opt,
                    const ProgressFn& progress = nullptr);

}  // namespace mmkg
