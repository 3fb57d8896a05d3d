// mmkg search, ask, eval.
#include <algorithm>
#include <cstdio>

#include "app/cite.h"
#include "app/json.h"
#include "cli/commands.h"
#include "core/error.h"

namespace mmkg::cli {

namespace {

// The query team's options, shared by ask and eval (eval uses them for --answers).
struct TeamFlags {
  AskOptions ask;
  std::string rerank = RerankSpec().text();  // the default (retrieve/rerank.h)
  std::string judge = "borderline";
  CLI::Option* tokens = nullptr;  ///< --context-tokens, --context-chunks: given, the context is not fitted
  CLI::Option* chunks = nullptr;  ///< to the language model (AskRequest::fit_context)
  bool sized() const { return tokens->count() > 0 || chunks->count() > 0; }
};

void add_team_options(CLI::App* cmd, TeamFlags& f) {
  RetrieveOptions& r = f.ask.retrieve;
  f.tokens = cmd->add_option("--context-tokens", r.max_context_tokens,
                  "token budget of the context the answer is written from (0: no limit but --context-chunks; with --llm "
                  "and neither given, fitted to the model: up to 6000 tokens and 32 passages)")
      ->capture_default_str();
  f.chunks = cmd->add_option("--context-chunks", r.max_chunks,
                  "most passages in the context (each sub-query then retrieves at least half as many)")
      ->capture_default_str()->check(CLI::Range(1, 64));
  cmd->add_option("--rerank", f.rerank,
                  "reranker of the retrieved chunks: none, lexical, embed (sentence vectors), llm (needs --llm), "
                  "or several joined by '+'")
      ->capture_default_str();
  cmd->add_option("--rerank-top", r.rerank_top_n, "candidates the reranker sees")->capture_default_str()
      ->check(CLI::Range(2, 200));
  cmd->add_option("--rerank-weight", r.rerank_weight,
                  "share of the reranker's order in the blend with the fused order (1: its order alone)")
      ->capture_default_str()->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--max-rounds", f.ask.max_rounds,
                  "orchestrator rounds: follow-up rounds search for what the verifier found missing")
      ->capture_default_str()->check(CLI::Range(1, 5));
  cmd->add_option("--judge", f.judge,
                  "LLM judge in the verifier (with a model): none, borderline (sentences the word-overlap "
                  "check cannot settle) or all (may veto supported sentences)")
      ->capture_default_str()->check(CLI::IsMember({"none", "borderline", "all"}));
  cmd->add_option("--graph-lists", f.ask.graph_lists,
                  "fuse the knowledge graph's chunk lists (PPR, relation evidence, bridge hops) into retrieval; off: "
                  "the graph only links entities and gives facts")
      ->capture_default_str();
  cmd->add_option("--direct", f.ask.synth.direct,
                  "open a factoid answer (a date, place, name, one of two options, yes/no) with the direct answer read "
                  "off the passages, walking the question's relations; off: the cited sentences alone")
      ->capture_default_str();
  cmd->add_option("--parallel", r.parallel, "threads for the sub-query searches (0: one per core; 1: one after another)")
      ->capture_default_str()->check(CLI::Range(0, 64));
}

// The parsed team flags as AskOptions (UsageError for a budget too small to hold a passage).
AskOptions team_options(const TeamFlags& f) {
  AskOptions o = f.ask;
  const size_t t = o.retrieve.max_context_tokens;
  if (t > 0 && t < 50)
    throw UsageError("--context-tokens " + std::to_string(t) +
                     " leaves no room for a passage; give at least 50 (1500 is the default), or 0 for no limit");
  o.judge = parse_judge_scope(f.judge);
  // A larger context needs deeper lists: each sub-query retrieves at least half of it.
  o.retrieve.k_per_query = std::max(o.retrieve.k_per_query, static_cast<int>((o.retrieve.max_chunks + 1) / 2));
  return o;
}

void print_answer(const AskResult& r) { std::printf("%s\n", answer_with_sources(r.answer, r.citations).c_str()); }

void print_eval(const EvalReport& r, bool answers) {
  std::printf("%zu questions\n", r.questions);
  for (const auto& [name, m] : r.modes) {
    if (!m.unavailable.empty()) {
      std::printf("%-13s unavailable: %s\n", name.c_str(), m.unavailable.c_str());
      continue;
    }
    std::printf("%-13s recall@2 %.3f  recall@5 %.3f  recall@10 %.3f  MRR %.3f  (%d questions with evidence)\n",
                name.c_str(), m.all.recall_at_2, m.all.recall_at_5, m.all.recall_at_10, m.all.mrr, m.all.questions);
    for (const auto* by : {&m.by_type, &m.by_subtype})
      for (const auto& [type, t] : *by)
        std::printf("              %-17s n=%-3d recall@2 %.3f  recall@5 %.3f  recall@10 %.3f  MRR %.3f\n", type.c_str(),
                    t.questions, t.recall_at_2, t.recall_at_5, t.recall_at_10, t.mrr);
  }
  if (!answers || !r.context) return;
  const ContextScore& cx = *r.context;
  std::printf("context per question: %.0f tokens, %.0f chars, %.1f chunks (%.1f trimmed); without the budget "
              "%.0f tokens, %.0f chars; evidence in context %.3f (MRR %.3f)\n",
              cx.tokens, cx.chars, cx.chunks, cx.trimmed_chunks, cx.unbudgeted_tokens, cx.unbudgeted_chars,
              cx.evidence_recall, cx.evidence_mrr);
  std::printf("answer accuracy %.3f", r.answer_accuracy.value_or(0));
  if (r.citation_precision) std::printf("  citation precision %.3f", *r.citation_precision);
  std::printf("%s%s\n", r.llm.empty() ? "  (extractive" : "  (model ", r.llm.empty() ? ")" : (r.llm + ")").c_str());
  if (r.direct_em)
    std::printf("direct answers: exact match %.3f  F1 %.3f  (a direct line for %.3f of the questions with a gold answer)\n",
                *r.direct_em, r.direct_f1.value_or(0), r.direct_answered.value_or(0));
}

}  // namespace

