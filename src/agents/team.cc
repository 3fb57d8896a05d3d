#include "agents/team.h"

#include <set>

#include "index/searcher.h"
#include "llm/chat_model.h"
#include "store/store.h"

namespace mmkg {

Plan PlannerAgent::run(const PlanInput& in, AgentStep& step) {
  PlanStep& d = step.detail.emplace<PlanStep>();
  Plan p;
  if (in.previous) {
    p = plan_followup(*in.previous, *in.question, in.gaps);
    d.planner = PlannerKind::Followup;
    d.gaps = in.gaps;
    d.new_subqueries = std::vector<std::string>(p.subqueries.begin() + static_cast<long>(in.previous->subqueries.size()),
                                                p.subqueries.end());
    step.trace.log("mmkg: plan: follow-up for the gaps: %zu new sub-queries", p.subqueries.size() - in.previous->subqueries.size());
    for (size_t i = in.previous->subqueries.size(); i < p.subqueries.size(); ++i)
      step.trace.log("mmkg: plan:   sub-query %zu: %s", i + 1, p.subqueries[i].c_str());
    d.subqueries = p.subqueries;
    return p;
  }
  std::string fallback;
  p = chat_ ? plan_llm(*chat_, *in.question, stats_, &fallback) : plan_rules(*in.question, stats_, max_phrases_);
  d.planner = p.planner;
  p.fallback = fallback;
  if (!fallback.empty()) {
    d.fallback = fallback;
    step.trace.log("mmkg: plan: rules (%s)", fallback.c_str());
  }
  d.tools = p.tools;
  d.subqueries = p.subqueries;
  step.trace.log("mmkg: plan: %zu sub-queries", p.subqueries.size());
  for (size_t i = 0; i < p.subqueries.size(); ++i)
    step.trace.log("mmkg: plan:   sub-query %zu: %s", i + 1, p.subqueries[i].c_str());
  return p;
}

std::vector<RankedList> GraphAgent::run(const Question& question, AgentStep& step) {
  found_ = graph_retrieve(graph_, question, opt_);
  const GraphRetrieval& g = found_;
  std::vector<RankedList> lists;
  if (hop_lists_) lists = graph_lists(g);
  const size_t hops = lists.size();
  if (RankedList passages = graph_passages(g); !passages.chunk_ids.empty()) lists.push_back(std::move(passages));
  std::string names;
  for (const auto& e : g.entities) names += (names.empty() ? "" : ", ") + e.name + " (" + e.how + ")";
  step.detail = GraphStep{.entities = g.entities,
                          .facts = g.facts.size(),
                          .ppr_chunks = g.ppr_chunks.size(),
                          .communities = g.communities.size(),
                          .broad = g.broad,
                          .lists = hops};
  if (graph_.empty()) {
    step.trace.log("mmkg: graph: the graph is empty (ingest builds it)");
  } else {
    step.trace.log("mmkg: graph: %zu linked entities%s%s", g.entities.size(), names.empty() ? "" : ": ", names.c_str());
    for (const auto& f : g.facts) step.trace.log("mmkg: graph:   fact: %s (chunk %s)", f.text.c_str(), f.chunk_id.c_str());
    if (g.broad) step.trace.log("mmkg: graph: broad question; %zu community summaries", g.communities.size());
    if (!hop_lists_) step.trace.log("mmkg: graph: its chunk lists are not fused into retrieval (--graph-lists on fuses them)");
  }
  return lists;
}

std::vector<RankedList> FigureAgent::run(const Question& question, AgentStep& step) {
  NamedFigures nf = find_named_figures(store_, question.standalone, question.figure_keys);
  step.detail = FigureStep{.labels = nf.labels, .figures = nf.figures};
  for (const auto& label : nf.labels) {
    std::string where;
    for (const auto& f : nf.figures) {
      if (f.label != label) continue;
      where += (where.empty() ? "" : "; ") + f.doc_name + (f.page > 0 ? ", page " + std::to_string(f.page) : "") +
               " (figure " + f.figure_id.substr(0, 12) + (f.pinned ? ", leads the context" : "") + ")";
    }
    step.trace.log("mmkg: figures: the question names %s: %s", label.c_str(),
                   where.empty() ? "no document has it" : where.c_str());
  }
  return nf.lists();
}

Retrieval RagAgent::run(const RagInput& in, AgentStep& step) {
  static const std::vector<RankedList> none;
  Retrieval rr = retrieve(store_, searcher_, *in.plan, opt_, in.extra ? *in.extra : none, step.trace.log_fn());
  std::set<std::string> docs;
  for (auto& c : rr.context) docs.insert(c.hit.doc);
  RetrieveStep& d = step.detail.emplace<RetrieveStep>();
  d.mode = opt_.mode;
  if (opt_.mode != SearchMode::Bm25) {
    std::string why = searcher_.dense_unavailable_reason();
    if (!why.empty()) {
      d.mode = SearchMode::Bm25;
      d.fallback = why;
      step.trace.log("mmkg: retrieve: dense retrieval unavailable (%s); BM25 only", why.c_str());
    }
  }
  static_cast<ContextReport&>(d) = rr;
  d.subqueries = in.plan->subqueries.size();
  d.context_chunks = rr.context.size();
  d.max_context_tokens = opt_.max_context_tokens;
  d.documents.assign(docs.begin(), docs.end());
  for (size_t i = 0; i < rr.context.size(); ++i) {
    const SearchHit& h = rr.context[i].hit;
    if (h.figure_id.empty()) continue;
    d.figures.push_back(ContextFigure{.figure_id = h.figure_id, .label = h.figure_label, .kind = h.figure_kind,
                                      .doc = h.doc, .page = h.page_start, .passage = i + 1});
  }
  step.trace.log("mmkg: retrieve: %zu unique chunks after de-duplication across sub-queries", rr.unique_chunks);
  step.trace.log("mmkg: retrieve: context: %zu chunks from %zu documents, %zu characters, %zu tokens (budget %zu; "
                 "%zu trimmed to their best sentences)",
                 rr.context.size(), docs.size(), rr.context_chars, rr.context_tokens, opt_.max_context_tokens,
                 rr.trimmed_chunks);
  for (size_t i = 0; i < rr.context.size(); ++i) {
    const auto& c = rr.context[i];
    const auto& h = c.hit;
    std::string page = h.page_start > 0 ? ", page " + std::to_string(h.page_start) : "";
    std::string fig = h.figure_id.empty() ? ""
                      : ", " + (h.figure_label.empty() ? std::string(h.kind()) : h.figure_label);
    step.trace.log("mmkg: retrieve:   %zu. %s%s%s, chunk %s%s%s (%zu tokens%s)", i + 1, h.doc.c_str(), page.c_str(),
                   fig.c_str(), h.chunk_id.c_str(), h.heading_path.empty() ? "" : " — ", h.heading_path.c_str(),
                   c.tokens, c.trimmed() ? ", trimmed" : "");
  }
  return rr;
}

Draft SynthesizerAgent::run(const SynthInput& in, AgentStep& step) {
  SynthStep& d = step.detail.emplace<SynthStep>();
  Draft dr;
  if (chat_) {
    try {
      dr = draft_llm(*chat_, *in.question, *in.retrieval, stats_, opt_, lopt_);
    } catch (const Error& e) {  // the model failed: the extractive answer stands
      dr = draft_extractive(*in.question, *in.retrieval, stats_, opt_);
      dr.fallback = std::string("model call failed: ") + e.what();
    }
    static_cast<DraftReport&>(d) = dr;
    d.synthesizer = dr.from_model() ? "llm" : "extractive";
    d.with_model = true;
    d.model = chat_->id();
    d.model_sentences = dr.sentences.size();
    step.trace.log("mmkg: synthesize: model %s: %lld prompt + %lld completion tokens, %.0f ms%s", chat_->id().c_str(),
                   dr.usage.prompt, dr.usage.completion, dr.model_ms, dr.cached ? " (cached)" : "");
    if (!dr.fallback.empty()) step.trace.log("mmkg: synthesize: extractive answer: %s", dr.fallback.c_str());
  } else {
    dr = draft_extractive(*in.question, *in.retrieval, stats_, opt_);
    d.synthesizer = "extractive";
  }
  d.found = dr.extractive.found;
  d.coverage = dr.extractive.coverage;
  step.trace.log("mmkg: synthesize: %s (best passage covers %.0f%% of the question's terms)",
                 dr.extractive.found ? "answerable" : "not found in the documents", dr.extractive.coverage * 100);
  return dr;
}

Verified VerifierAgent::run(const VerifyInput& in, AgentStep& step) {
  VerifyStep& d = step.detail.emplace<VerifyStep>();
  Verified v;
  const std::string& question = in.question->standalone;
  v.answer = verify_draft(question, *in.retrieval, *in.draft, opt_, v.report);
  const VerifyReport& r = v.report;
  static_cast<VerifyReport&>(d) = r;
  if (in.draft->from_model()) {
    d.model_draft = true;
    if (opt_.judge) {
      d.with_judge = true;
      d.judge_model = opt_.judge->id();
      d.judge_scope = judge_scope_name(opt_.judge_scope);
    }
    step.trace.log("mmkg: verify: %zu of %zu model sentences supported by their cited passage (%zu by embedding, "
                   "%zu by the judge, %zu revised to the source's words)%s%s",
                   r.kept_sentences, r.model_sentences, r.kept_by_embedding, r.kept_by_judge, r.revised,
                   r.fallback.empty() ? "" : "; extractive answer: ", r.fallback.c_str());
    if (opt_.judge)
      step.trace.log("mmkg: verify: judge %s: %zu sentences, %zu vetoes, %.0f ms%s%s", opt_.judge->id().c_str(),
                     r.judged, r.judge_vetoes, r.judge_ms, r.judge_error.empty() ? "" : "; ", r.judge_error.c_str());
  }
  // Every citation must resolve to a real chunk of the store (a bug guard, cheap).
  size_t ok = 0;
  for (auto& c : v.answer.citations)
    if (store_.chunk(c.chunk_id)) ++ok;
  d.citations = v.answer.citations.size();
  d.citations_resolved = ok;
  d.found = v.answer.found;
  if (!doc_words_) doc_words_ = document_name_stems(store_);
  v.gaps = answer_gaps(question, v.answer, *in.retrieval, stats_, *doc_words_);
  d.gaps = v.gaps;
  std::string gl;
  for (auto& g : v.gaps) gl += (gl.empty() ? "" : ", ") + g;
  step.trace.log("mmkg: verify: %s, %zu citations%s%s", v.answer.found ? "answered" : "not found in the documents",
                 v.answer.citations.size(), gl.empty() ? "" : "; the sources do not mention: ", gl.c_str());
  return v;
}

}  // namespace mmkg
