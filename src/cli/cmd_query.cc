// mmkg search, ask, eval.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/error.h"
#include "eval/eval.h"
#include "index/lexical.h"
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

}  // namespace

int cmd_search(const Common& c, const std::string& query, int k, const std::string& mode) {
  if (mode != "bm25")
    throw UsageError("--mode " + mode + " is not available yet (dense and hybrid search come with the embedder); use --mode bm25");
  auto store = Store::open(c.store, false);
  LexicalOptions lo;
  lo.k = k;
  auto hits = bm25_search(*store, query, lo);
  if (c.json) {
    json results = json::array();
    for (size_t i = 0; i < hits.size(); ++i) {
      const auto& h = hits[i];
      results.push_back({{"rank", i + 1}, {"doc", h.doc}, {"doc_id", h.doc_id}, {"chunk_id", h.chunk_id},
                         {"page", page_json(h.page_start)}, {"page_end", page_json(h.page_end)},
                         {"heading_path", h.heading_path}, {"score", h.score}, {"snippet", h.snippet},
                         {"text", h.text}});
    }
    std::printf("%s\n", json({{"query", query}, {"mode", mode}, {"results", results}}).dump().c_str());
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

int cmd_ask(const Common& c, const std::string& question, const AskOptions& opt) {
  auto store = Store::open(c.store, false);
  AskResult r = ask(*store, question, opt);
  if (c.json) {
    json cites = json::array();
    for (const auto& ct : r.citations)
      cites.push_back({{"n", ct.n}, {"doc", ct.doc}, {"doc_id", ct.doc_id}, {"chunk_id", ct.chunk_id},
                       {"page", page_json(ct.page)}, {"page_end", page_json(ct.page_end)}, {"figure_id", nullptr},
                       {"heading_path", ct.heading_path}, {"quote", ct.quote}, {"text", ct.text}});
    json out = {{"question", question}, {"answer", r.answer}, {"found", r.found}, {"citations", cites},
                {"subqueries", r.subqueries}, {"entities", json::array()}, {"context_chunks", r.context_chunks},
                {"context_chars", r.context_chars}, {"trace", r.trace}};
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

int cmd_eval(const Common& c, const std::string& qa_path, bool answers) {
  auto items = load_qa(qa_path);
  auto store = Store::open(c.store, false);
  EvalOptions eo;
  eo.answers = answers;
  json r = evaluate(*store, items, eo);
  if (c.json) {
    std::printf("%s\n", r.dump().c_str());
    return 0;
  }
  std::printf("%d questions (%d with evidence), mode %s\n", r["questions"].get<int>(), r["answerable"].get<int>(),
              r["mode"].get<std::string>().c_str());
  std::printf("recall@5  %.3f\nrecall@10 %.3f\nMRR       %.3f\n", r["recall_at_k"]["5"].get<double>(),
              r["recall_at_k"]["10"].get<double>(), r["mrr"].get<double>());
  if (answers) std::printf("answer accuracy %.3f\n", r["answer_accuracy"].get<double>());
  for (auto& [type, t] : r["by_type"].items())
    std::printf("  %-12s n=%-3d recall@10 %.3f  MRR %.3f\n", type.c_str(), t["questions"].get<int>(),
                t["recall_at_10"].get<double>(), t["mrr"].get<double>());
  return 0;
}

}  // namespace mmkg::cli