Command add_search(CLI::App& app, Common& c) {
  auto* cmd = app.add_subcommand("search", "rank chunks for a query");
  add_common(cmd, c);
  struct Flags {
    SearchRequest req;
    std::string mode = "hybrid";
  };
  auto f = std::make_shared<Flags>();
  cmd->add_option("query", f->req.query, "the query")->required();
  cmd->add_option("-k", f->req.k, "number of results")->capture_default_str()->check(CLI::Range(1, 1000));
  cmd->add_option("--mode", f->mode, "bm25, dense (embeddings) or hybrid (fusion of both)")->capture_default_str()
      ->check(CLI::IsMember({"bm25", "dense", "hybrid"}));
  return {cmd, [&c, f]() {
            SearchRequest req = f->req;
            req.mode = parse_search_mode(f->mode);
            SearchReport r = open_session(c)->search(req);
            if (c.json) {
              std::printf("%s\n", search_json(r).dump().c_str());
              return 0;
            }
            if (r.hits.empty()) std::printf("no results for \"%s\"\n", r.query.c_str());
            for (size_t i = 0; i < r.hits.size(); ++i) {
              const auto& h = r.hits[i];
              std::printf("%zu. %s  (score %.2f)%s%s\n   %s\n", i + 1, location_text(location_of(h)).c_str(),
                          h.score, h.heading_path.empty() ? "" : "  ", h.heading_path.c_str(), h.snippet.c_str());
            }
            return 0;
          }};
}

Command add_ask(CLI::App& app, Common& c) {
  auto* cmd = app.add_subcommand("ask", "answer a question with citations");
  add_common(cmd, c);
  struct Flags {
    std::string question;
    std::string mode = "hybrid";
    TeamFlags team;
  };
  auto f = std::make_shared<Flags>();
  cmd->add_option("question", f->question, "the question")->required();
  cmd->add_option("-k", f->team.ask.retrieve.k_per_query, "chunks retrieved per sub-query")->capture_default_str()
      ->check(CLI::Range(1, 100));
  cmd->add_option("--mode", f->mode, "retrieval per sub-query: bm25, dense or hybrid")->capture_default_str()
      ->check(CLI::IsMember({"bm25", "dense", "hybrid"}));
  add_team_options(cmd, f->team);
  cmd->add_option("--llm", c.llm,
                  "language model: none (extractive), local (starts llama-cpp-python with SmolLM2), or "
                  "an OpenAI-compatible URL http(s)://HOST/v1#model=NAME (env MMKG_LLM_BASE_URL, GROQ_API_KEY, ...)")
      ->capture_default_str();
  return {cmd, [&c, f]() {
            AskRequest req;
            req.question = f->question;
            req.options = team_options(f->team);
            req.fit_context = !f->team.sized();
            req.options.retrieve.mode = parse_search_mode(f->mode);
            req.options.verbose = c.verbose;
            req.rerank = RerankSpec::parse(f->team.rerank);
            AskResult r = open_session(c)->ask(req);
            if (c.json)
              std::printf("%s\n", ask_json(req.question, r).dump().c_str());
            else
              print_answer(r);
            return 0;
          }};
}

Command add_eval(CLI::App& app, Common& c) {
  auto* cmd = app.add_subcommand("eval", "retrieval recall@5/@10 and MRR (and answer accuracy) on a QA file");
  add_common(cmd, c);
  struct Flags {
    std::string qa;
    bool answers = false;
    std::string mode = "all";
    TeamFlags team;
    std::string features;
    bool cv = false;
  };
  auto f = std::make_shared<Flags>();
  cmd->add_option("qa", f->qa, "QA file (JSON lines)")->required()->check(CLI::ExistingFile);
  cmd->add_flag("--answers", f->answers, "also answer every question and score the answers");
  cmd->add_option("--llm", c.llm, "language model for --answers: none, local or a URL (as for ask)");
  cmd->add_option("--mode", f->mode, "search mode to score: bm25, dense, hybrid or all")->capture_default_str()
      ->check(CLI::IsMember({"bm25", "dense", "hybrid", "all"}));
  add_team_options(cmd, f->team);
  cmd->add_option("--features", f->features,
                  "write each question's hybrid candidates with their fitted-ranker features and evidence "
                  "labels to FILE (JSON lines; the input of scripts/train_ranker.py; needs --fusion fitted)");
  cmd->add_flag("--cv", f->cv,
                "score each question with the ranker fold model fitted without its documents (the "
                "cross-validated figure; the model file's folds)");
  return {cmd, [&c, f]() {
            EvalRequest req;
            req.features = f->features;
            req.cv = f->cv;
            req.items = load_qa(f->qa);
            req.answers = f->answers;
            if (f->mode != "all") req.modes = {parse_search_mode(f->mode)};
            req.ask = team_options(f->team);
            req.fit_context = !f->team.sized();
            req.rerank = RerankSpec::parse(f->team.rerank);
            EvalReport r = open_session(c)->evaluate(req);
            if (c.json)
              std::printf("%s\n", eval_report_json(r).dump().c_str());
            else
              print_eval(r, req.answers);
            return 0;
          }};
}

}  // namespace mmkg::cli
