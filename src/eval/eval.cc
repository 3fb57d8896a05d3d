#include "eval/eval.h"

#include <cctype>
#include <sstream>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <set>

#include "agents/answerable.h"
#include "agents/sentence_select.h"
#include "agents/ask.h"
#include "agents/graph_retriever.h"
#include "agents/team.h"
#include "retrieve/rerank.h"
#include "core/error.h"
#include "llm/chat_model.h"
#include "text/words.h"
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
      q.subtype = j.value("subtype", "");
      if (j.contains("answer") && j["answer"].is_string()) q.answer = j["answer"].get<std::string>();
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

namespace {

// SQuAD's answer normalisation: lower case, punctuation dropped, the articles a/an/the dropped.
std::vector<std::string> answer_tokens(const std::string& s) {
  std::string t;
  for (char c : lower_ascii(s)) t += std::ispunct(static_cast<unsigned char>(c)) ? ' ' : c;
  std::vector<std::string> out;
  std::istringstream in(t);
  for (std::string w; in >> w;)
    if (w != "a" && w != "an" && w != "the") out.push_back(w);
  return out;
}

}  // namespace

double answer_exact_match(const std::string& predicted, const std::string& gold) {
  return answer_tokens(predicted) == answer_tokens(gold) ? 1.0 : 0.0;
}

double answer_token_f1(const std::string& predicted, const std::string& gold) {
  const std::vector<std::string> p = answer_tokens(predicted), g = answer_tokens(gold);
  if (p.empty() || g.empty()) return p == g ? 1.0 : 0.0;
  std::map<std::string, int> left;
  for (const auto& w : g) ++left[w];
  int same = 0;
  for (const auto& w : p)
    if (left[w]-- > 0) ++same;
  if (same == 0) return 0.0;
  const double prec = static_cast<double>(same) / static_cast<double>(p.size());
  const double rec = static_cast<double>(same) / static_cast<double>(g.size());
  return 2 * prec * rec / (prec + rec);
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

/// A mode's hits for the question (as retrieval reads it), with the ranker's model for it (eval
/// --cv: its fold; nullptr: the full model).
using HitsFn = std::function<std::vector<SearchHit>(const Question& question, int k, const LinearModel* fold)>;
/// Called before each question's searches (the feature capture); gives the ranker's fold model
/// for the question (nullptr: the full model).
using BeforeFn = std::function<const LinearModel*(const QaItem&)>;

/// The items as retrieval reads them (acronyms written in), each question analysed once for
/// every mode.
struct Searched {
  std::vector<QaItem> items;
  std::vector<Question> questions;  ///< parallel to items
};

// Retrieval metrics of one search mode over the items with evidence.
ModeScore score_mode(const HitsFn& search, const std::string& mode_name, const Searched& searched,
                     EvalReport& rep, const BeforeFn& before) {
  const std::vector<QaItem>& items = searched.items;
  const int kMax = 10;
  ModeScore m;
  auto add = [](RecallScore& s, double r2, double r5, double r10, double rr) {
    ++s.questions;
    s.recall_at_2 += r2;
    s.recall_at_5 += r5;
    s.recall_at_10 += r10;
    s.mrr += rr;
  };
  for (size_t qi = 0; qi < items.size(); ++qi) {
    const QaItem& q = items[qi];
    if (q.evidence.empty()) continue;
    const LinearModel* fold = before ? before(q) : nullptr;
    auto hits = search(searched.questions[qi], kMax, fold);
    int found2 = 0, found5 = 0, found10 = 0, first = 0;
    for (const auto& ev : q.evidence) {
      for (size_t r = 0; r < hits.size(); ++r) {
        if (!evidence_in(hits[r].text, ev.quote)) continue;
        if (r < 2) ++found2;
        if (r < 5) ++found5;
        ++found10;
        if (first == 0 || static_cast<int>(r) + 1 < first) first = static_cast<int>(r) + 1;
        break;
      }
    }
    const double n = static_cast<double>(q.evidence.size());
    const double rr = first ? 1.0 / first : 0.0;
    add(m.all, found2 / n, found5 / n, found10 / n, rr);
    add(m.by_type[q.type], found2 / n, found5 / n, found10 / n, rr);
    if (!q.subtype.empty()) add(m.by_subtype[q.subtype], found2 / n, found5 / n, found10 / n, rr);
    rep.items[qi].recall_at_2[mode_name] = found2 / n;
    rep.items[qi].recall_at_5[mode_name] = found5 / n;
    rep.items[qi].recall_at_10[mode_name] = found10 / n;
    rep.items[qi].first_rank[mode_name] = first ? std::optional<int>(first) : std::nullopt;
  }
  auto mean = [](RecallScore& s) {
    if (s.questions == 0) return;
    s.recall_at_2 /= s.questions;
    s.recall_at_5 /= s.questions;
    s.recall_at_10 /= s.questions;
    s.mrr /= s.questions;
  };
  mean(m.all);
  for (auto& [type, t] : m.by_type) mean(t);
  for (auto& [type, t] : m.by_subtype) mean(t);
  return m;
}

// The first `k` hits of `ranked`.
std::vector<SearchHit> top_hits(std::vector<Candidate> ranked, int k) {
  std::vector<SearchHit> out;
  for (auto& c : ranked)
    if (out.size() < static_cast<size_t>(k)) out.push_back(std::move(c.hit));
  return out;
}

// Scores one --answers answer into `item` and the running sums.
struct AnswerSums {
  double correct = 0;
  double em = 0, f1 = 0, direct = 0;
  int with_gold = 0;
  long cited = 0, cited_with_evidence = 0;
  ContextScore cx;
  int with_evidence = 0;
};

void score_answer(const QaItem& q, const AskResult& a, ItemScore& item, AnswerSums& sums) {
  // The context the answer was written from: its size, with and without the budget, and how
  // many evidence quotes it still holds (in the text it shows, trimmed or not).
  const RetrieveStep& rs = a.retrieval;
  sums.cx.tokens += static_cast<double>(rs.context_tokens);
  sums.cx.chars += static_cast<double>(rs.context_chars);
  sums.cx.chunks += static_cast<double>(rs.context_chunks);
  sums.cx.trimmed_chunks += static_cast<double>(rs.trimmed_chunks);
  sums.cx.unbudgeted_tokens += static_cast<double>(rs.unbudgeted_tokens);
  sums.cx.unbudgeted_chars += static_cast<double>(rs.unbudgeted_chars);
  sums.cx.rerank_ms += rs.rerank.ms;
  item.context_tokens = rs.context_tokens;
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
    const double share = static_cast<double>(in) / static_cast<double>(q.evidence.size());
    sums.cx.evidence_recall += share;
    sums.cx.evidence_mrr += first ? 1.0 / static_cast<double>(first) : 0.0;
    ++sums.with_evidence;
    item.context_evidence = share;
    item.context_first_evidence = first ? std::optional<size_t>(first) : std::nullopt;
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
  sums.correct += ok ? 1 : 0;
  item.direct = a.direct.found ? a.direct.text : "";
  item.direct_why = a.direct.found ? "" : a.direct.why;
  if (!q.answer.empty()) {
    item.direct_em = answer_exact_match(item.direct, q.answer);
    item.direct_f1 = answer_token_f1(item.direct, q.answer);
    sums.em += *item.direct_em;
    sums.f1 += *item.direct_f1;
    sums.direct += a.direct.found ? 1 : 0;
    ++sums.with_gold;
  }
  item.answered = true;
  item.answer_correct = ok;
  item.found = a.found;
  item.answer = a.answer;
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
  item.cited = cited;
  item.cited_with_evidence = with_evidence;
  if (!q.evidence.empty() && cited) {
    sums.cited += cited;
    sums.cited_with_evidence += with_evidence;
  }
}

}  // namespace

