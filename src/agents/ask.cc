#include "agents/ask.h"

#include <set>

#include "agents/planner.h"
#include "agents/trace.h"
#include "embed/embedder.h"
#include "index/lexical.h"
#include "store/store.h"

namespace mmkg {

AskResult ask(Store& store, const std::string& question, const AskOptions& opt) {
  Searcher searcher(store, opt.embedder, opt.fusion);
  return ask(store, searcher, question, opt);
}

AskResult ask(Store& store, Searcher& searcher, const std::string& question, const AskOptions& opt) {
  Trace trace(opt.verbose);
  AskResult res;
  TermStats stats(store);
  trace.log("mmkg: ask: question: %s", question.c_str());

  Plan plan = trace.step("plan", [&](nlohmann::json& d) {
    std::string fallback;
    Plan p = opt.chat ? plan_llm(*opt.chat, question, stats, &fallback) : plan_rules(question, stats, opt.max_phrases);
    d["planner"] = p.planner;
    if (!fallback.empty()) {
      d["fallback"] = fallback;
      trace.log("mmkg: plan: rules (%s)", fallback.c_str());
    }
    if (!p.tools.empty()) d["tools"] = p.tools;
    d["subqueries"] = p.subqueries;
    trace.log("mmkg: plan: %zu sub-queries", p.subqueries.size());
    for (size_t i = 0; i < p.subqueries.size(); ++i)
      trace.log("mmkg: plan:   sub-query %zu: %s", i + 1, p.subqueries[i].c_str());
    return p;
  });
  res.subqueries = plan.subqueries;

  std::vector<RankedList> extra;
  if (opt.graph) {
    GraphRetrieval gr = trace.step("graph", [&](nlohmann::json& d) {
      GraphRetrieval g = graph_retrieve(*opt.graph, question, opt.graph_retrieve);
      nlohmann::json ents = nlohmann::json::array();
      std::string names;
      for (const auto& e : g.entities) {
        ents.push_back({{"name", e.name}, {"id", e.entity_id}, {"phrase", e.phrase}, {"how", e.how}, {"score", e.score}});
        names += (names.empty() ? "" : ", ") + e.name + " (" + e.how + ")";
      }
      d["entities"] = ents;
      d["facts"] = g.facts.size();
      d["ppr_chunks"] = g.ppr_chunks.size();
      d["broad"] = g.broad;
      d["communities"] = g.communities.size();
      if (opt.graph->empty()) {
        trace.log("mmkg: graph: the graph is empty (ingest builds it)");
      } else {
        trace.log("mmkg: graph: %zu linked entities%s%s", g.entities.size(), names.empty() ? "" : ": ", names.c_str());
        for (const auto& f : g.facts) trace.log("mmkg: graph:   fact: %s (chunk %s)", f.text.c_str(), f.chunk_id.c_str());
        if (g.broad)
          trace.log("mmkg: graph: broad question; %zu community summaries", g.communities.size());
      }
      return g;
    });
    extra = graph_lists(gr);
    res.entities = std::move(gr.entities);
    res.facts = std::move(gr.facts);
  }

  Retrieval r = trace.step("retrieve", [&](nlohmann::json& d) {
    Retrieval rr = retrieve(store, searcher, plan, opt.retrieve, trace, extra);
    std::set<std::string> docs;
    for (auto& c : rr.context) docs.insert(c.hit.doc);
    d["mode"] = search_mode_name(opt.retrieve.mode);
    if (opt.retrieve.mode != SearchMode::Bm25) {
      std::string why = searcher.dense_unavailable_reason();
      if (!why.empty()) {
        d["mode"] = "bm25";
        d["fallback"] = why;
        trace.log("mmkg: retrieve: dense retrieval unavailable (%s); BM25 only", why.c_str());
      }
    }
    d["unique_chunks"] = rr.unique_chunks;
    if (!rr.rerank.reranker.empty()) {
      nlohmann::json rk = {{"reranker", rr.rerank.reranker}, {"ms", rr.rerank.ms}, {"scored", rr.rerank.scored},
                           {"moved", rr.rerank.moved}};
      if (!rr.rerank.fallback.empty()) rk["fallback"] = rr.rerank.fallback;
      d["rerank"] = rk;
    }
    d["context_chunks"] = rr.context.size();
    d["context_chars"] = rr.context_chars;
    d["context_tokens"] = rr.context_tokens;
    d["max_context_tokens"] = opt.retrieve.max_context_tokens;
    d["trimmed_chunks"] = rr.trimmed_chunks;
    d["skipped_chunks"] = rr.skipped_chunks;
    d["unbudgeted_tokens"] = rr.unbudgeted_tokens;
    d["unbudgeted_chars"] = rr.unbudgeted_chars;
    d["documents"] = std::vector<std::string>(docs.begin(), docs.end());
    trace.log("mmkg: retrieve: %zu unique chunks after de-duplication across sub-queries", rr.unique_chunks);
    trace.log("mmkg: retrieve: context: %zu chunks from %zu documents, %zu characters, %zu tokens (budget %zu; "
              "%zu trimmed to their best sentences)",
              rr.context.size(), docs.size(), rr.context_chars, rr.context_tokens, opt.retrieve.max_context_tokens,
              rr.trimmed_chunks);
    for (size_t i = 0; i < rr.context.size(); ++i) {
      const auto& c = rr.context[i];
      const auto& h = c.hit;
      std::string page = h.page_start > 0 ? ", page " + std::to_string(h.page_start) : "";
      trace.log("mmkg: retrieve:   %zu. %s%s, chunk %s%s%s (%zu tokens%s)", i + 1, h.doc.c_str(), page.c_str(),
                h.chunk_id.c_str(), h.heading_path.empty() ? "" : " — ", h.heading_path.c_str(), c.tokens,
                c.trimmed() ? ", trimmed" : "");
    }
    return rr;
  });
  res.context_chunks = r.context.size();
  res.context_chars = r.context_chars;
  res.context_tokens = r.context_tokens;
  res.context = r.context;

  Answer a = trace.step("synthesize", [&](nlohmann::json& d) {
    Answer an;
    if (opt.chat) {
      LlmSynthReport rep;
      LlmSynthOptions lo = opt.llm;
      if (!lo.embed) {
        if (Embedder* emb = searcher.embedder()) {
          lo.embed = [emb](const std::vector<std::string>& texts) {
            return embed_rows(*emb, texts, EmbedKind::Document);
          };
        }
      }
      try {
        an = synthesize_llm(*opt.chat, question, r, stats, opt.synth, lo, rep);
      } catch (const Error& e) {  // the model failed: the extractive answer stands
        rep.fallback = std::string("model call failed: ") + e.what();
        an = synthesize_extractive(question, r, stats, opt.synth);
      }
      d["synthesizer"] = rep.used_model ? "llm" : "extractive";
      d["model"] = opt.chat->id();
      d["model_ms"] = rep.model_ms;
      d["prompt_tokens"] = rep.usage.prompt;
      d["completion_tokens"] = rep.usage.completion;
      d["cached"] = rep.cached;
      d["model_sentences"] = rep.model_sentences;
      d["verified_sentences"] = rep.kept_sentences;
      d["verified_by_embedding"] = rep.kept_by_embedding;
      if (!rep.fallback.empty()) d["fallback"] = rep.fallback;
      trace.log("mmkg: synthesize: model %s: %lld prompt + %lld completion tokens, %.0f ms%s", opt.chat->id().c_str(),
                rep.usage.prompt, rep.usage.completion, rep.model_ms, rep.cached ? " (cached)" : "");
      trace.log("mmkg: verify: %zu of %zu model sentences supported by their cited passage%s%s", rep.kept_sentences,
                rep.model_sentences, rep.fallback.empty() ? "" : "; extractive answer: ", rep.fallback.c_str());
    } else {
      an = synthesize_extractive(question, r, stats, opt.synth);
      d["synthesizer"] = "extractive";
    }
    d["found"] = an.found;
    d["coverage"] = an.coverage;
    d["citations"] = an.citations.size();
    trace.log("mmkg: synthesize: %s (best passage covers %.0f%% of the question's terms), %zu citations",
              an.found ? "answered" : "not found in the documents", an.coverage * 100, an.citations.size());
    return an;
  });

  // Verify that every citation resolves to a real chunk of the store (a bug guard, cheap).
  trace.step("verify", [&](nlohmann::json& d) {
    size_t ok = 0;
    for (auto& c : a.citations)
      if (store.chunk(c.chunk_id)) ++ok;
    d["citations_resolved"] = ok;
    d["citations"] = a.citations.size();
  });

  res.answer = a.text;
  res.citations = std::move(a.citations);
  res.found = a.found;
  res.trace = trace.steps();
  return res;
}

}  // namespace mmkg
