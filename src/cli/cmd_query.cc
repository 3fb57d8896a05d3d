// mmkg search, ask, eval.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "agents/rerank.h"
#include "cli/commands.h"
#include "core/error.h"
#include "embed/embedder.h"
#include "eval/eval.h"
#include "llm/local_server.h"
#include "llm/openai_chat.h"
#include "index/lexical.h"
#include "index/searcher.h"
#include "store/store.h"

namespace mmkg::cli {

using nlohmann::json;

namespace {

json page_json(int p) { return p > 0 ? json(p) : json(nullptr); }

std::string where(const std::string& doc, int page, const std::string& chunk_id) {
  std::string s = doc;
  if (page > 0) s += ", page " + std::to_string(page);
  return s + ", chunk " + chunk_id;
}

// The graph for ask/eval: none when disabled, or when the store has no graph yet (a warning
// then says how to build it); a graph that fails to open is a warning, not an error.
std::unique_ptr<graph::GraphStore> open_graph_for_query(const Common& c, Store& store) {
  if (c.graph == "none") return nullptr;
  try {
    if (graph::graph_document_count(store, graph_backend_key(c.graph)) == 0) return nullptr;
    return open_graph(c, store);
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    std::fprintf(stderr, "mmkg: warning: knowledge graph unavailable (%s); answering without it\n", e.what());
    return nullptr;
  }
}

json entities_json(const AskResult& r) {
  json a = json::array();
  for (const auto& e : r.entities)
    a.push_back({{"name", e.name}, {"id", e.entity_id}, {"phrase", e.phrase}, {"how", e.how}, {"score", e.score}});
  return a;
}

json facts_json(const AskResult& r) {
  json a = json::array();
  for (const auto& f : r.facts)
    a.push_back({{"fact", f.text}, {"relation", f.relation}, {"chunk_id", f.chunk_id}, {"sentence", f.sentence}});
  return a;
}

// The --rerank spec with what its backends need; embed needs the searcher's embedder.
std::unique_ptr<Reranker> open_reranker(const std::string& spec, TermStats& stats, Searcher& searcher,
                                        ChatModel* chat) {
  RerankDeps deps;
  deps.stats = &stats;
  deps.chat = chat;
  if (spec.find("embed") != std::string::npos) deps.embedder = searcher.embedder();
  return make_reranker(spec, deps);
}

}  // namespace

int cmd_search(const Common& c, const std::string& query, int k, const std::string& mode) {
  auto store = Store::open(c.store, false);
  Searcher searcher(*store, c.embedder, c.fusion);
  // With the graph in Neo4j, Neo4j's vector index serves the dense side.
  std::unique_ptr<graph::GraphStore> gs;
  if (graph_backend_key(c.graph).rfind("neo4j:", 0) == 0) {
    gs = open_graph(c, *store);
    searcher.set_vector_backend(gs.get());
  }
  SearchOptions so;
  so.mode = parse_search_mode(mode);
  so.k = k;
  std::string used = mode;
  if (so.mode == SearchMode::Hybrid) {
    std::string why = searcher.dense_unavailable_reason();
    if (!why.empty()) {
      used = "bm25";
      std::fprintf(stderr, "mmkg: warning: dense retrieval unavailable (%s); searching with BM25 only\n", why.c_str());
    }
  }
  auto hits = searcher.search(query, so);
  if (c.json) {
    json results = json::array();
    for (size_t i = 0; i < hits.size(); ++i) {
      const auto& h = hits[i];
      results.push_back({{"rank", i + 1}, {"doc", h.doc}, {"doc_id", h.doc_id}, {"chunk_id", h.chunk_id},
                         {"page", page_json(h.page_start)}, {"page_end", page_json(h.page_end)},
                         {"heading_path", h.heading_path}, {"score", h.score}, {"snippet", h.snippet},
                         {"text", h.text}});
    }
    std::printf("%s\n", json({{"query", query}, {"mode", used}, {"dense_backend", used == "bm25" ? json(nullptr) : json(searcher.dense_backend())},
                              {"results", results}})
                             .dump()
                             .c_str());
    return 0;
  }
  if (hits.empty()) std::printf("no results for \"%s\"\n", query.c_str());
  for (size_t i = 0; i < hits.size(); ++i) {
    const auto& h = hits[i];
    std::printf("%zu. %s  (score %.2f)%s%s\n   %s\n", i + 1, where(h.doc, h.page_start, h.chunk_id).c_str(), h.score,
                h.heading_path.empty() ? "" : "  ", h.heading_path.c_str(), h.snippet.c_str());
  }
  return 0;
}

int cmd_ask(const Common& c, const std::string& question, const AskOptions& opt, const std::string& llm,
            const std::string& rerank) {
  auto store = Store::open(c.store, false);
  std::unique_ptr<LocalModelServer> local;
  std::unique_ptr<ChatModel> chat = open_llm(c, *store, llm, local);
  Searcher searcher(*store, opt.embedder, opt.fusion);
  auto gs = open_graph_for_query(c, *store);
  std::unique_ptr<GraphContext> gctx;
  if (gs) gctx = std::make_unique<GraphContext>(*gs, graph::make_embed_names(*store, searcher.embedder()));
  TermStats stats(*store);
  auto reranker = open_reranker(rerank, stats, searcher, chat.get());
  AskOptions o = opt;
  o.graph = gctx.get();
  o.chat = chat.get();
  o.retrieve.reranker = reranker.get();
  AskResult r = ask(*store, searcher, question, o);
  if (c.json) {
    json cites = json::array();
    for (const auto& ct : r.citations)
      cites.push_back({{"n", ct.n}, {"doc", ct.doc}, {"doc_id", ct.doc_id}, {"chunk_id", ct.chunk_id},
                       {"page", page_json(ct.page)}, {"page_end", page_json(ct.page_end)}, {"figure_id", nullptr},
                       {"heading_path", ct.heading_path}, {"quote", ct.quote}, {"text", ct.text}});
    json out = {{"question", question}, {"answer", r.answer}, {"found", r.found}, {"citations", cites},
                {"subqueries", r.subqueries}, {"entities", entities_json(r)}, {"facts", facts_json(r)}, {"context_chunks", r.context_chunks},
                {"context_chars", r.context_chars}, {"context_tokens", r.context_tokens}, {"rounds", r.rounds},
                {"gaps", r.gaps}, {"trace", r.trace}};
    std::printf("%s\n", out.dump().c_str());
    return 0;
  }
  std::printf("%s\n", r.answer.c_str());
  if (!r.citations.empty()) {
    std::printf("\nSources:\n");
    for (const auto& ct : r.citations)
      std::printf("  [%d] %s%s%s\n", ct.n, where(ct.doc, ct.page, ct.chunk_id).c_str(),
                  ct.heading_path.empty() ? "" : " — ", ct.heading_path.c_str());
  }
  return 0;
}

int cmd_eval(const Common& c, const std::string& qa_path, bool answers, const std::string& mode,
             const std::string& llm, const EvalFlags& flags) {
  auto items = load_qa(qa_path);
  auto store = Store::open(c.store, false);
  EvalOptions eo;
  eo.ask = flags.ask;
  std::unique_ptr<LocalModelServer> local;
  std::unique_ptr<ChatModel> chat;
  // The model answers with --answers; --rerank llm needs it for retrieval alone too.
  if (answers || flags.rerank.find("llm") != std::string::npos) chat = open_llm(c, *store, llm, local);
  eo.chat = chat.get();
  // One searcher: its embedder (loaded once) also embeds the graph's entity names.
  Searcher searcher(*store, c.embedder, c.fusion);
  auto gs = open_graph_for_query(c, *store);
  std::unique_ptr<GraphContext> gctx;
  if (gs) {
    gctx = std::make_unique<GraphContext>(*gs, graph::make_embed_names(*store, searcher.embedder()));
    eo.graph = gctx.get();
  }
  TermStats stats(*store);
  auto reranker = open_reranker(flags.rerank, stats, searcher, chat.get());
  eo.retrieve.reranker = reranker.get();
  eo.retrieve.max_context_tokens = flags.context_tokens;
  eo.retrieve.rerank_top_n = flags.rerank_top_n;
  eo.retrieve.rerank_weight = flags.rerank_weight;
  eo.answers = answers;
  eo.embedder = c.embedder;
  eo.fusion = c.fusion;
  if (mode != "all") eo.modes = {parse_search_mode(mode)};
  json r = evaluate(*store, searcher, items, eo);
  if (c.json) {
    std::printf("%s\n", r.dump().c_str());
    return 0;
  }
  std::printf("%d questions\n", r["questions"].get<int>());
  for (auto& [name, m] : r["modes"].items()) {
    if (m.contains("unavailable")) {
      std::printf("%-13s unavailable: %s\n", name.c_str(), m["unavailable"].get<std::string>().c_str());
      continue;
    }
    std::printf("%-13s recall@5 %.3f  recall@10 %.3f  MRR %.3f  (%d questions with evidence)\n", name.c_str(),
                m["recall_at_k"]["5"].get<double>(), m["recall_at_k"]["10"].get<double>(), m["mrr"].get<double>(),
                m["answerable"].get<int>());
    for (auto& [type, t] : m["by_type"].items())
      std::printf("              %-12s n=%-3d recall@5 %.3f  recall@10 %.3f  MRR %.3f\n", type.c_str(),
                  t["questions"].get<int>(), t["recall_at_5"].get<double>(), t["recall_at_10"].get<double>(),
                  t["mrr"].get<double>());
  }
  if (answers) {
    const auto& cx = r["context"];
    std::printf("context per question: %.0f tokens, %.0f chars, %.1f chunks (%.1f trimmed); without the budget "
                "%.0f tokens, %.0f chars; evidence in context %.3f (MRR %.3f)\n",
                cx["tokens"].get<double>(), cx["chars"].get<double>(), cx["chunks"].get<double>(),
                cx["trimmed_chunks"].get<double>(), cx["unbudgeted_tokens"].get<double>(),
                cx["unbudgeted_chars"].get<double>(), cx["evidence_recall"].get<double>(), cx["evidence_mrr"].get<double>());
    std::printf("answer accuracy %.3f", r["answer_accuracy"].get<double>());
    if (r["citation_precision"].is_number()) std::printf("  citation precision %.3f", r["citation_precision"].get<double>());
    std::printf("%s%s\n", chat ? "  (model " : "  (extractive", chat ? (chat->id() + ")").c_str() : ")");
  }
  return 0;
}

}  // namespace mmkg::cli
