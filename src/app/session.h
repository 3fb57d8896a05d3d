// Session: the one library entry point (as DuckDB's src/main). Built once from a typed Config, it
// owns the store, the embedder, the searcher, the graph store and the chat model, each built on
// first use, and offers every operation the CLI, the benches and the server need. Clients parse
// their arguments into requests, call the Session, and render its typed reports (app/json.h for
// the JSON contract).
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agents/ask.h"
#include "app/config.h"
#include "eval/eval.h"
#include "graph/build/graph_builder.h"
#include "graph/resolve/acronym_expand.h"
#include "index/model_file.h"
#include "ingest/formats.h"
#include "ingest/ingest.h"
#include "retrieve/rerank.h"
#include "store/store.h"

namespace mmkg {

class ChatModel;
class GraphContext;
class LazyEmbedder;
class LocalModelServer;
class Searcher;
class TermStats;
class GraphSearchBackend;
struct LazyLlm;

// ---- requests and reports

struct IngestRequest {
  std::vector<std::string> paths;  ///< files and folders (recursive)
  IngestOptions options;           ///< chunking, size limit, threads (its embedder is the session's)
  ExtractMode extract = ExtractMode::Rules;
  /// Vision model describing figures (an LLM spec, "URL#model=NAME"); empty: none.
  std::string vlm;
  /// Progress after each file, and while the graph is built (current = "graph: NAME").
  ProgressFn progress;
};

struct IngestReport {
  IngestResult files;
  std::string embedder;                     ///< the embedder's id; empty: none
  std::optional<graph::GraphSyncResult> graph;  ///< unset: no graph (disabled, or it failed: a warning said why)
  bool llm_extraction = false;              ///< the graph was extracted by a chat model
};

struct RemovedDocument {
  std::string id, doc, path;
  int chunks = 0;
};

struct RemoveReport {
  std::vector<RemovedDocument> deleted;
  struct Failure {
    std::string doc;
    std::string error;    ///< "not found" | "ambiguous"
    std::string message;  ///< what happened and what to do, for the error line
  };
  std::vector<Failure> failed;
  std::optional<graph::GraphSyncResult> graph;
};

struct SearchRequest {
  std::string query;
  int k = 10;
  SearchMode mode = SearchMode::Hybrid;
};

struct SearchReport {
  std::string query;
  SearchMode mode = SearchMode::Hybrid;  ///< the mode that ran (BM25 when hybrid fell back)
  std::string dense_backend;  ///< "faiss", "neo4j"; empty for bm25
  std::string lexical_backend;  ///< "fts5", "neo4j"; empty for dense
  /// Passages the graph ranked and fused in (graph_passages: the question names a specific
  /// entity with a home passage); 0: hybrid search alone.
  size_t graph_passages = 0;
  std::vector<SearchHit> hits;
};

struct AskRequest {
  std::string question;
  /// The query team's options (retrieval, budget, rounds, judge, on_step); graph and chat are
  /// the session's.
  AskOptions options;
  /// The rerankers (default lexical).
  RerankSpec rerank;
  /// With a language model, size the context to it (context_for_model, retrieve/context_budget.h)
  /// instead of options.retrieve's budget and passage cap (false: the caller sized it).
  bool fit_context = true;
};

struct EvalRequest {
  std::vector<QaItem> items;
  bool answers = false;
  std::vector<SearchMode> modes = {SearchMode::Bm25, SearchMode::Dense, SearchMode::Hybrid};
  RerankSpec rerank;               ///< scored as "<mode>+rerank" and used for answers
  AskOptions ask;                  ///< for answers; ask.retrieve holds the budget and the rerank settings
  std::string features;            ///< file for the fitted ranker's training rows (EvalOptions::features)
  bool cv = false;          ///< EvalOptions::cv
  bool fit_context = true;  ///< as AskRequest::fit_context, for the answers
};

struct StatsReport {
  StoreStats store;
  std::vector<DocumentRecord> docs;
  std::string graph_backend;            ///< key(); empty: --graph none
  std::optional<graph::GraphStats> graph;
  long long graph_documents = 0;
  std::string graph_error;              ///< the graph could not be read
};

/// One consistency check of `mmkg check`.
struct Check {
  std::string name;
  bool ok = true;
  std::string detail;
};

struct CheckReport {
  bool ok = true;
  std::vector<Check> checks;
};

struct EntityNeighbor {
  std::string id, name, relation, description;
  double weight = 0;
  bool outgoing = true;
  struct Evidence {
    std::string chunk_id, doc, sentence;
    int page = 0;
  };
  std::vector<Evidence> evidence;  ///< with_evidence only
};

/// A figure or table that depicts (or names) the entity: its chunk mentions it.
struct EntityFigure {
  std::string id, doc, label;  ///< doc: the document's file name
  FigureKind kind = FigureKind::Figure;
  std::string caption;
  int page = 0;
};

struct EntityReport {
  graph::Entity entity;
  size_t mentions = 0;
  std::vector<EntityNeighbor> neighbors;
  std::vector<EntityFigure> figures;  ///< the first few, by (document, page)
};

/// The graph at a glance (`mmkg graph overview`, GET /api/graph): its entities ranked by how
/// connected they are (distinct neighbours, then the passages that mention them, then the name),
/// one page of them, and the relations among that page's entities.
struct GraphOverview {
  struct Node {
    std::string id, name, type;
    size_t degree = 0;    ///< distinct entities it is related to
    size_t mentions = 0;  ///< passages that mention it
  };
  struct Link {
    std::string src, dst, type;
    double weight = 0;
  };
  size_t entities = 0;  ///< in the whole graph
  int page = 1, per_page = 0, pages = 0;
  std::vector<Node> nodes;
  std::vector<Link> links;  ///< between two of `nodes`, heaviest first, at most 3 per node
};

// An upload's format (the name it must carry for ingest to read it as what it is, and whether it
// must be UTF-8): upload_format() of ingest/formats.h, the formats' one home.

// ---- the session

/// One figure or table, for `mmkg figure`.
struct FigureReport {
  StoredFigure figure;
  std::string image_path;    ///< the PNG in the store (empty for a table without image)
  std::string written;       ///< where the PNG was copied (-o FILE), when asked
};

/// A page of a PDF rendered as PNG, for the page view (Session::page_image).
struct PageImage {
  std::string png;            ///< PNG bytes
  int width = 0, height = 0;  ///< pixels
  double zoom = 1;            ///< pixels per point, after clamping
  int boxes = 0;              ///< highlight boxes drawn (0: no chunk, or one stored without boxes)
  std::string doc, doc_id;    ///< the document's file name and id
  std::string chunk_id;       ///< the highlighted chunk; empty: none
  int page = 0, pages = 0;    ///< 1-based page, pages in the document
};

/// One stored chunk with its page boxes (Session::chunk_info).
struct ChunkReport {
  StoredChunk chunk;    ///< chunk.chunk.boxes loaded
  std::string format;   ///< its document's format: "pdf" pages can be rendered (page_image)
};

struct ExportRequest {
  std::string doc;           ///< file name, path, id or id prefix
  std::string out_dir;       ///< the Markdown file and images/ go here (created)
  bool annotated = false;    ///< add each figure's text (OCR or PDF) and description under it
};

/// A document's whole text as Markdown (Session::document_markdown).
struct DocumentMarkdown {
  DocumentRecord doc;
  std::string markdown;  ///< the body with each figure in place (a link, and its text under it)
};

struct ExportReport {
  std::string doc;           ///< file name
  std::string markdown;      ///< path of the written file
  std::vector<std::string> images;  ///< paths of the written images
  int figures = 0;
};

class Session {
 public:
  /// Opens the store named by cfg.store after cfg.validate(). With `create`, a missing store is
  /// created on the first write (ingest), after the request's configuration is checked.
  static std::unique_ptr<Session> open(Config cfg, bool create = false);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Adds files and folders, embeds their chunks, updates the vector index and brings the graph
  /// in step. Bad files are reported in files.failed; a graph failure is a warning (the next
  /// ingest resumes it). UsageError for a configuration error, before anything is written.
  IngestReport ingest(const IngestRequest& req);
  /// Removes documents (file name, path, id or id prefix) and all derived data.
  RemoveReport remove(const std::vector<std::string>& docs);
  SearchReport search(const SearchRequest& req);
  /// Answers a question; req.options.on_step sees each agent step as it finishes.
  AskResult ask(const AskRequest& req);
  EvalReport evaluate(const EvalRequest& req);
  StatsReport stats();
  /// The store's counts (and with `with_documents`, its documents) without the graph: cheap
  /// enough for a server's /health. Creates an empty store for a session that may create one.
  StatsReport store_stats(bool with_documents);
  /// True when the store holds a document ingested from `path`.
  bool has_document_at(const std::string& path);
  /// Checks the store: SQLite integrity, the FTS index against the chunks, embeddings and the
  /// vector index, the graph's documents against the store's.
  CheckReport check();
  /// The entity NAME names (exact, alias, fuzzy, embedding), its relations (at most `limit`),
  /// with evidence sentences when `with_evidence`. Error when nothing matches.
  EntityReport graph_entity(const std::string& name, bool with_evidence, int limit);
  /// Page `page` (from 1; past the last: the last) of the graph's entities, `per_page` (1 to 200)
  /// of them, most connected first (GraphOverview). UsageError for values out of range.
  GraphOverview graph_overview(int page, int per_page);
  /// Writes the whole graph in `format` (one of export_formats()) to `out`.
  void graph_export(const std::string& format, std::ostream& out);
  /// The graph export formats ("jsonl", "graphml", "cypher").
  static std::vector<std::string> export_formats();
  /// The figure or table with this id (or id prefix); with `out_file`, its PNG is copied there.
  /// UsageError when none or several match, or when it has no image to write.
  FigureReport figure(const std::string& id, const std::string& out_file = "");
  /// Writes a document as Markdown (`NAME_raw.md` or `NAME_annotated.md`) with its figures in
  /// out_dir/images/ ("NAME-PAGE-K.png", page 0-based as pymupdf4llm names them) linked in place.
  ExportReport export_markdown(const ExportRequest& req);
  /// A document (file name, path, id or id prefix) as Markdown, as the annotated export writes it
  /// but nothing written: each figure with an image is linked as `figure_uri_prefix` + its id.
  /// NotFoundError when no document matches; UsageError when several do.
  DocumentMarkdown document_markdown(const std::string& doc_key, const std::string& figure_uri_prefix);
  /// Page `page` (1-based) of the PDF `doc_key` (file name, path, id or id prefix, as remove()
  /// takes) rendered at `zoom` (clamped to 0.5..4), with the boxes of `chunk_id` (optional)
  /// highlighted. NotFoundError for an unknown document, page or chunk; UsageError for an
  /// ambiguous key, a document that is not a PDF, or a chunk of another document or page;
  /// InputError when the file is gone, unreadable, encrypted, or (with a chunk) changed since
  /// it was ingested. The file is read from the path it was ingested from.
  PageImage page_image(const std::string& doc_key, int page, const std::string& chunk_id, double zoom);
  /// The stored chunk `chunk_id` with its page boxes. NotFoundError when there is none.
  ChunkReport chunk_info(const std::string& chunk_id);

