// Session: opening, the components, ingest, remove, stats and check. Queries are in
// session_query.cc, the graph commands in session_graph.cc.
#include "app/session.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <optional>
#include <set>
#include <utility>

#include "agents/graph_retriever.h"
#include "agents/answerable.h"
#include "agents/graph_signals.h"
#include "agents/sentence_select.h"
#include "app/llm_open.h"
#include "graph/extract/rules.h"
#include "ingest/figures.h"
#include "ingest/files.h"
#include "ingest/image_decode.h"
#include "core/error.h"
#include "embed/embedder.h"
#include "graph/extract/extract_llm.h"
#include "index/searcher.h"
#include "index/lexical_backend.h"
#include "index/vector_backend.h"
#include "index/vector_store.h"
#include "index/xapian_lexical.h"
#include "llm/chat_model.h"
#include "llm/llm_config.h"
#include "llm/local_server.h"
#include "store/sqlite_util.h"
#include "store/neo4j_store.h"
#include "store/write_lock.h"

namespace mmkg {

// The graph store's vector and full-text indexes (Neo4j) serving search's dense and lexical sides.
class GraphSearchBackend final : public VectorBackend, public LexicalBackend {
 public:
  explicit GraphSearchBackend(graph::GraphStore& g) : g_(g) {}
  std::string name() const override { return graph::backend_name(g_.backend()); }
  std::vector<std::pair<std::string, double>> vector_search(const std::vector<float>& q, int k) override {
    return g_.vector_search(q, k);
  }
  std::vector<std::pair<std::string, double>> text_search(const std::string& match, int k) override {
    return g_.text_search(match, k);
  }

