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

namespace mmkg::cli {

using nlohmann::json;

void print_error(const std::string& subject, const std::string& message) {
  if (subject.empty())
    std::fprintf(stderr, "mmkg: error: %s\n", message.c_str());
  else
    std::fprintf(stderr, "mmkg: error: %s: %s\n", subject.c_str(), message.c_str());
}

int cmd_ingest(const Common& c, const std::vector<std::string>& paths, const IngestOptions& opt_in, bool progress) {
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
                {"vector_index", r.vector_index}, {"seconds", r.seconds}};
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf("ingested %d document%s (%d unchanged, %zu failed): %lld chunks, %lld pages, %.1f MB in %.2f s\n",
                r.documents, r.documents == 1 ? "" : "s", r.skipped, r.failed.size(),
                static_cast<long long>(r.chunks), static_cast<long long>(r.pages),
                static_cast<double>(r.bytes) / 1e6, r.seconds);
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
  if (c.json) std::printf("%s\n", json({{"deleted", deleted}, {"failed", failed}}).dump().c_str());
  return rc;
}

int cmd_stats(const Common& c) {
  auto store = Store::open(c.store, false);
  StoreStats s = store->stats();
  auto docs = store->documents();
  if (c.json) {
    json d = json::array();
    for (auto& x : docs)
      d.push_back({{"id", x.id}, {"doc", x.name}, {"path", x.path}, {"format", x.format}, {"title", x.title},
                   {"pages", x.pages}, {"chunks", x.chunks}, {"bytes", x.bytes}, {"ingested_at", x.ingested_at}});
    json out = {{"store", s.path},   {"schema_version", s.schema_version}, {"documents", s.documents},
                {"chunks", s.chunks}, {"pages", s.pages}, {"bytes", s.bytes}, {"text_chars", s.text_chars},
                {"db_bytes", s.db_bytes}, {"docs", d}};
    std::printf("%s\n", out.dump().c_str());
    return 0;
  }
  std::printf("store %s (schema v%d, %.1f MB)\n", s.path.c_str(), s.schema_version, static_cast<double>(s.db_bytes) / 1e6);
  std::printf("%lld documents, %lld chunks, %lld pages, %.1f MB of source\n", static_cast<long long>(s.documents),
              static_cast<long long>(s.chunks), static_cast<long long>(s.pages), static_cast<double>(s.bytes) / 1e6);
  for (auto& x : docs)
    std::printf("  %s  %-8s %5d chunks %5d pages  %s\n", x.id.c_str(), x.format.c_str(), x.chunks, x.pages, x.path.c_str());
  return 0;
}

}  // namespace mmkg::cli
