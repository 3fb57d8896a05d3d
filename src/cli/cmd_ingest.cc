// mmkg ingest, delete, stats, check.
#include <cstdio>

#include "app/json.h"
#include "cli/commands.h"
#include "cli/progress.h"

namespace mmkg::cli {

namespace {

void print_ingest(const IngestReport& rep) {
  const IngestResult& r = rep.files;
  std::printf("ingested %d document%s (%d unchanged, %zu failed): %lld chunks, %lld pages, %.1f MB in %.2f s\n",
              r.documents, r.documents == 1 ? "" : "s", r.skipped, r.failed.size(), static_cast<long long>(r.chunks),
              static_cast<long long>(r.pages), static_cast<double>(r.bytes) / 1e6, r.seconds);
  if (r.figures + r.tables > 0 || r.ocr_runs + r.ocr_cached > 0)
    std::printf("figures: %d figures, %d tables; OCR %d images (%d without text, %d cached) in %.2f s%s\n", r.figures,
                r.tables, r.ocr_runs, r.ocr_skipped, r.ocr_cached, r.ocr_seconds,
                r.described + r.describe_cached > 0
                    ? (", vision model " + std::to_string(r.described) + " calls (" + std::to_string(r.describe_cached) + " cached)").c_str()
                    : "");
  if (!rep.graph) return;
  const auto& g = *rep.graph;
  std::printf("graph: %lld entities, %lld relations, %lld communities (%d documents added, %d removed) in %.2f s\n",
              g.stats.entities, g.stats.relations, g.stats.communities, g.documents_added, g.documents_removed,
              g.seconds);
  if (rep.llm_extraction)
    std::printf("graph: extractor %s: %lld chunks extracted (%lld cached), %lld model calls (%lld HTTP requests), "
                "%lld cached answers, %lld fallbacks, %lld + %lld tokens\n",
                g.extractor.c_str(), g.chunks_extracted, g.extractions_cached, g.model.model_calls,
                g.model.model_requests, g.model.model_cached, g.model.fallbacks, g.model.prompt_tokens,
                g.model.completion_tokens);
}

void print_stats(const StatsReport& r) {
  const StoreStats& s = r.store;
  std::printf("store %s (schema v%d, %.1f MB)\n", s.path.c_str(), s.schema_version, static_cast<double>(s.db_bytes) / 1e6);
  std::printf("%lld documents, %lld chunks, %lld pages, %.1f MB of source\n", static_cast<long long>(s.documents),
              static_cast<long long>(s.chunks), static_cast<long long>(s.pages), static_cast<double>(s.bytes) / 1e6);
  if (r.graph)
    std::printf("graph (%s): %lld entities (%lld aliases), %lld relations, %lld mentions, %lld communities\n",
                r.graph_backend.c_str(), r.graph->entities, r.graph->aliases, r.graph->relations, r.graph->mentions,
                r.graph->communities);
  for (const auto& x : r.docs)
    std::printf("  %s  %-8s %5d chunks %5d pages  %s\n", x.id.c_str(), x.format.c_str(), x.chunks, x.pages, x.path.c_str());
}

}  // namespace

Command add_ingest(CLI::App& app, Common& c) {
  auto* cmd = app.add_subcommand("ingest", "add files and folders (recursive) to the store");
  add_common(cmd, c);
  struct Flags {
    IngestRequest req;
    double max_mb = 0;
    bool no_progress = false;
    std::string extract = "rules";
    bool no_figures = false, no_ocr = false;
  };
  auto f = std::make_shared<Flags>();
  f->max_mb = static_cast<double>(f->req.options.max_file_bytes >> 20);
  IngestOptions& o = f->req.options;
  cmd->add_option("paths", f->req.paths, "files or folders")->required();
  cmd->add_option("--chunk-size", o.chunker.target_chars, "target chunk size in characters")
      ->capture_default_str()->check(CLI::Range(64, 1 << 20));
  cmd->add_option("--overlap", o.chunker.overlap_chars, "overlap between chunks in characters")->capture_default_str();
  cmd->add_option("--max-file-size", f->max_mb, "refuse files larger than this many MiB")->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--threads", o.threads, "parser threads (0 = all cores)")->capture_default_str();
  cmd->add_flag("--no-progress", f->no_progress, "no progress bar even on a terminal");
  cmd->add_flag("--follow-symlinks", o.follow_symlinks,
                "also ingest what symlinks inside a folder point to outside it (skipped with a warning otherwise)");
  cmd->add_flag("--no-figures", f->no_figures, "do not extract figures and tables (text only)");
  cmd->add_flag("--no-ocr", f->no_ocr, "do not OCR raster figures (captions and PDF text only)");
  cmd->add_option("--vlm", f->req.vlm,
                  "vision model describing each figure (one call per image, cached): an OpenAI-compatible chat "
                  "model that takes image_url data URIs, http(s)://HOST/v1#model=NAME (Ollama, vLLM, OpenAI, Groq)");
  cmd->add_option("--extract", f->extract,
                  "knowledge-graph extraction: rules (no model needed), llm (a chat model lists typed entities "
                  "and relations per chunk; needs --llm or a configured model), or none. --json's graph object "
                  "reports extractor, llm_calls, llm_requests, llm_cached, llm_fallbacks, prompt_tokens and "
                  "completion_tokens")
      ->capture_default_str()->check(CLI::IsMember({"rules", "llm", "none"}));
  cmd->add_option("--llm", c.llm,
                  "chat model for --extract llm: local (starts llama-cpp-python with SmolLM2; local#concurrency=N, "
                  "default 1: that server answers one request at a time), or "
                  "http(s)://HOST/v1#model=NAME&concurrency=N (default 4; when not given: config file, then env "
                  "MMKG_LLM_BASE_URL, GROQ_API_KEY, ...); chunks are extracted N at a time");
  return {cmd, [&c, f]() {
            IngestRequest req = f->req;
            req.options.max_file_bytes = static_cast<int64_t>(f->max_mb * 1024 * 1024);
            req.extract = parse_extract_mode(f->extract);
            req.options.figures.enabled = !f->no_figures;
            req.options.figures.ocr = !f->no_ocr;
            auto session = open_session(c, /*create=*/true);
            ProgressBar bar(!f->no_progress && !c.json);
            req.progress = [&](const IngestProgress& p) { bar.update(p); };
            IngestReport rep = session->ingest(req);
            bar.finish();
            for (const auto& x : rep.files.failed) print_error(x.path, x.error);
            for (const auto& w : rep.files.skipped_links)
              std::fprintf(stderr, "mmkg: warning: %s: %s\n", w.path.c_str(), w.error.c_str());
            if (c.verbose)
              for (const auto& w : rep.files.warnings)
                std::fprintf(stderr, "mmkg: warning: %s: %s\n", w.path.c_str(), w.error.c_str());
            if (c.json)
              std::printf("%s\n", ingest_json(rep).dump().c_str());
            else
              print_ingest(rep);
            return rep.files.failed.empty() ? 0 : 1;
          }};
}

Command add_delete(CLI::App& app, Common& c) {
  auto* cmd = app.add_subcommand("delete", "remove documents (by file name, path or id) and all derived data");
  add_common(cmd, c);
  auto docs = std::make_shared<std::vector<std::string>>();
  cmd->add_option("docs", *docs, "documents")->required();
  return {cmd, [&c, docs]() {
            RemoveReport r = open_session(c)->remove(*docs);
            for (const auto& f : r.failed) print_error(f.doc, f.message);
            if (c.json)
              std::printf("%s\n", remove_json(r).dump().c_str());
            else
              for (const auto& d : r.deleted) std::printf("deleted %s (%s, %d chunks)\n", d.doc.c_str(), d.id.c_str(), d.chunks);
            return r.failed.empty() ? 0 : 1;
          }};
}

Command add_stats(CLI::App& app, Common& c) {
  auto* cmd = app.add_subcommand("stats", "what the store holds");
  add_common(cmd, c);
  return {cmd, [&c]() {
            StatsReport r = open_session(c)->stats();
            if (c.json)
              std::printf("%s\n", stats_json(r).dump().c_str());
            else
              print_stats(r);
            return 0;
          }};
}

Command add_check(CLI::App& app, Common& c) {
  auto* cmd = app.add_subcommand("check",
                                 "verify the store is consistent: the database file, the full-text index, the vectors "
                                 "and the graph's documents (exit 1 when a check fails)");
  add_common(cmd, c);
  return {cmd, [&c]() {
            CheckReport r = open_session(c)->check();
            if (c.json) {
              std::printf("%s\n", check_json(r).dump().c_str());
            } else {
              for (const auto& ch : r.checks)
                std::printf("%-9s %s  %s\n", ch.name.c_str(), ch.ok ? "ok    " : "FAILED", ch.detail.c_str());
              std::printf("%s\n", r.ok ? "the store is consistent" : "the store has problems (see above)");
            }
            return r.ok ? 0 : 1;
          }};
}

}  // namespace mmkg::cli
