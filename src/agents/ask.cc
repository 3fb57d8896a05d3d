#include "agents/ask.h"

#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "agents/team.h"
#include "agents/trace.h"
#include "embed/embedder.h"
#include "index/lexical.h"
#include "index/searcher.h"
#include "llm/cancellable_chat.h"
#include "store/store.h"
#include "text/lexicon.h"
#include "text/words.h"

namespace mmkg {

namespace {

// The stored PNG of a figure, for a vision model; empty when there is none or it cannot be read.
std::string figure_png(Store& store, const std::string& figure_id) {
  auto figs = store.find_figures(figure_id);
  if (figs.empty() || figs[0].figure.image_hash.empty()) return {};
  std::ifstream in(store.figure_path(figs[0].figure.image_hash), std::ios::binary);
  if (!in) return {};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

bool follow_up_is_better(const Verified& last, const Verified& next) {
  if (next.answer.found != last.answer.found) return next.answer.found;
  if (next.gaps.size() >= last.gaps.size()) return false;
  // Whole words, singular or plural: a stem would let "weak convergence" fill "weakness".
  const graph::Lexicon& lex = graph::Lexicon::get();
  std::set<std::string> said;
  for (const auto& w : words(next.answer.text)) said.insert(lex.singular(w));
  for (const auto& g : last.gaps)
    if (said.count(lex.singular(g))) return true;
  return false;
}

namespace {

// The verifier's options: the searcher's embedder for its embedding check, and the model as its
// judge when one is configured.
VerifyOptions verify_options(const AskOptions& opt, Searcher& searcher) {
  VerifyOptions vo = opt.verify;
  if (!vo.embed) {
    vo.embed = [&searcher](const std::vector<std::string>& texts) {
      Embedder* emb = searcher.embedder();
      return emb ? embed_rows(*emb, texts, EmbedKind::Document) : std::vector<std::vector<float>>(texts.size());
    };
  }
  if (!vo.judge && opt.chat && opt.judge != JudgeScope::None) {
    vo.judge = opt.chat;
    vo.judge_scope = opt.judge;
  }
  return vo;
}

// The synthesizer's options: the sentence vectors cost an embedding per new context sentence, so
// only a fitted model or its training rows get them (the rule does not read them).
// Chunks of an entity's document the direct answer's walk reads at most (its opening passage
// and what follows it: a biography states birth and death places past its first chunk).
constexpr size_t kHomeDocumentChunks = 4;

SynthOptions synth_options(const AskOptions& opt, Store& store, Searcher& searcher) {
  SynthOptions so = opt.synth;
  if (!so.sentences && (so.answerable || so.sentence_feature || so.selector || so.sentence_rows))
    so.sentences = searcher.sentence_vectors();
  // The direct answer's second hop: an entity's own passage, by its name in the lexical index
  // (the hit whose document or first heading is that name), and the rest of its document.
  if (!so.find_home)
    so.find_home = [&store, &searcher](const std::string& name) -> std::vector<SearchHit> {
      SearchOptions o;
      o.mode = SearchMode::Bm25;
      o.k = 5;
      o.decompose = false;
      o.neighbours = false;
      std::vector<SearchHit> hits = searcher.search(name, o);
      std::vector<const SearchHit*> ptrs;
      for (const SearchHit& h : hits) ptrs.push_back(&h);
      const size_t i = home_among(ptrs, name);
      if (i >= hits.size()) return {};
      std::vector<SearchHit> out = {hits[i]};
      for (const StoredChunk& c : store.chunks_of(hits[i].doc_id))
        if (c.chunk.id != hits[i].chunk_id && c.chunk.figure_id.empty() && out.size() < kHomeDocumentChunks)
          out.push_back(hit_from_chunk(c, 0.0));
      return out;
    };
  return so;
}

// The agents of one question.
struct Team {
  PlannerAgent planner;
  RagAgent rag;
  SynthesizerAgent synth;
  VerifierAgent verifier;
};

// One round's plan, passages and verified answer.
struct Round {
  Plan plan;
  Retrieval retrieval;
  Verified verified;
};

// The lists retrieval fuses besides the sub-queries' (the graph's with AskOptions::graph_lists,
// and the figures the question names); the graph's entities and facts go into `res`.
std::vector<RankedList> extra_lists(Store& store, Question& question, const AskOptions& opt, Trace& trace,
                                    AskResult& res) {
  std::vector<RankedList> extra;
  if (opt.graph) {
    // The graph's passages (for a question that names a specific entity with a home passage),
    // and its hop lists with AskOptions::graph_lists.
    GraphAgent graph(*opt.graph, opt.graph_retrieve, opt.graph_lists);
    extra = run_agent(graph, question, trace);
    question.entities = graph.found().entities;
    res.entities = std::move(graph.found().entities);
    res.facts = std::move(graph.found().facts);
  }
  // A question that names a figure or table ("Figure 3 of the survival paper") gets that
  // figure's chunk at the head of the context.
  if (!question.figure_keys.empty()) {
    FigureAgent figures(store);
    for (auto& l : run_agent(figures, question, trace)) extra.push_back(std::move(l));
  }
  return extra;
}

// Follow-up rounds while the verifier finds gaps and rounds remain: a plan for the gaps,
// retrieval and a new answer, kept only when it is better. Returns the rounds run and why they
// stopped; `best` is the kept round, `answer_round` its number.
std::pair<int, std::string> follow_up(Team& team, Trace& trace, const Question& question,
                                      const std::vector<RankedList>& extra,
                                      const AskOptions& opt, Round& best, int& answer_round) {
  int round = 1;
  std::string stop = best.verified.gaps.empty() ? "no gaps" : "no rounds left";
  while (!best.verified.gaps.empty() && round < opt.max_rounds) {
    trace.set_round(++round);
    Plan next = run_agent(team.planner, PlanInput{&question, &best.plan, best.verified.gaps}, trace);
    if (next.subqueries.size() == best.plan.subqueries.size()) {
      stop = "nothing new to search";
      break;
    }
    Retrieval r2 = run_agent(team.rag, RagInput{&next, &extra}, trace);
    std::set<std::string> before;
    for (const auto& c : best.retrieval.context) before.insert(c.hit.chunk_id);
    size_t fresh = 0;
    for (const auto& c : r2.context) fresh += !before.count(c.hit.chunk_id);
    if (fresh == 0) {
      stop = "the follow-up found no new passage";
      trace.log("mmkg: orchestrate: round %d found no new passage; keeping round %d's answer", round, answer_round);
      break;
    }
    Draft d2 = run_agent(team.synth, SynthInput{&question, &r2}, trace);
    Verified v2 = run_agent(team.verifier, VerifyInput{&question, &r2, &d2}, trace);
    const bool better = follow_up_is_better(best.verified, v2);
    trace.log("mmkg: orchestrate: round %d: %s", round,
              better ? "the new answer covers more of the question; it replaces the last"
                     : "no better than the last answer; keeping it");
    if (!better) {
      stop = "the follow-up answer was no better";
      break;
    }
    best = Round{std::move(next), std::move(r2), std::move(v2)};
    answer_round = round;
    stop = best.verified.gaps.empty() ? "no gaps" : "no rounds left";
  }
  return {round, stop};
}

// The kept round's answer, context and retrieval report into `res`.
void fill_result(Round& kept, int rounds, int answer_round, Trace& trace, AskResult& res) {
  res.subqueries = kept.plan.subqueries;
  res.context_chunks = kept.retrieval.context.size();
  res.context_chars = kept.retrieval.context_chars;
  res.context_tokens = kept.retrieval.context_tokens;
  res.context = kept.retrieval.context;
  res.rounds = rounds;
  res.gaps = kept.verified.gaps;
  res.answer = kept.verified.answer.text;
  res.citations = std::move(kept.verified.answer.citations);
  res.found = kept.verified.answer.found;
  res.direct = kept.verified.answer.direct;
  res.answerability = kept.verified.answer.answerability;
  res.answerability_score = kept.verified.answer.answerability_score;
  res.sentence_rows = std::move(kept.verified.answer.sentence_rows);
  res.answer_round = answer_round;
  for (const auto& st : trace.steps())  // the retrieval report of the answer's round
    if (const auto* rs = std::get_if<RetrieveStep>(&st.detail); rs && std::max(st.round, 1) == answer_round)
      res.retrieval = *rs;
  res.trace = trace.take_steps();
}

}  // namespace

namespace {

// The orchestrator: plan → graph → retrieve → synthesize → verify, then, while the verifier
// finds gaps and rounds remain, a follow-up plan for the gaps, retrieval and a new answer, kept
// only when it is better (found where the last was not, or fewer gaps).
AskResult answer(Store& store, Searcher& searcher, const std::string& asked, const AskOptions& opt) {
  Trace trace(opt.verbose);
  trace.on_step = opt.on_step;
  trace.cancel = opt.cancel;
  AskResult res;
  res.question = asked;
  if (!opt.history.empty()) {
    trace.step("rewrite", [&](StepDetail& d) {
      Rewrite rw = rewrite_follow_up(asked, opt.history, opt.chat);
      res.question = rw.question;
      d = RewriteStep{rw.asked, rw.question, rw.method, rw.previous, rw.topic, rw.fallback};
    });
  }
  // The question is read once here; every agent gets this value. Retrieval reads it with its
  // acronyms written in (Question::searched); the synthesizer and the verifier read it as asked
  // (an added acronym would make every sentence that uses it look on topic).
  Question question = analyse_question(asked, res.question, opt.expand);
  TermStats stats(store);
  trace.log("mmkg: ask: question: %s", question.standalone.c_str());

  LlmSynthOptions lopt = opt.llm;
  if (!lopt.figure_png) lopt.figure_png = [&store](const std::string& id) { return figure_png(store, id); };
  Team team{PlannerAgent(stats, opt.chat, opt.max_phrases), RagAgent(store, searcher, opt.retrieve),
            SynthesizerAgent(stats, opt.chat, synth_options(opt, store, searcher), lopt),
            VerifierAgent(store, stats, verify_options(opt, searcher))};

  PlanInput first;
  first.question = &question;
  Round kept;
  kept.plan = run_agent(team.planner, first, trace);
  res.subqueries = kept.plan.subqueries;
  const std::vector<RankedList> extra = extra_lists(store, question, opt, trace, res);
  kept.retrieval = run_agent(team.rag, RagInput{&kept.plan, &extra}, trace);
  Draft draft = run_agent(team.synth, SynthInput{&question, &kept.retrieval}, trace);
  kept.verified = run_agent(team.verifier, VerifyInput{&question, &kept.retrieval, &draft}, trace);

  int answer_round = 1;
  const auto [rounds, stop] = follow_up(team, trace, question, extra, opt, kept, answer_round);
  trace.set_round(0);
  trace.step("orchestrate", [&](StepDetail& d) {
    d = OrchestrateStep{.rounds = rounds, .answer_round = answer_round, .max_rounds = opt.max_rounds, .stop = stop};
  });
  fill_result(kept, rounds, answer_round, trace, res);
  return res;
}

}  // namespace

// With a stop flag, every model call and every sub-query search watches it too.
AskResult ask(Store& store, Searcher& searcher, const std::string& asked, const AskOptions& opt) {
  if (!opt.cancel) return answer(store, searcher, asked, opt);
  AskOptions o = opt;
  std::optional<CancellableChat> chat;
  if (opt.chat) o.chat = &chat.emplace(*opt.chat, *opt.cancel);
  o.retrieve.cancel = opt.cancel;
  return answer(store, searcher, asked, o);
}

}  // namespace mmkg
