#include "eval/eval_json.h"

namespace mmkg {

using nlohmann::json;

namespace {

json recall_json(const RecallScore& s) {
  return {{"questions", s.questions}, {"recall_at_2", s.recall_at_2}, {"recall_at_5", s.recall_at_5},
          {"recall_at_10", s.recall_at_10}, {"mrr", s.mrr}};
}

json mode_json(const ModeScore& m) {
  if (!m.unavailable.empty()) return {{"unavailable", m.unavailable}};
  json bt = json::object();
  for (const auto& [type, t] : m.by_type) bt[type] = recall_json(t);
  json bs = json::object();
  for (const auto& [type, t] : m.by_subtype) bs[type] = recall_json(t);
  json o = {{"answerable", m.all.questions},
            {"recall_at_k", {{"2", m.all.recall_at_2}, {"5", m.all.recall_at_5}, {"10", m.all.recall_at_10}}},
            {"mrr", m.all.mrr},
            {"by_type", bt}};
  if (!bs.empty()) o["by_subtype"] = bs;
  if (!m.reranker.empty()) {
    o["reranker"] = m.reranker;
    o["rerank_top_n"] = m.rerank_top_n;
    o["rerank_weight"] = m.rerank_weight;
    o["rerank_ms_per_question"] = m.rerank_ms_per_question;
    if (!m.last_fallback.empty()) o["last_fallback"] = m.last_fallback;
  }
  return o;
}

json item_json(const ItemScore& it) {
  json o = {{"id", it.id}, {"type", it.type}};
  if (!it.subtype.empty()) o["subtype"] = it.subtype;
  for (const auto& [mode, r] : it.recall_at_2) o["recall_at_2_" + mode] = r;
  for (const auto& [mode, r] : it.recall_at_5) o["recall_at_5_" + mode] = r;
  for (const auto& [mode, r] : it.recall_at_10) o["recall_at_10_" + mode] = r;
  for (const auto& [mode, f] : it.first_rank) o["first_rank_" + mode] = f ? json(*f) : json(nullptr);
  if (it.answered) {
    o["answer_correct"] = it.answer_correct;
    o["found"] = it.found;
    o["answer"] = it.answer;
    o["direct"] = it.direct.empty() ? json(nullptr) : json(it.direct);
    if (!it.direct_why.empty()) o["direct_why"] = it.direct_why;
    if (it.direct_em) o["direct_em"] = *it.direct_em;
    if (it.direct_f1) o["direct_f1"] = *it.direct_f1;
    o["citations"] = it.cited;
    o["citations_with_evidence"] = it.cited_with_evidence;
    o["context_tokens"] = it.context_tokens;
    if (it.context_evidence) o["context_evidence"] = *it.context_evidence;
    if (it.context_evidence)
      o["context_first_evidence"] = it.context_first_evidence ? json(*it.context_first_evidence) : json(nullptr);
  }
  return o;
}

}  // namespace

json eval_json(const EvalReport& r) {
  json out;
  out["questions"] = r.questions;
  out["mode"] = r.primary.empty() ? json(nullptr) : json(r.primary);
  json modes = json::object();
  for (const auto& [name, m] : r.modes) modes[name] = mode_json(m);
  if (!r.primary.empty()) {
    const json& p = modes[r.primary];
    out["answerable"] = p["answerable"];
    out["recall_at_k"] = p["recall_at_k"];
    out["mrr"] = p["mrr"];
    out["by_type"] = p["by_type"];
    if (p.contains("by_subtype")) out["by_subtype"] = p["by_subtype"];
  }
  out["answer_accuracy"] = r.answer_accuracy ? json(*r.answer_accuracy) : json(nullptr);
  out["citation_precision"] = r.citation_precision ? json(*r.citation_precision) : json(nullptr);
  if (r.direct_em)
    out["direct"] = {{"exact_match", *r.direct_em}, {"f1", r.direct_f1.value_or(0)},
                     {"answered", r.direct_answered.value_or(0)}};
  out["llm"] = r.llm.empty() ? json(nullptr) : json(r.llm);
  out["reranker"] = r.reranker.empty() ? json(nullptr) : json(r.reranker);
  out["fusion"] = r.fusion.empty() ? json(nullptr) : json(r.fusion);
  if (r.cv_folded)
    out["cv"] = {{"folded", *r.cv_folded}, {"unfolded", r.cv_unfolded.value_or(0)}};
  if (r.context) {
    const ContextScore& c = *r.context;
    out["context"] = {{"max_context_tokens", c.max_context_tokens},
                      {"tokens", c.tokens},
                      {"chars", c.chars},
                      {"chunks", c.chunks},
                      {"trimmed_chunks", c.trimmed_chunks},
                      {"unbudgeted_tokens", c.unbudgeted_tokens},
                      {"unbudgeted_chars", c.unbudgeted_chars},
                      {"evidence_recall", c.evidence_recall},
                      {"evidence_mrr", c.evidence_mrr},
                      {"rerank_ms", c.rerank_ms}};
  }
  out["modes"] = modes;
  json items = json::array();
  for (const auto& it : r.items) items.push_back(item_json(it));
  out["items"] = items;
  return out;
}

}  // namespace mmkg
