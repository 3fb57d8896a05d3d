// mmkg search, ask, eval.
#include <algorithm>
#include <cstdio>

#include "app/cite.h"
#include "app/json.h"
#include "cli/commands.h"
#include "core/error.h"

namespace mmkg::cli {

namespace {

// A request made from the command's flags: each option of the table (app/request_options.h) that
// was given, applied to a default-made request.
template <class Request>
Request from_flags(const nlohmann::json& given, Door door) {
  Request r;
  apply_options(given, r, door);
  return r;
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
  auto query = std::make_shared<std::string>();
  auto given = std::make_shared<nlohmann::json>(nlohmann::json::object());
  cmd->add_option("query", *query, "the query")->required();
  add_request_flags(cmd, door_options(search_options(), kDoorCli), kDoorCli, given);
  return {cmd, [&c, query, given]() {
            SearchRequest req = from_flags<SearchRequest>(*given, kDoorCli);
            req.query = *query;
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
  auto question = std::make_shared<std::string>();
  auto given = std::make_shared<nlohmann::json>(nlohmann::json::object());
  cmd->add_option("question", *question, "the question")->required();
  add_request_flags(cmd, door_options(ask_options(), kDoorCli), kDoorCli, given);
  cmd->add_option("--llm", c.llm,
                  "language model: none (extractive), local (starts llama-cpp-python with SmolLM2), or "
                  "an OpenAI-compatible URL http(s)://HOST/v1#model=NAME (env MMKG_LLM_BASE_URL, GROQ_API_KEY, ...)")
      ->capture_default_str();
  return {cmd, [&c, question, given]() {
            AskRequest req = from_flags<AskRequest>(*given, kDoorCli);
            req.question = *question;
            req.options.verbose = c.verbose;
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
    std::shared_ptr<nlohmann::json> given = std::make_shared<nlohmann::json>(nlohmann::json::object());
    std::string features;
    bool cv = false;
  };
  auto f = std::make_shared<Flags>();
  cmd->add_option("qa", f->qa, "QA file (JSON lines)")->required()->check(CLI::ExistingFile);
  cmd->add_flag("--answers", f->answers, "also answer every question and score the answers");
  cmd->add_option("--llm", c.llm, "language model for --answers: none, local or a URL (as for ask)");
  cmd->add_option("--mode", f->mode, "search mode to score: bm25, dense, hybrid or all")->capture_default_str()
      ->check(CLI::IsMember({"bm25", "dense", "hybrid", "all"}));
  add_request_flags(cmd, door_options(ask_options(), kDoorEval), kDoorEval, f->given);
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
            const AskRequest team = from_flags<AskRequest>(*f->given, kDoorEval);
            req.ask = team.options;
            req.fit_context = team.fit_context;
            req.rerank = team.rerank;
            EvalReport r = open_session(c)->evaluate(req);
            if (c.json)
              std::printf("%s\n", eval_report_json(r).dump().c_str());
            else
              print_eval(r, req.answers);
            return 0;
          }};
}

}  // namespace mmkg::cli