 private:
  graph::GraphStore& g_;
};

std::unique_ptr<Session> Session::open(Config cfg, bool create) {
  cfg.validate();
  std::unique_ptr<Session> s(new Session(std::move(cfg)));
  s->create_ = create;
  // An existing store opens now (a missing one is an error at once); a store to create waits for
  // the first write, so that a configuration error found before it leaves nothing behind.
  if (!create) s->open_configured_store(false);
  return s;
}

void Session::open_configured_store(bool create) {
  if (!cfg_.store_is_shared()) {
    store_ = Store::open(cfg_.store, create);
    return;
  }
  store_ = open_neo4j_store({cfg_.store, cfg_.cache, create});
  sync_shared();
}

namespace {

// A writer's registration in a shared store (Store::join_writers), left however the scope ends.
struct WriterScope {
  Store& store;
  explicit WriterScope(Store& s, bool join = true) : store(s) {
    if (join) store.join_writers();
  }
  ~WriterScope() {
    try {
      store.leave_writers();
    } catch (const Error&) {  // unreachable: the registration lapses by itself
    }
  }
  WriterScope(const WriterScope&) = delete;
  WriterScope& operator=(const WriterScope&) = delete;
};

}  // namespace

std::string Session::local_dir() const {
  return cfg_.store_is_shared() ? shared_store_cache_dir(cfg_.store, cfg_.cache) : cfg_.store;
}

void Session::sync_shared() {
  if (!store().shared()) return;
  const int64_t before = store().generation();
  WriteResult wr = store().sync();
  if (!wr.added_rowids.empty() || !wr.removed_rowids.empty()) update_indexes(before, wr.added_rowids, wr.removed_rowids);
}

void Session::update_indexes(int64_t gen_before, const std::vector<int64_t>& added,
                             const std::vector<int64_t>& removed) {
  if (!embedder().disabled() && std::filesystem::exists(vector_index_path(store().dir()))) {
    try {
      if (Embedder* emb = embedder().get()) update_vector_index(store(), emb->id(), emb->dim(), gen_before, added, removed);
    } catch (const Error&) {
    }
  }
  try {
    update_lexical_index(store(), gen_before, added, removed);
  } catch (const Error&) {
  }
}

Session::Session(Config cfg)
    : cfg_(std::move(cfg)), answerable_file_(cfg_.answerable, load_answerable), selector_file_(cfg_.selector, load_selector) {}
Session::~Session() = default;

Store& Session::store() {
  if (!store_) open_configured_store(create_);
  return *store_;
}

void Session::warn(const std::string& message) const {
  if (cfg_.warn)
    cfg_.warn(message);
  else
    std::fprintf(stderr, "mmkg: warning: %s\n", message.c_str());
}

LazyEmbedder& Session::embedder() {
  if (!embedder_) embedder_ = std::make_unique<LazyEmbedder>(cfg_.embedder);
  return *embedder_;
}

Searcher& Session::searcher() {
  if (searcher_) return *searcher_;
  SearcherSetup setup;
  setup.fusion = cfg_.fusion;
  if (!cfg_.ranker.empty()) {
    setup.ranker_file = std::make_shared<ModelFile>(cfg_.ranker, [](const std::string& p) { return load_ranker(p); });
    setup.ranker_file->get();  // a bad file fails now, as before any search
  }
  // The fitted ranker's graph features. The graph context is loaded on the first call (ask loads
  // it before its sub-queries run on several threads; eval and search call from one thread).
  setup.graph_signals = [this](std::string_view q, size_t parts, const std::vector<SearchHit>& pool, PoolSignals& sig) {
    std::lock_guard<std::mutex> lock(graph_signals_mu_);
    if (GraphContext* g = graph_context()) graph_pool_signals(*g, q, parts, pool, sig);
  };
  setup.allow_stale_index = accept_stale_index_;
  // With the graph in Neo4j, Neo4j's vector index serves the dense side, and its full-text index
  // the lexical side once it holds every document's chunks (graph_text_unavailable).
  // A shared store searches its local copy's indexes, which rank as the embedded store's do.
  if (cfg_.graph.kind == GraphBackend::Kind::Neo4j && !store().shared()) {
    graph::GraphStore* g = graph_store();
    if (g) graph_search_ = std::make_unique<GraphSearchBackend>(*g);
    if (g && g->supports_vector_search()) setup.vectors = graph_search_.get();
    if (g && g->supports_text_search()) {
      const std::string why = graph_text_unavailable(*g);
      if (why.empty()) setup.lexical = graph_search_.get();
      // Chunk text an upgrade left behind is worth a warning; documents the graph has not got
      // (yet, or with --extract none) are the user's choice: told with -v only.
      else if (g->chunk_text_pending() || cfg_.verbose) warn(why + "; full-text search uses the store's FTS5 index");
    }
  }
  searcher_ = std::make_unique<Searcher>(store(), embedder(), std::move(setup));
  return *searcher_;
}

std::string Session::graph_text_unavailable(graph::GraphStore& g) {
  if (g.chunk_text_pending())
    return "the chunk nodes in Neo4j lack their text (an older mmkg stored them); run `mmkg ingest` once with the "
           "same --graph to copy it";
  std::set<std::string> in_graph;
  for (const auto& m : store().graph_documents(cfg_.graph.key())) in_graph.insert(m.doc_id);
  long long missing = 0;
  for (const auto& d : store().documents()) missing += in_graph.count(d.id) ? 0 : 1;
  if (missing == 0) return "";
  return std::to_string(missing) + " document" + (missing == 1 ? " is" : "s are") +
         " not in the Neo4j graph yet (ingested with --extract none, or the graph build stopped); `mmkg ingest` "
         "with the same --graph adds them";
}

graph::GraphStore* Session::graph_store() {
  if (!cfg_.graph.enabled()) return nullptr;
  if (!graph_)
    // In a shared store's own database, the chunk nodes are the store's.
    graph_ = cfg_.graph.kind == GraphBackend::Kind::Neo4j
                 ? graph::make_neo4j_graph_store(cfg_.graph.url, store().shared() &&
                                                                     GraphBackend::parse(cfg_.store).key() == cfg_.graph.key())
                 : graph::make_sqlite_graph_store(store().db());
  return graph_.get();
}

GraphContext* Session::graph_context() {
  if (graph_context_tried_) return graph_context_.get();
  graph_context_tried_ = true;
  if (!cfg_.graph.enabled()) return nullptr;
  try {
    if (graph::graph_document_count(store(), cfg_.graph.key()) == 0) return nullptr;
    graph::GraphStore* g = graph_store();
    // The searcher's embedder also embeds the graph's entity names (loaded once).
    // The documents' file names and titles give the graph its document layer (cross references).
    // Their chunks' headings give the entities' home passages.
    std::vector<graph::DocumentLabel> docs;
    std::vector<graph::ChunkLabel> chunks;
    for (const auto& d : store().documents()) {
      docs.push_back({d.id, d.name, d.title});
      for (const auto& c : store().chunks_of(d.id)) chunks.push_back({c.chunk.id, d.id, c.chunk.heading_path, c.chunk.text});
    }
    graph_context_ =
        std::make_unique<GraphContext>(*g, graph::make_embed_names(store(), searcher().embedder()), docs, chunks);
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    warn(std::string("knowledge graph unavailable (") + e.what() + "); answering without it");
  }
  return graph_context_.get();
}

std::string Session::expand_query(const std::string& question) {
  if (!acronyms_) {
    // The graph's entities alone (not the query context with its name vectors): `search` needs
    // no more. A graph that cannot be read leaves the question as it is, with a warning.
    acronyms_ = std::make_unique<graph::AcronymExpander>();
    try {
      if (cfg_.graph.enabled() && graph::graph_document_count(store(), cfg_.graph.key()) > 0)
        *acronyms_ = graph::AcronymExpander(graph_store()->entities());
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {
      warn(std::string("knowledge graph unavailable (") + e.what() + "); searching for the question as asked");
    }
  }
  std::string out = acronyms_->expand(question);
  if (cfg_.verbose && out != question) std::fprintf(stderr, "mmkg: query with the corpus's acronyms: %s\n", out.c_str());
  return out;
}

ChatModel* Session::chat() {
  if (!chat_tried_) {
    chat_tried_ = true;
    chat_ = open_llm(cfg_.verbose, store().dir(), cfg_.llm, local_);
  }
  return chat_.get();
}

std::pair<long long, long long> Session::read_mark() {
  sync_shared();
  long long docs = 0;
  if (cfg_.graph.enabled()) {
    try {
      docs = graph::graph_document_count(store(), cfg_.graph.key());
    } catch (const Error&) {
      docs = -2;  // unreadable now: read again once it is
    }
  }
  return {store().generation(), docs};
}

bool Session::refresh() {
  auto mark = read_mark();
  // A stale vector index (accept_stale_index) is read again once the writer may have saved it.
  if (mark == read_at_ && !(searcher_ && searcher_->index_stale())) return false;
  const bool had = searcher_ || graph_context_tried_ || acronyms_;
  read_at_ = mark;
  // The graph context holds the searcher's embedder and the store's documents: drop it first.
  graph_context_.reset();
  graph_context_tried_ = false;
  acronyms_.reset();
  searcher_.reset();
  graph_search_.reset();
  return had;
}

std::string Session::shared_llm_spec() {
  LlmConfig c = resolve_llm_config(cfg_.llm);
  if (!c.local) return cfg_.llm;
  if (!chat()) return cfg_.llm;
  // chat() started the local server into local_: its URL is what the other sessions use, with
  // its window, so that they fit their contexts to it as this session does.
  return local_->base_url() + "#model=" + local_->model_name() + "&ctx=" + std::to_string(chat()->context_window());
}

Session::ModelUsage Session::model_usage() const {
  ModelUsage u;
  if (!chat_) return u;
  Usage t = chat_->total_usage();
  u.requests = t.requests;
  u.prompt_tokens = t.prompt;
  u.completion_tokens = t.completion;
  return u;
}

// Brings the graph in step with the store after ingest or delete, with the rule extractor or the
// LLM extractor. Graph failures (Neo4j down, the model server down) do not undo the ingest: the
// next run resumes the graph where it stopped.
std::optional<graph::GraphSyncResult> Session::sync_graph(LazyLlm* llm, const ProgressFn& progress,
                                                          bool add_documents) {
  try {
    graph::GraphStore* gs = graph_store();
    std::unique_ptr<graph::Extractor> ex;
    if (llm && llm->chat) {
      graph::LlmExtractOptions lo;
      lo.model = llm->model;
      lo.parallelism = llm->concurrency;
      ex = graph::make_llm_extractor(*llm->chat, lo);
      if (cfg_.verbose)
        std::fprintf(stderr, "mmkg: graph: extractor %s, %d chunks at once\n", ex->id().c_str(), lo.parallelism);
    } else {
      ex = graph::make_rule_extractor();
    }
    graph::GraphSyncOptions go;
    go.backend_key = cfg_.graph.key();
    Embedder* emb = add_documents ? embedder().get() : nullptr;
    if (emb) go.vector_model = emb->id();
    go.add_documents = add_documents;
    if (progress)
      go.progress = [&](size_t done, size_t total, const std::string& name) {
        IngestProgress p;
        p.files_done = done;
        p.files_total = total;
        p.current = "graph: " + name;
        progress(p);
      };
    graph::NameEmbedding names = graph::make_name_embedding(store(), emb);
    go.prefetch_names = names.prefetch;
    auto r = graph::sync_graph(store(), *gs, *ex, names.embed, go);
    if (r.model.fallbacks > 0)
      warn(std::to_string(r.model.fallbacks) + " chunk" + (r.model.fallbacks == 1 ? "" : "s") +
           " fell back to rule extraction (first: " + r.model.first_fallback + ")");
    return r;
  } catch (const UsageError&) {
    throw;
  } catch (const StoreFullError&) {
    throw;  // the store cannot take more: an error for the whole ingest, not a graph warning
  } catch (const Error& e) {
    warn(std::string("knowledge graph not updated (") + e.what() + "); the next ingest resumes it");
    return std::nullopt;
  }
}

IngestReport Session::ingest(const IngestRequest& req) {
  IngestReport rep;
  const bool build_graph = cfg_.graph.enabled() && req.extract != ExtractMode::None;
  // The extraction model is resolved (not yet connected) before anything is written, so a
  // configuration error leaves the store as it was.
  LazyLlm llm;
  if (build_graph && req.extract == ExtractMode::Llm) {
    llm = open_llm_lazy(cfg_.verbose, local_dir(), cfg_.llm);
    if (!llm.chat)
      throw UsageError("--extract llm needs a chat model: pass --llm local (SmolLM2 via llama-cpp-python, "
                       "installed by `make setup`) or --llm http(s)://HOST/v1#model=NAME, or set "
                       "MMKG_LLM_BASE_URL (or llm.base_url in mmkg.json); --extract rules needs none");
  }
  IngestOptions opt = req.options;
  opt.embedder = nullptr;
  if (!embedder().disabled()) {
    opt.embedder = embedder().get();
    // A model folder named by the user that does not load is a wrong setting: refused before
    // anything is written. The bundled model missing, or an embedding server that is down (a
    // later ingest backfills), only costs the dense side, with a warning.
    if (!opt.embedder && cfg_.embedder.names_folder())
      throw UsageError("--embedder " + cfg_.embedder.text + ": " + embedder().unavailable_reason() +
                       "; give the folder of a sentence-transformers model, native for the bundled "
                       "all-MiniLM-L6-v2, or none for BM25 only");
    if (!opt.embedder) warn("no embeddings (" + embedder().unavailable_reason() + "); BM25 search only");
  }
  rep.embedder = opt.embedder ? opt.embedder->id() : "";
  if (cfg_.verbose && opt.embedder) std::fprintf(stderr, "mmkg: embedder %s\n", opt.embedder->describe().c_str());
  // The vision model (--vlm): a bad spec is a usage error before anything is written, so its
  // spec is read before the store is made; the model's answer cache lives in the store's
  // database, which a first ingest creates, so the store is opened before the model.
  std::unique_ptr<ChatModel> vlm;
  std::unique_ptr<FigureDescriber> describer;
  if (!req.vlm.empty() && opt.figures.enabled) {
    parse_vlm_spec(req.vlm);
    store();
    vlm = open_vlm(local_dir(), req.vlm);
    describer = make_vision_describer(*vlm);
    opt.figures.describer = describer.get();
  }
  // One writer per embedded store; a shared store takes writers side by side (neo4j_store.h).
  std::optional<StoreWriteLock> lock;
  if (!store().shared()) lock.emplace(store().dir(), [this](const std::string& m) { warn(m); });
  WriterScope writer(store());
  sync_shared();
  store().remove_unreferenced_images();  // what a killed earlier write left behind
  rep.files = mmkg::ingest(store(), req.paths, opt, req.progress);
  rep.llm_extraction = req.extract == ExtractMode::Llm;
  // Several writers of a shared store: the last one still writing builds the graph for all (one
  // build over every document, as one ingest of them all would make).
  if (build_graph && !store().done_writing()) {
    warn("another mmkg process is still ingesting into this store; it brings the knowledge graph up to date");
  } else if (build_graph) {
    store().take_graph_lease([this](const std::string& m) { warn(m); });
    rep.graph = sync_graph(&llm, req.progress, /*add_documents=*/true);
  }
  return rep;
}

RemoveReport Session::remove(const std::vector<std::string>& docs) {
  RemoveReport rep;
  std::optional<StoreWriteLock> lock;
  if (!store().shared()) lock.emplace(store().dir(), [this](const std::string& m) { warn(m); });
  sync_shared();
  const int64_t gen_before = store().generation();
  std::vector<int64_t> removed;
  for (const auto& key : docs) {
    auto found = store().resolve(key);
    if (found.empty()) {
      rep.failed.push_back({key, "not found", "no such document in the store; `mmkg stats` lists them"});
      continue;
    }
    if (found.size() > 1) {
      rep.failed.push_back(
          {key, "ambiguous", "matches " + std::to_string(found.size()) + " documents; name it by path or id"});
      continue;
    }
    WriteResult wr;
    store().delete_document(found[0].id, &wr);
    removed.insert(removed.end(), wr.removed_rowids.begin(), wr.removed_rowids.end());
    rep.deleted.push_back({found[0].id, found[0].name, found[0].path, found[0].chunks});
  }
  // Keep the vector index and the lexical index in step, once for all deletions (left stale on
  // failure: rebuilt on next use, search uses FTS5 meanwhile).
  if (!removed.empty()) update_indexes(gen_before, {}, removed);
  // A delete only removes from the graph: building pending documents is ingest's work.
  // A delete killed between the store and the graph left deleted documents in the graph: any
  // delete (even of nothing) finishes that, so re-running the command completes it.
  bool graph_behind = !rep.deleted.empty();
  if (cfg_.graph.enabled() && !graph_behind) {
    try {
      graph_behind = graph_deleted_documents() > 0;
    } catch (const Error&) {  // no graph bookkeeping readable: nothing to finish
    }
  }
  if (cfg_.graph.enabled() && graph_behind) {
    WriterScope graph_writer(store(), /*join=*/false);
    store().take_graph_lease([this](const std::string& m) { warn(m); });
    rep.graph = sync_graph(nullptr, {}, /*add_documents=*/false);
  }
  return rep;
}

void Session::warm() { searcher().embedder(); }

StatsReport Session::store_stats(bool with_documents) {
  sync_shared();  // a shared store: what the other machines wrote too
  StatsReport r;
  r.store = store().stats();
  if (with_documents) r.docs = store().documents();
  return r;
}

void Session::record_job(const std::string& id, const std::string& json) {
  if (store().shared()) store().put_job(id, json);
}

std::optional<std::string> Session::recorded_job(const std::string& id) { return store().job(id); }

bool Session::has_document_at(const std::string& path) { return store().find_by_path(path).has_value(); }

StatsReport Session::stats() {
  StatsReport r = store_stats(true);
  if (!cfg_.graph.enabled()) return r;
  r.graph_backend = cfg_.graph.key();
  try {
    r.graph = graph_store()->stats();
    r.graph_documents = graph::graph_document_count(store(), r.graph_backend);
  } catch (const Error& e) {
    r.graph.reset();
    r.graph_error = e.what();
  }
  return r;
}

long long Session::graph_deleted_documents() {
  std::set<std::string> in_store;
  for (const auto& d : store().documents()) in_store.insert(d.id);
  long long gone = 0;
  for (const auto& m : store().graph_documents(cfg_.graph.key())) gone += in_store.count(m.doc_id) ? 0 : 1;
  return gone;
}

}  // namespace mmkg