  // ---- the components, built on first use (for the benches and tests)
  const Config& config() const { return cfg_; }
  /// The store (opened by open(), or for a session that creates it, on first use).
  Store& store();
  LazyEmbedder& embedder();
  Searcher& searcher();
  /// nullptr when the graph is disabled (--graph none). Throws when it cannot be opened.
  graph::GraphStore* graph_store();
  /// The graph for queries: nullptr when disabled, empty for this backend (a warning says how to
  /// build it) or unavailable (a warning says why).
  GraphContext* graph_context();
  /// The question with the corpus's acronyms written in (graph/resolve/acronym_expand.h): from
  /// the graph's entities, read once; the question unchanged without a graph.
  std::string expand_query(const std::string& question);
  /// The chat model of cfg.llm, the local server started if needed; nullptr for none.
  ChatModel* chat();

  // ---- for a long-lived process (the server)
  /// Opens the store now (creating it, for a session that may create one), so that readers
  /// opened after it find one.
  void open_store() { store(); }
  /// A server's ingest job as JSON: kept in a shared store, so that every server answers for it
  /// (nothing is kept for the embedded store); what a server recorded, by id (nullopt: none).
  void record_job(const std::string& id, const std::string& json);
  std::optional<std::string> recorded_job(const std::string& id);
  /// The store's local folder (a shared store's: its local copy under the cache folder), known
  /// before the store is opened: where node-local files (the server's uploads) go.
  std::string local_dir() const;
  /// Opens the searcher and loads the embedding model now, so that the first query does not
  /// pay for it.
  void warm();
  /// Drops what was read from the store (the searcher with its vector index, the graph context,
  /// the acronym lexicon) when the store or its graph has changed since it was read, so the next
  /// query sees another process's (or session's) writes. The loaded embedder and chat model stay.
  /// Returns true when something was dropped.
  bool refresh();
  /// While a writer (the server's ingest job) is about to bring the vector index up to date, a
  /// reader uses the older index file as it is instead of rebuilding it; refresh() then reads it
  /// again. Applies to the searcher built after the call.
  void accept_stale_index(bool accept) { accept_stale_index_ = accept; }
  /// The chat model as a spec other sessions can share: `local` starts the local server once (it
  /// lives as long as this session) and gives its URL ("http://127.0.0.1:PORT/v1#model=NAME");
  /// any other value is returned as configured.
  std::string shared_llm_spec();
  /// Requests and tokens the chat model has used (zeros when none was opened).
  struct ModelUsage {
    long long requests = 0, prompt_tokens = 0, completion_tokens = 0;
  };
  ModelUsage model_usage() const;

