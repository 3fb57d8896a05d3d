// mmkg ingest, delete, stats.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/progress.h"
#include "store/store.h"
#include "core/error.h"
#include "embed/embedder.h"
#include "index/vector_store.h"

#include <filesystem>
#include <optional>

#include "graph/extract_llm.h"
#include "graph/extractor.h"
#include "llm/chat_model.h"

namespace mmkg::cli {

using nlohmann::json;

void print_error(const std::string& subject, const std::string& message) {
  if (subject.empty())
    std::fprintf(stderr, "mmkg: error: %s\n", message.c_str());
  else
    std::fprintf(stderr, "mmkg: error: %s: %s\n", subject.c_str(), message.c_str());
}

namespace {

// Brings the graph in step with the store after ingest or delete, with the rule extractor or,
// when `llm.chat` is set, the LLM extractor. Graph failures (Neo4j down, the model server down)
// do not undo the ingest: the next run resumes the graph where it stopped.
std::optional<graph::GraphSyncResult> sync(const Common& c, Store& store, Embedder* emb, const std::string& extract,
                                           bool progress, LazyLlm* llm = nullptr, bool add_documents = true) {
  if (c.graph == "none" || extract == "none") return std::nullopt;
  try {
    auto gs = open_graph(c, store);
    std::unique_ptr<graph::Extractor> ex;
    if (llm && llm->chat) {
      graph::LlmExtractOptions lo;
      lo.model = llm->model;
      lo.parallelism = llm->concurrency;
      ex = graph::make_llm_extractor(*llm->chat, lo);
      if (c.verbose) std::fprintf(stderr, "mmkg: graph: extractor %s, %d chunks at once\n", ex->id().c_str(), lo.parallelism);
    } else {
      ex = graph::make_rule_extractor();
    }
    graph::GraphSyncOptions go;
    go.backend_key = graph_backend_key(c.graph);
    if (emb) go.vector_model = emb->id();
    go.add_documents = add_documents;
    ProgressBar bar(progress);
    go.progress = [&](size_t done, size_t total, const std::string& name) {
      IngestProgress p;
      p.files_done = done;
      p.files_total = total;
      p.current = "graph: " + name;
      bar.update(p);
    };
    auto r = graph::sync_graph(store, *gs, *ex, graph::make_embed_names(store, emb), go);
    bar.finish();
    if (r.model.fallbacks > 0)
      std::fprintf(stderr, "mmkg: warning: %lld chunk%s fell back to rule extraction (first: %s)\n", r.model.fallbacks,
                   r.model.fallbacks == 1 ? "" : "s", r.model.first_fallback.c_str());
    return r;
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    std::fprintf(stderr, "mmkg: warning: knowledge graph not updated (%s); the next ingest resumes it\n", e.what());
    return std::nullopt;
  }
}

}  // namespace

int cmd_ingest(const Common& c, const std::vector<std::string>& paths, const IngestOptions& opt_in, bool progress,
               const std::string& extract, const std::string& llm_spec) {
  // The model is resolved before anything is written, so a configuration error changes nothing.
  LazyLlm llm;
  if (extract == "llm" && c.graph != "none") {
    llm = open_llm_lazy(c, c.store, llm_spec);
    if (!llm.chat)
      throw UsageError("--extract llm needs a chat model: pass --llm local (SmolLM2 via llama-cpp-python, "
                       "installed by `make setup`) or --llm http(s)://HOST/v1#model=NAME, or set "
                       "MMKG_LLM_BASE_URL (or llm.base_url in mmkg.json); --extract rules needs none");
  }
  auto store = Store::open(c.store, true);
  IngestOptions opt = opt_in;
  std::unique_ptr<Embedder> emb;
  if (c.embedder != "none") {
    try {
      emb = make_embedder(c.embedder);
      opt.embedder = emb.get();
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {
      std::fprintf(stderr, "mmkg: warning: no embeddings (%s); BM25 search only\n", e.what());
    }
  }
  ProgressBar bar(progress);
  IngestResult r = ingest(*store, paths, opt, [&](const IngestProgress& p) { bar.update(p); });
  bar.finish();
  auto g = sync(c, *store, emb.get(), extract, progress, &llm);
  for (const auto& f : r.failed) print_error(f.path, f.error);
  if (c.verbose)
    for (const auto& w : r.warnings) std::fprintf(stderr, "mmkg: warning: %s: %s\n", w.path.c_str(), w.error.c_str());
  if (c.json) {
    json failed = json::array();
    for (const auto& f : r.failed) failed.push_back({{"path", f.path}, {"error", f.error}});
    json warnings = json::array();
    for (const auto& w : r.warnings) warnings.push_back({{"path", w.path}, {"warning", w.error}});
    json out = {{"documents", r.documents}, {"skipped", r.skipped}, {"chunks", r.chunks},
                {"figures", r.figures},     {"pages", r.pages},     {"bytes", r.bytes},
                {"ignored", r.ignored},     {"failed", failed},     {"warnings", warnings},
                {"embedder", emb ? json(emb->id()) : json(nullptr)}, {"embedded", r.embedded},
                {"embed_reused", r.embed_reused}, {"embed_seconds", r.embed_seconds},
                {"vector_index", r.vector_index}, {"seconds", r.seconds},
                {"graph", g ? graph_sync_json(*g) : json(nullptr)}};
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf("ingested %d document%s (%d unchanged, %zu failed): %lld chunks, %lld pages, %.1f MB in %.2f s\n",
                r.documents, r.documents == 1 ? "" : "s", r.skipped, r.failed.size(),
                static_cast<long long>(r.chunks), static_cast<long long>(r.pages),
                static_cast<double>(r.bytes) / 1e6, r.seconds);
    if (g)
      std::printf("graph: %lld entities, %lld relations, %lld communities (%d documents added, %d removed) in %.2f s\n",
                  g->stats.entities, g->stats.relations, g->stats.communities, g->documents_added,
                  g->documents_removed, g->seconds);
    if (g && llm.chat)
      std::printf("graph: extractor %s: %lld chunks extracted (%lld cached), %lld model calls (%lld HTTP requests), "
                  "%lld cached answers, %lld fallbacks, %lld + %lld tokens\n",
                  g->extractor.c_str(), g->chunks_extracted, g->extractions_cached, g->model.model_calls,
                  g->model.model_requests, g->model.model_cached, g->model.fallbacks, g->model.prompt_tokens,
                  g->model.completion_tokens);
  }
  return r.failed.empty() ? 0 : 1;
}

int cmd_delete(const Common& c, const std::vector<std::string>& docs) {
  auto store = Store::open(c.store, false);
  json deleted = json::array(), failed = json::array();
  int rc = 0;
  const int64_t gen_before = store->generation();
  std::vector<int64_t> removed;
  for (const auto& key : docs) {
    auto found = store->resolve(key);
    if (found.empty()) {
      print_error(key, "no such document in the store; `mmkg stats` lists them");
      failed.push_back({{"doc", key}, {"error", "not found"}});
      rc = 1;
      continue;
    }
    if (found.size() > 1) {
      print_error(key, "matches " + std::to_string(found.size()) + " documents; name it by path or id");
      failed.push_back({{"doc", key}, {"error", "ambiguous"}});
      rc = 1;
      continue;
    }
    WriteResult wr;
    store->delete_document(found[0].id, &wr);
    removed.insert(removed.end(), wr.removed_rowids.begin(), wr.removed_rowids.end());
    deleted.push_back({{"id", found[0].id}, {"doc", found[0].name}, {"path", found[0].path}, {"chunks", found[0].chunks}});
    if (!c.json) std::printf("deleted %s (%s, %d chunks)\n", found[0].name.c_str(), found[0].id.c_str(), found[0].chunks);
  }
  // Keep the vector index in step, once for all deletions (it is rebuilt on next use anyway if
  // this fails).
  if (!removed.empty() && c.embedder != "none" && std::filesystem::exists(vector_index_path(store->dir()))) {
    try {
      auto emb = make_embedder(c.embedder);
      update_vector_index(*store, emb->id(), emb->dim(), gen_before, {}, removed);
    } catch (const Error&) {
    }
  }
  std::optional<graph::GraphSyncResult> g;
  if (!deleted.empty()) g = sync(c, *store, nullptr, "rules", false, nullptr, /*add_documents=*/false);
  if (c.json)
    std::printf("%s\n", json({{"deleted", deleted}, {"failed", failed}, {"graph", g ? graph_sync_json(*g) : json(nullptr)}})
                             .dump()
                             .c_str());
  return rc;
}

int cmd_stats(const Common& c) {
  auto store = Store::open(c.store, false);
  StoreStats s = store->stats();
  auto docs = store->documents();
  json graph = nullptr;
  if (c.graph != "none") {
    try {
      auto gs = open_graph(c, *store);
      auto g = gs->stats();
      graph = {{"backend", graph_backend_key(c.graph)}, {"documents", graph::graph_document_count(*store, graph_backend_key(c.graph))},
               {"entities", g.entities}, {"relations", g.relations}, {"mentions", g.mentions},
               {"aliases", g.aliases}, {"communities", g.communities}};
    } catch (const Error& e) {
      graph = {{"backend", graph_backend_key(c.graph)}, {"error", e.what()}};
    }
  }
  if (c.json) {
    json d = json::array();
    for (auto& x : docs)
      d.push_back({{"id", x.id}, {"doc", x.name}, {"path", x.path}, {"format", x.format}, {"title", x.title},
                   {"pages", x.pages}, {"chunks", x.chunks}, {"bytes", x.bytes}, {"ingested_at", x.ingested_at}});
    json out = {{"store", s.path},   {"schema_version", s.schema_version}, {"documents", s.documents},
                {"chunks", s.chunks}, {"pages", s.pages}, {"bytes", s.bytes}, {"text_chars", s.text_chars},
                {"db_bytes", s.db_bytes}, {"graph", graph}, {"docs", d}};
    std::printf("%s\n", out.dump().c_str());
    return 0;
  }
  std::printf("store %s (schema v%d, %.1f MB)\n", s.path.c_str(), s.schema_version, static_cast<double>(s.db_bytes) / 1e6);
  std::printf("%lld documents, %lld chunks, %lld pages, %.1f MB of source\n", static_cast<long long>(s.documents),
              static_cast<long long>(s.chunks), static_cast<long long>(s.pages), static_cast<double>(s.bytes) / 1e6);
  if (graph.is_object() && graph.contains("entities"))
    std::printf("graph (%s): %lld entities (%lld aliases), %lld relations, %lld mentions, %lld communities\n",
                graph["backend"].get<std::string>().c_str(), graph["entities"].get<long long>(),
                graph["aliases"].get<long long>(), graph["relations"].get<long long>(),
                graph["mentions"].get<long long>(), graph["communities"].get<long long>());
  for (auto& x : docs)
    std::printf("  %s  %-8s %5d chunks %5d pages  %s\n", x.id.c_str(), x.format.c_str(), x.chunks, x.pages, x.path.c_str());
  return 0;
}

}  // namespace mmkg::cli
