// Keeps the knowledge graph in step with the store: extraction (cached per chunk text and
// extractor), termhood ranking, entity resolution, writes to the GraphStore, communities.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "graph/model/extractor.h"
#include "graph/model/graph_store.h"
#include "graph/resolve/resolve.h"

namespace mmkg {
class Store;
class Embedder;
}  // namespace mmkg

namespace mmkg::graph {

struct GraphSyncOptions {
  /// Identifies where the graph lives ("sqlite", "neo4j:HOST:PORT/DB"): the store remembers
  /// per backend which documents are in the graph, so switching backends rebuilds there.
  std::string backend_key = "sqlite";
  bool communities = true;
  /// Embedding model whose stored chunk vectors go to backends with a vector index (Neo4j).
  std::string vector_model;
  ResolveOptions resolve;
  /// Build the graph of documents the graph lacks. `mmkg delete` turns it off: a delete only
  /// removes (building pending documents is ingest's work, with its extractor and model).
  bool add_documents = true;
  /// Called after each document with (done, total, document name).
  std::function<void(size_t, size_t, const std::string&)> progress;
  /// NameEmbedding::prefetch of the `embed` given to sync_graph (empty: names are embedded per
  /// document as resolution asks for them).
  std::function<void(const std::vector<std::string>&)> prefetch_names;
};

struct GraphSyncResult {
  std::string extractor;      ///< the extractor's id ("rules-v4", "llm-v1:MODEL:PROMPT")
  ExtractorCounters model;    ///< model calls, cache hits, fallbacks and tokens of this run
  int documents_added = 0;    ///< documents whose graph was built
  int documents_removed = 0;  ///< documents no longer in the store, removed from the graph
  long long chunks_extracted = 0;
  long long extractions_cached = 0;  ///< chunks whose extraction came from the cache
  int communities = 0;
  GraphStats stats;
  double seconds = 0;
  double extract_seconds = 0;
  double resolve_seconds = 0;
  double write_seconds = 0;
  double community_seconds = 0;
};

/// Builds the graph of every document of `store` the graph lacks (in store order; a figure or
/// table becomes a FigureNode linked to the entities its chunk mentions), removes the
/// documents the store no longer has (deleted or replaced, their figures with them), and recomputes communities when
/// anything changed. Each document's graph is written in one SQLite transaction together with
/// its bookkeeping row, so a killed run resumes where it stopped. `embed` may be empty.
GraphSyncResult sync_graph(Store& store, GraphStore& graph, Extractor& extractor, const EmbedNames& embed,
                           const GraphSyncOptions& options = {});

/// Name embedding for queries (entity linking of a question): the vectors of names the store's
/// embeddings table holds (the entities' names, cached at ingest), others embedded and kept in
/// memory only, so that asking never writes the store. Returns an empty function when
/// `embedder` is null.
EmbedNames make_embed_names(Store& store, Embedder* embedder);

/// Name embedding for ingest: `embed` as make_embed_names, and the names it is asked for are
/// cached in the store's embeddings table (never bumping the chunk-vector generation) when
/// `keep_in_store` and the store is writable; `prefetch` embeds names in one batch into the memory
/// `embed` reads first (not into the store), so that a group of documents' candidate names cost
/// one call to the embedder instead of one per document. Both empty when `embedder` is null.
struct NameEmbedding {
  EmbedNames embed;
  std::function<void(const std::vector<std::string>&)> prefetch;
};
NameEmbedding make_name_embedding(Store& store, Embedder* embedder, bool keep_in_store = true);

/// What an extractor spent between two readings of its counters (first_fallback: the latest
/// reading's, when a fallback happened in between).
ExtractorCounters counters_since(const ExtractorCounters& before, const ExtractorCounters& now);

/// The store-side rows: which documents each backend holds (for `mmkg stats`).
long long graph_document_count(Store& store, const std::string& backend_key);

}  // namespace mmkg::graph
