#include "eval/eval.h"

#include <fstream>
#include <functional>
#include <map>

#include "agents/ask.h"
#include "agents/graph_retriever.h"
#include "agents/rerank.h"
#include "llm/chat_model.h"
#include "core/error.h"
#include "core/text.h"
#include "index/lexical.h"
#include "index/searcher.h"
#include "store/store.h"

namespace mmkg {

std::vector<QaItem> load_qa(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(path + ": cannot open the QA file");
  std::vector<QaItem> out;
  std::string line;
  int no = 0;
  while (std::getline(in, line)) {
    ++no;
    if (collapse_ws(line).empty()) continue;
    try {
      auto j = nlohmann::json::parse(line);
      QaItem q;
      q.id = j.value("id", std::to_string(no));
      q.type = j.value("type", "");
      q.question = j.at("question").get<std::string>();
      if (j.contains("answer_keywords")) q.answer_keywords = j["answer_keywords"].get<std::vector<std::string>>();
      if (j.contains("evidence"))
        for (auto& e : j["evidence"]) q.evidence.push_back({e.value("doc", ""), e.at("quote").get<std::string>()});
      out.push_back(std::move(q));
    } catch (const std::exception& e) {
      throw UsageError(path + ":" + std::to_string(no) + ": malformed QA record (" + e.what() + ")");
    }
  }
  return out;
}

bool evidence_in(const std::string& chunk_text, const std::string& quote) {
  std::string c = collapse_ws(chunk_text), q = collapse_ws(quote);
  if (q.empty()) return false;
  if (c.find(q) != std::string::npos) return true;
  if (q.size() <= 60) return false;
  return c.find(std::string(utf8_prefix(q, 60))) != std::string::npos ||
         c.find(q.substr(q.size() - 60)) != std::string::npos;
}

namespace {

// Retrieval metrics of one search mode over the items with evidence.
using HitsFn = std::function<std::vector<SearchHit>(const std::string& question, int k)>;

nlohmann::json score_mode(const HitsFn& search, const std::string& mode_name, const std::vector<QaItem>& items,
                          nlohmann::json& rows) {
  const int kMax = 10;
  double r5 = 0, r10 = 0, mrr = 0;
  int answerable = 0;
  struct TypeAgg {
    int n = 0;
    double r5 = 0, r10 = 0, mrr = 0;
  };
  std::map<std::string, TypeAgg> by_type;
  for (size_t qi = 0; qi < items.size(); ++qi) {
    const QaItem& q = items[qi];
    if (q.evidence.empty()) continue;
    auto hits = search(q.question, kMax);
    int found5 = 0, found10 = 0, first = 0;
    for (const auto& ev : q.evidence) {
      for (size_t r = 0; r < hits.size(); ++r) {
        if (!evidence_in(hits[r].text, ev.quote)) continue;
        if (r < 5) ++found5;
        ++found10;
        if (first == 0 || static_cast<int>(r) + 1 < first) first = static_cast<int>(r) + 1;
        break;
      }
    }
    double n = static_cast<double>(q.evidence.size());
    double rr = first ? 1.0 / first : 0.0;
    r5 += found5 / n;
    r10 += found10 / n;
    mrr += rr;
    ++answerable;
    auto& t = by_type[q.type];
    ++t.n;
    t.r5 += found5 / n;
    t.r10 += found10 / n;
    t.mrr += rr;
    rows[qi]["recall_at_10_" + mode_name] = found10 / n;
    rows[qi]["first_rank_" + mode_name] = first ? nlohmann::json(first) : nlohmann::json(nullptr);
  }
  auto avg = [](double v, int n) { return n ? v / n : 0.0; };
  nlohmann::json bt = nlohmann::json::object();
  for (auto& [type, t] : by_type)
    bt[type] = {{"questions", t.n}, {"recall_at_5", avg(t.r5, t.n)}, {"recall_at_10", avg(t.r10, t.n)},
                {"mrr", avg(t.mrr, t.n)}};
  return {{"answerable", answerable},
          {"recall_at_k", {{"5", avg(r5, answerable)}, {"10", avg(r10, answerable)}}},
          {"mrr", avg(mrr, answerable)},
          {"by_type", bt}};
}

}  // namespace

nlohmann::json evaluate(Store& store, const std::vector<QaItem>& items, const EvalOptions& opt) {
  Searcher searcher(store, opt.embedder, opt.fusion);
  return evaluate(store, searcher, items, opt);
}

nlohmann::json evaluate(Store& store, Searcher& searcher, const std::vector<QaItem>& items, const EvalOptions& opt) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& q : items) rows.push_back({{"id", q.id}, {"type", q.type}});

  nlohmann::json modes = nlohmann::json::object();
  std::string unavailable = searcher.dense_unavailable_reason();
  for (SearchMode m : opt.modes) {
    if (m != SearchMode::Bm25 && !unavailable.empty()) {
      modes[search_mode_name(m)] = {{"unavailable", unavailable}};
      continue;
    }
    auto fn = [&searcher, m](const std::string& q, int k) {
      SearchOptions so;
      so.mode = m;
      so.k = k;
      return searcher.search(q, so);
    };
    modes[search_mode_name(m)] = score_mode(fn, search_mode_name(m), items, rows);
  }
  // hybrid+graph: the primary mode's hits fused with the graph's lists, as `ask` fuses them.
  if (opt.graph && !modes.empty()) {
    SearchMode base = opt.modes.back();
    if (base != SearchMode::Bm25 && !unavailable.empty()) base = SearchMode::Bm25;
    auto fn = [&](const std::string& q, int k) {
      SearchOptions so;
      so.mode = base;
      so.k = k;
      GraphRetrieval g = graph_retrieve(*opt.graph, q, {});
      return fuse_ranked(store, searcher.search(q, so), graph_lists(g), static_cast<size_t>(k));
    };
    modes[std::string(search_mode_name(base)) + "+graph"] = score_mode(fn, std::string(search_mode_name(base)) + "+graph", items, rows);
  }

  // <primary>+rerank: the primary mode's candidates for the question, reranked as `ask` does.
  std::string rerank_mode;
  double rerank_ms = 0;
  int rerank_calls = 0;
  if (opt.retrieve.reranker && !modes.empty()) {
    SearchMode base = opt.modes.back();
    if (base != SearchMode::Bm25 && !unavailable.empty()) base = SearchMode::Bm25;
    rerank_mode = std::string(search_mode_name(base)) + "+rerank";
    std::string fallbacks;
    auto fn = [&](const std::string& q, int k) {
      SearchOptions so;
      so.mode = base;
      so.k = std::max(k, static_cast<int>(opt.retrieve.rerank_top_n));
      std::vector<Candidate> cands;
      for (auto& h : searcher.search(q, so)) {
        Candidate c;
        c.hit = std::move(h);
        cands.push_back(std::move(c));
      }
      RerankReport rep = rerank(*opt.retrieve.reranker, q, cands, opt.retrieve.rerank_top_n, opt.retrieve.rerank_weight);
      rerank_ms += rep.ms;
      ++rerank_calls;
      if (!rep.fallback.empty()) fallbacks = rep.fallback;
      std::vector<SearchHit> out;
      for (auto& c : cands)
        if (out.size() < static_cast<size_t>(k)) out.push_back(std::move(c.hit));
      return out;
    };
    modes[rerank_mode] = score_mode(fn, rerank_mode, items, rows);
    modes[rerank_mode]["reranker"] = opt.retrieve.reranker->name();
    modes[rerank_mode]["rerank_top_n"] = opt.retrieve.rerank_top_n;
    modes[rerank_mode]["rerank_weight"] = opt.retrieve.rerank_weight;
    modes[rerank_mode]["rerank_ms_per_question"] = rerank_calls ? rerank_ms / rerank_calls : 0.0;
    if (!fallbacks.empty()) modes[rerank_mode]["last_fallback"] = fallbacks;
  }

  // The contract's top-level figures are those of the primary mode: the last one evaluated that
  // ran (hybrid by default; BM25 when dense retrieval is unavailable). Answers use that mode too.
  std::string primary;
  for (SearchMode m : opt.modes)
    if (modes.contains(search_mode_name(m)) && modes[search_mode_name(m)].contains("mrr")) primary = search_mode_name(m);

  double acc = 0;
  long cite_total = 0, cite_good = 0;
  struct ContextAgg {
    double tokens = 0, chars = 0, chunks = 0, unbudgeted_tokens = 0, unbudgeted_chars = 0, trimmed = 0;
    double evidence = 0, mrr = 0, rerank_ms = 0;
    int with_evidence = 0;
  } cx;
  if (opt.answers) {
    AskOptions ao = opt.ask;
    ao.embedder = opt.embedder;
    ao.fusion = opt.fusion;
    ao.graph = opt.graph;
    ao.chat = opt.chat;
    ao.retrieve = opt.retrieve;
    ao.retrieve.parallel = opt.ask.retrieve.parallel;
    ao.retrieve.mode = primary.empty() ? SearchMode::Bm25 : parse_search_mode(primary);
    for (size_t qi = 0; qi < items.size(); ++qi) {
      const QaItem& q = items[qi];
      AskResult a = ask(store, searcher, q.question, ao);
      // The context the answer was written from: its size, with and without the budget, and
      // how many evidence quotes it still holds (in the text it shows, trimmed or not).
      // (the retrieve step of the round whose answer was kept: follow-up rounds retrieve again)
      int answer_round = 1;
      for (const auto& st : a.trace)
        if (st.value("step", "") == "orchestrate") answer_round = st.value("answer_round", 1);
      for (const auto& st : a.trace)
        if (st.value("step", "") == "retrieve" && st.value("round", 1) == answer_round) {
          cx.tokens += st.value("context_tokens", 0.0);
          cx.chars += st.value("context_chars", 0.0);
          cx.chunks += st.value("context_chunks", 0.0);
          cx.trimmed += st.value("trimmed_chunks", 0.0);
          cx.unbudgeted_tokens += st.value("unbudgeted_tokens", 0.0);
          cx.unbudgeted_chars += st.value("unbudgeted_chars", 0.0);
          if (st.contains("rerank")) cx.rerank_ms += st["rerank"].value("ms", 0.0);
          rows[qi]["context_tokens"] = st.value("context_tokens", 0);
        }
      if (!q.evidence.empty()) {
        int in = 0;
        size_t first = 0;  // 1-based place of the first passage holding an evidence quote
        for (const auto& ev : q.evidence)
          for (size_t p = 0; p < a.context.size(); ++p)
            if (evidence_in(a.context[p].text, ev.quote)) {
              ++in;
              if (first == 0 || p + 1 < first) first = p + 1;
              break;
            }
        cx.evidence += static_cast<double>(in) / static_cast<double>(q.evidence.size());
        cx.mrr += first ? 1.0 / static_cast<double>(first) : 0.0;
        ++cx.with_evidence;
        rows[qi]["context_evidence"] = static_cast<double>(in) / static_cast<double>(q.evidence.size());
        rows[qi]["context_first_evidence"] = first ? nlohmann::json(first) : nlohmann::json(nullptr);
      }
      bool ok;
      if (q.evidence.empty()) {
        ok = !a.found;
      } else {
        std::string lower = lower_ascii(a.answer);
        ok = false;
        for (auto& k : q.answer_keywords) ok = ok || lower.find(lower_ascii(k)) != std::string::npos;
        ok = ok && a.found;
      }
      acc += ok ? 1 : 0;
      rows[qi]["answer_correct"] = ok;
      // citation precision: cited passages that contain one of the question's evidence quotes
      int cited = 0, with_evidence = 0;
      for (const auto& c : a.citations) {
        ++cited;
        for (const auto& ev : q.evidence)
          if (evidence_in(c.text, ev.quote)) {
            ++with_evidence;
            break;
          }
      }
      if (!q.evidence.empty() && cited) {
        cite_total += cited;
        cite_good += with_evidence;
      }
      rows[qi]["answer"] = a.answer;
    }
  }

  nlohmann::json out;
  out["questions"] = items.size();
  out["mode"] = primary.empty() ? nlohmann::json(nullptr) : nlohmann::json(primary);
  if (!primary.empty()) {
    out["answerable"] = modes[primary]["answerable"];
    out["recall_at_k"] = modes[primary]["recall_at_k"];
    out["mrr"] = modes[primary]["mrr"];
    out["by_type"] = modes[primary]["by_type"];
  }
  out["answer_accuracy"] = opt.answers && !items.empty() ? nlohmann::json(acc / items.size()) : nlohmann::json(nullptr);
  out["citation_precision"] =
      opt.answers && cite_total ? nlohmann::json(static_cast<double>(cite_good) / cite_total) : nlohmann::json(nullptr);
  out["llm"] = opt.chat ? nlohmann::json(opt.chat->id()) : nlohmann::json(nullptr);
  out["reranker"] = opt.retrieve.reranker ? nlohmann::json(opt.retrieve.reranker->name()) : nlohmann::json(nullptr);
  if (opt.answers && !items.empty()) {
    const double n = static_cast<double>(items.size());
    out["context"] = {{"max_context_tokens", opt.retrieve.max_context_tokens},
                      {"tokens", cx.tokens / n},
                      {"chars", cx.chars / n},
                      {"chunks", cx.chunks / n},
                      {"trimmed_chunks", cx.trimmed / n},
                      {"unbudgeted_tokens", cx.unbudgeted_tokens / n},
                      {"unbudgeted_chars", cx.unbudgeted_chars / n},
                      {"evidence_recall", cx.with_evidence ? cx.evidence / cx.with_evidence : 0.0},
                      {"evidence_mrr", cx.with_evidence ? cx.mrr / cx.with_evidence : 0.0},
                      {"rerank_ms", cx.rerank_ms / n}};
  }
  out["modes"] = modes;
  out["items"] = rows;
  return out;
}

}  // namespace mmkg