namespace {

// The question alone as the plan: what `ask` ranks before sub-queries are added.
// Writes a question's Fitted pool as one JSON line (EvalOptions::features): per candidate its
// document, chunk, the evidence quotes it holds (indices into the question's) and its features.
Searcher::PoolCapture feature_writer(std::ostream& out, const QaItem& q) {
  return [&out, q](const std::vector<SearchHit>& pool, const std::vector<FeatureRow>& rows) {
    nlohmann::json cands = nlohmann::json::array();
    for (size_t i = 0; i < pool.size(); ++i) {
      nlohmann::json holds = nlohmann::json::array();
      for (size_t e = 0; e < q.evidence.size(); ++e)
        if (evidence_in(pool[i].text, q.evidence[e].quote)) holds.push_back(e);
      cands.push_back({{"doc", pool[i].doc}, {"chunk", pool[i].chunk_id}, {"evidence", holds},
                       {"x", std::vector<double>(rows[i].begin(), rows[i].end())}});
    }
    std::vector<std::string> docs;
    for (const auto& e : q.evidence) docs.push_back(e.doc);
    nlohmann::json line = {{"kind", "ranker"}, {"id", q.id}, {"type", q.type}, {"question", q.question},
                           {"evidence_docs", docs}, {"evidence", q.evidence.size()}, {"features", rank_feature_names()},
                           {"candidates", cands}};
    out << line.dump() << '\n';
  };
}

// An answer's candidate sentences as one JSON line ("kind": "selector"): per sentence and part,
// its features, whether it holds one of the question's answer keywords, and whether its passage
// holds an evidence quote (a sentence that answers does both: the answer is then correct and its
// citation evidence).
nlohmann::json selector_rows(const QaItem& q, const AskResult& a) {
  std::vector<bool> evidence(a.context.size(), false);
  for (size_t c = 0; c < a.context.size(); ++c)
    for (const auto& e : q.evidence) evidence[c] = evidence[c] || evidence_in(a.context[c].text, e.quote);
  nlohmann::json cands = nlohmann::json::array();
  for (const auto& r : a.sentence_rows) {
    const std::string lower = lower_ascii(r.text);
    bool keyword = false;
    for (const auto& k : q.answer_keywords) keyword = keyword || lower.find(lower_ascii(k)) != std::string::npos;
    cands.push_back({{"cand", r.cand}, {"part", r.part}, {"keyword", keyword},
                     {"evidence", r.cand < evidence.size() && evidence[r.cand]}, {"x", r.x}});
  }
  std::vector<std::string> docs;
  for (const auto& e : q.evidence) docs.push_back(e.doc);
  return {{"kind", "selector"}, {"id", q.id}, {"type", q.type}, {"evidence_docs", docs},
          {"features", select_feature_names()}, {"candidates", cands}};
}

QueryPlan plan_of(const Question& q) {
  QueryPlan p;
  p.subqueries = {q.searched};
  p.parts = q.search_parts;
  return p;
}

// <base>+graph: the base mode's hits fused with the graph's lists, by ask's code.
ModeScore score_graph_mode(Store& store, Searcher& searcher, SearchMode base, GraphContext& graph,
                           const Searched& items, const std::string& name, EvalReport& rep,
                           const BeforeFn& before) {
  auto fn = [&](const Question& q, int k, const LinearModel* fold) {
    RetrieveOptions ro;
    ro.mode = base;
    ro.k_per_query = k;
    ro.max_chunks = static_cast<size_t>(k);
    ro.parallel = 1;
    ro.fusion = searcher.fusion();  // the hybrid row's, so that the rows compare
    ro.fold_model = fold;
    GraphAgent agent(graph, {}, /*hop_lists=*/true);
    Trace quiet(false);
    const std::vector<RankedList> lists = run_agent(agent, q, quiet);
    return top_hits(rank_candidates(store, searcher, plan_of(q), ro, lists), k);
  };
  return score_mode(fn, name, items, rep, before);
}

// "ppr": the graph's passages alone (PPR from the question's linked entities, every question);
// "hybrid+ppr": `mmkg search`'s hybrid ranking, the graph's passages fused in as a retriever when
// the question names a specific entity with a home passage (graph_passages), by search's code.
ModeScore score_ppr_mode(Store& store, Searcher& searcher, GraphContext& graph, const Searched& items,
                         const std::string& name, EvalReport& rep, const BeforeFn& before, bool fuse) {
  auto fn = [&](const Question& q, int k, const LinearModel* fold) {
    GraphAgent agent(graph, {}, /*hop_lists=*/false);
    Trace quiet(false);
    std::vector<RankedList> lists = run_agent(agent, q, quiet);
    RankedList list = lists.empty() ? RankedList{} : std::move(lists.front());
    if (!fuse) {
      list.chunk_ids.clear();
      for (const auto& [id, score] : agent.found().ppr_chunks) list.chunk_ids.push_back(id);
      return fuse_with_list(store, {}, list, static_cast<size_t>(k));
    }
    SearchOptions so;
    so.mode = SearchMode::Hybrid;
    so.k = list.chunk_ids.empty() ? k : std::max(k, GraphRetrieveOptions{}.ppr_chunks);
    so.fold_model = fold;
    return fuse_with_list(store, searcher.search(q.searched, so, q.search_parts), list, static_cast<size_t>(k));
  };
  return score_mode(fn, name, items, rep, before);
}

// <base>+rerank: the base mode's candidates for the question, reranked by ask's code.
ModeScore score_rerank_mode(Store& store, Searcher& searcher, SearchMode base, const RetrieveOptions& retrieve,
                            const Searched& items, const std::string& name, EvalReport& rep,
                            const BeforeFn& before) {
  double ms = 0;
  int calls = 0;
  std::string fallback;
  auto fn = [&](const Question& q, int k, const LinearModel* fold) {
    RetrieveOptions ro = retrieve;
    ro.fold_model = fold;
    ro.mode = base;
    ro.k_per_query = std::max(k, static_cast<int>(retrieve.rerank_top_n));
    ro.max_chunks = static_cast<size_t>(ro.k_per_query);
    ro.parallel = 1;
    ro.fusion = searcher.fusion();  // the hybrid row's, so that the rows compare
    RerankReport rr;
    auto ranked = rank_candidates(store, searcher, plan_of(q), ro, {}, {}, &rr);
    ms += rr.ms;
    ++calls;
    if (!rr.fallback.empty()) fallback = rr.fallback;
    return top_hits(std::move(ranked), k);
  };
  ModeScore m = score_mode(fn, name, items, rep, before);
  m.reranker = retrieve.reranker->name();
  m.rerank_top_n = retrieve.rerank_top_n;
  m.rerank_weight = retrieve.rerank_weight;
  m.rerank_ms_per_question = calls ? ms / calls : 0.0;
  m.last_fallback = fallback;
  return m;
}

// Answers every question with ask() and scores the answers and their contexts.
void score_answers(Store& store, Searcher& searcher, const std::vector<QaItem>& items, const EvalOptions& opt,
                   EvalReport& rep, const BeforeFn& before, std::set<std::string>& folded,
                   std::set<std::string>& unfolded) {
  AskOptions ao = opt.ask;
  ao.graph = opt.graph;
  ao.chat = opt.chat;
  ao.retrieve = opt.retrieve;
  ao.retrieve.parallel = opt.ask.retrieve.parallel;
  ao.expand = opt.expand;
  ao.retrieve.mode = rep.primary.empty() ? SearchMode::Bm25 : parse_search_mode(rep.primary);
  AnswerSums sums;
  const FittedModel* answerable = opt.answerable.get();
  ao.synth.sentence_feature = opt.features != nullptr;
  ao.synth.sentence_rows = opt.features != nullptr;
  const FittedModel* selector = opt.selector.get();
  for (size_t qi = 0; qi < items.size(); ++qi) {
    const QaItem& q = items[qi];
    ao.retrieve.fold_model = before(q);
    ao.synth.answerable = answerable ? &answerable->full() : nullptr;
    if (opt.cv && answerable) {
      const LinearModel* fold = answerable->fold_for(q.id);
      if (fold) ao.synth.answerable = fold;
      (fold ? folded : unfolded).insert(q.id);
    }
    ao.synth.selector = selector ? &selector->full() : nullptr;
    if (opt.cv && selector) {
      const LinearModel* fold = selector->fold_for(q.id);
      if (fold) ao.synth.selector = fold;
      (fold ? folded : unfolded).insert(q.id);
    }
    AskResult a = ask(store, searcher, q.question, ao);
    if (opt.features && !q.evidence.empty() && !a.sentence_rows.empty())
      *opt.features << selector_rows(q, a).dump() << '\n';
    if (opt.features && !a.answerability.empty())
      *opt.features << nlohmann::json({{"kind", "answerable"}, {"id", q.id}, {"type", q.type},
                                       {"answerable", !q.evidence.empty()}, {"found", a.found},
                                       {"features", answer_feature_names()}, {"x", a.answerability}})
                           .dump()
                    << '\n';
    score_answer(q, a, rep.items[qi], sums);
    // The same question without its evidence passages: the subject is still there, the answer is
    // not; a hard negative for the answerability model (marked "without_evidence").
    if (opt.features && !q.evidence.empty()) {
      AskOptions without = ao;
      without.retrieve.exclude = [&q](const SearchHit& h) {
        for (const auto& e : q.evidence)
          if (evidence_in(h.text, e.quote)) return true;
        return false;
      };
      AskResult n = ask(store, searcher, q.question, without);
      if (!n.answerability.empty())
        *opt.features << nlohmann::json({{"kind", "answerable"}, {"id", q.id}, {"type", q.type},
                                         {"answerable", false}, {"without_evidence", true}, {"found", n.found},
                                         {"features", answer_feature_names()}, {"x", n.answerability}})
                             .dump()
                      << '\n';
    }
  }
  const double n = static_cast<double>(items.size());
  rep.answer_accuracy = sums.correct / n;
  if (sums.with_gold) {
    rep.direct_em = sums.em / sums.with_gold;
    rep.direct_f1 = sums.f1 / sums.with_gold;
    rep.direct_answered = sums.direct / sums.with_gold;
  }
  if (sums.cited) rep.citation_precision = static_cast<double>(sums.cited_with_evidence) / static_cast<double>(sums.cited);
  ContextScore cx = sums.cx;
  cx.max_context_tokens = opt.retrieve.max_context_tokens;
  for (double* v : {&cx.tokens, &cx.chars, &cx.chunks, &cx.trimmed_chunks, &cx.unbudgeted_tokens,
                    &cx.unbudgeted_chars, &cx.rerank_ms})
    *v /= n;
  cx.evidence_recall = sums.with_evidence ? cx.evidence_recall / sums.with_evidence : 0.0;
  cx.evidence_mrr = sums.with_evidence ? cx.evidence_mrr / sums.with_evidence : 0.0;
  rep.context = cx;
}

}  // namespace