 private:
  explicit Session(Config cfg);
  void warn(const std::string& message) const;
  /// Brings the graph in step with the store: with the LLM extractor when `llm` has a model, else
  /// the rule extractor; `add_documents` false only removes (delete).
  std::optional<graph::GraphSyncResult> sync_graph(LazyLlm* llm, const ProgressFn& progress, bool add_documents);
  /// How many documents the graph still holds that the store no longer has (a killed delete).
  long long graph_deleted_documents();
  /// The graph part of check() (session_check.cc); `docs`: the store's documents.
  Check check_graph(long long docs);
  /// Empty when the graph store's full-text index can serve search's lexical side (its chunk
  /// nodes have their text and it holds every document of the store); otherwise why not.
  std::string graph_text_unavailable(graph::GraphStore& g);

  Config cfg_;
  /// The fitted answerability model and sentence selector (cfg_.answerable, cfg_.selector): read
  /// once, and again only when their file changes.
  ModelFile answerable_file_;
  ModelFile selector_file_;
  bool create_ = false;
  std::unique_ptr<Store> store_;
  std::unique_ptr<LazyEmbedder> embedder_;
  std::unique_ptr<Searcher> searcher_;
  std::unique_ptr<graph::GraphStore> graph_;
  /// The Neo4j graph's indexes serving search (a VectorBackend and a LexicalBackend).
  std::unique_ptr<GraphSearchBackend> graph_search_;
  bool graph_context_tried_ = false;
  std::unique_ptr<GraphContext> graph_context_;
  std::mutex graph_signals_mu_;  ///< the fitted ranker's graph signals (searcher()) come one at a time
  std::unique_ptr<graph::AcronymExpander> acronyms_;
  bool chat_tried_ = false;
  std::unique_ptr<LocalModelServer> local_;
  std::unique_ptr<ChatModel> chat_;
  /// What the query components were read from: store generation, graph documents (refresh()).
  std::pair<long long, long long> read_at_{-1, -1};
  bool accept_stale_index_ = false;
  std::pair<long long, long long> read_mark();
  /// Opens the store of cfg_.store into store_: the embedded one, or a shared one (brought up to
  /// date).
  void open_configured_store(bool create);
  /// A shared store: brings the local copy up to date, and the vector and lexical indexes with it.
  void sync_shared();
  /// Brings the vector index (when there is one) and the lexical index up to date with the rows
  /// added and removed since generation `gen_before`; left stale (rebuilt on use) on failure.
  void update_indexes(int64_t gen_before, const std::vector<int64_t>& added, const std::vector<int64_t>& removed);
};

}  // namespace mmkg
