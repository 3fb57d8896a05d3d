#include "agents/trace_json.h"

#include "core/location.h"

namespace mmkg {

using nlohmann::json;

json entity_link_json(const graph::EntityLink& e) {
  return {{"name", e.name}, {"id", e.entity_id}, {"phrase", e.phrase}, {"how", e.how}, {"score", e.score}};
}

namespace {

void render(const std::monostate&, json&) {}

void render(const RewriteStep& r, json& d) {
  d["asked"] = r.asked;
  d["question"] = r.question;
  d["method"] = r.method;
  d["previous"] = r.previous;
  if (!r.topic.empty()) d["topic"] = r.topic;
  if (!r.fallback.empty()) d["fallback"] = r.fallback;
}

void render(const PlanStep& p, json& d) {
  d["planner"] = planner_kind_name(p.planner);
  d["subqueries"] = p.subqueries;
  if (p.planner == PlannerKind::Followup) {
    d["gaps"] = p.gaps;
    d["new_subqueries"] = p.new_subqueries;
    return;
  }
  if (!p.fallback.empty()) d["fallback"] = p.fallback;
  if (!p.tools.empty()) d["tools"] = p.tools;
}

void render(const GraphStep& g, json& d) {
  json ents = json::array();
  for (const auto& e : g.entities) ents.push_back(entity_link_json(e));
  d["entities"] = ents;
  d["facts"] = g.facts;
  d["ppr_chunks"] = g.ppr_chunks;
  d["broad"] = g.broad;
  d["communities"] = g.communities;
  d["lists"] = g.lists;
}

void render(const FigureStep& f, json& d) {
  d["labels"] = f.labels;
  json a = json::array();
  for (const auto& x : f.figures)
    a.push_back({{"label", x.label}, {"figure_id", x.figure_id}, {"chunk_id", x.chunk_id}, {"doc", x.doc_name},
                 {"page", x.page}, {"doc_named", x.doc_named}, {"pinned", x.pinned},
                 {"where", location_text({.doc = x.doc_name, .page = x.page, .chunk_id = x.chunk_id,
                                          .figure_id = x.figure_id, .figure_label = x.label})}});
  d["figures"] = a;
}

void render(const RetrieveStep& r, json& d) {
  d["mode"] = search_mode_name(r.mode);
  if (!r.fallback.empty()) d["fallback"] = r.fallback;
  d["subqueries"] = r.subqueries;
  d["unique_chunks"] = r.unique_chunks;
  if (!r.rerank.reranker.empty()) {
    json rk = {{"reranker", r.rerank.reranker}, {"ms", r.rerank.ms}, {"scored", r.rerank.scored},
               {"moved", r.rerank.moved}};
    if (!r.rerank.fallback.empty()) rk["fallback"] = r.rerank.fallback;
    d["rerank"] = rk;
  }
  d["context_chunks"] = r.context_chunks;
  d["context_chars"] = r.context_chars;
  d["context_tokens"] = r.context_tokens;
  d["max_context_tokens"] = r.max_context_tokens;
  d["trimmed_chunks"] = r.trimmed_chunks;
  d["skipped_chunks"] = r.skipped_chunks;
  d["unbudgeted_tokens"] = r.unbudgeted_tokens;
  d["unbudgeted_chars"] = r.unbudgeted_chars;
  d["documents"] = r.documents;
  json figs = json::array();
  for (const auto& f : r.figures)
    figs.push_back({{"passage", f.passage}, {"figure_id", f.figure_id}, {"label", f.label}, {"kind", figure_kind_name(f.kind)},
                    {"doc", f.doc}, {"page", f.page},
                    {"where", location_text({.doc = f.doc, .page = f.page, .figure_id = f.figure_id,
                                             .figure_label = f.label, .figure_kind = f.kind})}});
  d["figures"] = figs;
}

void render(const SynthStep& s, json& d) {
  d["synthesizer"] = s.synthesizer;
  if (s.with_model) {
    d["model"] = s.model;
    d["model_ms"] = s.model_ms;
    d["prompt_tokens"] = s.usage.prompt;
    d["completion_tokens"] = s.usage.completion;
    d["cached"] = s.cached;
    d["model_sentences"] = s.model_sentences;
    d["images"] = s.images;
    if (!s.fallback.empty()) d["fallback"] = s.fallback;
  }
  d["found"] = s.found;
  d["coverage"] = s.coverage;
}

void render(const VerifyStep& v, json& d) {
  d["answer_from"] = v.used_model ? "llm" : "extractive";
  if (v.model_draft) {
    d["model_sentences"] = v.model_sentences;
    d["verified_sentences"] = v.kept_sentences;
    d["verified_by_embedding"] = v.kept_by_embedding;
    d["verified_by_judge"] = v.kept_by_judge;
    d["revised"] = v.revised;
    d["dropped"] = v.dropped;
    if (v.with_judge) {
      d["judge"] = {{"model", v.judge_model},         {"scope", v.judge_scope},
                    {"sentences", v.judged},          {"answered", v.judge_answered},
                    {"vetoes", v.judge_vetoes},       {"ms", v.judge_ms},
                    {"prompt_tokens", v.judge_usage.prompt}, {"completion_tokens", v.judge_usage.completion}};
      if (!v.judge_error.empty()) d["judge"]["error"] = v.judge_error;
    }
  }
  if (!v.fallback.empty()) d["fallback"] = v.fallback;
  d["citations"] = v.citations;
  d["citations_resolved"] = v.citations_resolved;
  d["found"] = v.found;
  d["gaps"] = v.gaps;
}

void render(const OrchestrateStep& o, json& d) {
  d["rounds"] = o.rounds;
  d["answer_round"] = o.answer_round;
  d["max_rounds"] = o.max_rounds;
  d["stop"] = o.stop;
}

}  // namespace

json step_json(const StepRecord& s) {
  json d = {{"step", s.step}, {"ms", s.ms}};
  if (s.round > 0) d["round"] = s.round;
  std::visit([&](const auto& x) { render(x, d); }, s.detail);
  if (!s.error.empty()) d["error"] = s.error;
  return d;
}

json trace_json(const std::vector<StepRecord>& steps) {
  json a = json::array();
  for (const auto& s : steps) a.push_back(step_json(s));
  return a;
}

}  // namespace mmkg