EvalReport evaluate(Store& store, Searcher& searcher, const std::vector<QaItem>& items, const EvalOptions& opt) {
  EvalReport rep;
  rep.questions = items.size();
  for (const auto& q : items) rep.items.push_back(ItemScore{.id = q.id, .type = q.type, .subtype = q.subtype});

  // The modes search for the question as retrieval reads it; answers are scored for it as asked.
  Searched searched{items, {}};
  if (opt.expand)
    for (auto& q : searched.items) q.question = opt.expand(q.question);
  for (const auto& q : searched.items) searched.questions.push_back(analyse_question(q.question));
  const std::string unavailable = searcher.dense_unavailable_reason();
  rep.fusion = fusion_name(searcher.fusion());
  // --cv: each question's fold model, for every mode and its answer.
  std::set<std::string> folded, unfolded;
  const auto ranker = searcher.ranker();  // held: the fold models live in it
  BeforeFn before = [&](const QaItem& q) -> const LinearModel* {
    if (!opt.cv || searcher.fusion() != Fusion::Fitted) return nullptr;
    const LinearModel* m = ranker->fold_for(q.id);
    (m ? folded : unfolded).insert(q.id);
    return m;
  };
  for (SearchMode m : opt.modes) {
    if (m != SearchMode::Bm25 && !unavailable.empty()) {
      rep.modes[search_mode_name(m)] = ModeScore{.unavailable = unavailable};
      continue;
    }
    const QaItem* current = nullptr;
    auto fn = [&searcher, &opt, &current, m](const Question& q, int k, const LinearModel* fold) {
      SearchOptions so;
      so.mode = m;
      so.k = k;
      so.fold_model = fold;
      if (m == SearchMode::Hybrid && opt.features && current) so.capture = feature_writer(*opt.features, *current);
      return searcher.search(q.searched, so, q.search_parts);
    };
    BeforeFn before_mode = [&](const QaItem& q) {
      current = &q;
      return before(q);
    };
    rep.modes[search_mode_name(m)] = score_mode(fn, search_mode_name(m), searched, rep, before_mode);
  }
  SearchMode base = opt.modes.empty() ? SearchMode::Bm25 : opt.modes.back();
  if (base != SearchMode::Bm25 && !unavailable.empty()) base = SearchMode::Bm25;
  const std::string base_name = search_mode_name(base);
  if (opt.graph && !opt.modes.empty())
    rep.modes[base_name + "+graph"] =
        score_graph_mode(store, searcher, base, *opt.graph, searched, base_name + "+graph", rep, before);
  if (opt.graph && std::find(opt.modes.begin(), opt.modes.end(), SearchMode::Hybrid) != opt.modes.end()) {
    rep.modes["ppr"] = score_ppr_mode(store, searcher, *opt.graph, searched, "ppr", rep, before, false);
    rep.modes["hybrid+ppr"] = score_ppr_mode(store, searcher, *opt.graph, searched, "hybrid+ppr", rep, before, true);
  }
  if (opt.retrieve.reranker && !opt.modes.empty())
    rep.modes[base_name + "+rerank"] =
        score_rerank_mode(store, searcher, base, opt.retrieve, searched, base_name + "+rerank", rep, before);

  // The contract's top-level figures are those of the primary mode: the last one evaluated that
  // ran (hybrid by default; BM25 when dense retrieval is unavailable). Answers use that mode too.
  for (SearchMode m : opt.modes) {
    auto it = rep.modes.find(search_mode_name(m));
    if (it != rep.modes.end() && it->second.unavailable.empty()) rep.primary = search_mode_name(m);
  }
  rep.llm = opt.chat ? opt.chat->id() : "";
  rep.reranker = opt.retrieve.reranker ? opt.retrieve.reranker->name() : "";
  if (opt.answers && !items.empty()) score_answers(store, searcher, items, opt, rep, before, folded, unfolded);
  if (opt.cv) {
    for (const auto& id : unfolded) folded.erase(id);
    rep.cv_folded = folded.size(), rep.cv_unfolded = unfolded.size();
  }
  return rep;
}

}  // namespace mmkg
