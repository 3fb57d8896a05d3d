// Every agent step runs through Trace::step: it is timed, logged (-v) and recorded as a typed
// StepRecord. `ask --json`'s "trace" is rendered from the records (trace_json.h); no module reads
// the JSON back: eval and the CLI use the typed results (AskResult).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "agents/messages.h"
#include "core/error.h"
#include "graph/resolve/resolve.h"
#include "retrieve/named_figures.h"
#include "retrieve/retrieval.h"

namespace mmkg {

/// What the planner did.
struct PlanStep {
  PlannerKind planner = PlannerKind::Rules;
  std::string fallback;                     ///< why the model's plan was not used
  std::vector<std::string> tools;           ///< the model's choice of tools (empty: all)
  std::vector<std::string> subqueries;
  std::vector<std::string> gaps;            ///< follow-up rounds: the gaps planned for
  std::vector<std::string> new_subqueries;  ///< follow-up rounds: the sub-queries added
};

/// What the graph retriever found.
struct GraphStep {
  std::vector<graph::EntityLink> entities;
  size_t facts = 0, ppr_chunks = 0, communities = 0;
  bool broad = false;
  size_t lists = 0;  ///< graph lists fused into retrieval (AskOptions::graph_lists; off: 0)
};

/// The figures and tables the question names by label (named_figures.h).
struct FigureStep {
  std::vector<std::string> labels;   ///< "Figure 3", as the question names them
  std::vector<NamedFigure> figures;  ///< the stored figures found for them
};

/// A figure or table chunk in the context.
struct ContextFigure {
  std::string figure_id, label;
  FigureKind kind = FigureKind::Figure;
  std::string doc;
  int page = 0;
  size_t passage = 0;  ///< its [n] in the context
};

/// What the RAG retriever put in the context (the figures eval averages): the retrieval's own
/// report (rerank.reranker empty: no reranker ran) and what the step adds.
struct RetrieveStep : ContextReport {
  SearchMode mode = SearchMode::Hybrid;  ///< the search mode that ran (BM25 after a fallback)
  std::string fallback;       ///< why dense retrieval was not used
  size_t subqueries = 0;
  size_t context_chunks = 0;
  size_t max_context_tokens = 0;  ///< the budget
  std::vector<std::string> documents;
  std::vector<ContextFigure> figures;  ///< figures and tables among the context's passages
};

/// What the synthesizer drafted: the draft's report (with_model: a model was configured, and the
/// report and the fields below apply) and what the step adds.
struct SynthStep : DraftReport {
  std::string synthesizer;    ///< "llm" | "extractive"
  bool found = false;
  double coverage = 0;
  bool with_model = false;
  std::string model;
  size_t model_sentences = 0;
};

/// What the verifier decided: its own report (the answer is the model's when used_model) and
/// what the step adds.
struct VerifyStep : VerifyReport {
  bool model_draft = false;   ///< the draft was the model's (the report's sentence counts apply)
  bool with_judge = false;    ///< a judge was configured (judge_model, judge_scope and the report's judge_* apply)
  std::string judge_model, judge_scope;
  size_t citations = 0, citations_resolved = 0;
  bool found = false;
  std::vector<std::string> gaps;
};

/// How a follow-up question was made standalone (agents/followup.h): only with a conversation.
struct RewriteStep {
  std::string asked, question, method, previous, topic, fallback;
};

/// How the orchestrator's loop went.
struct OrchestrateStep {
  int rounds = 1;
  int answer_round = 1;
  int max_rounds = 1;
  std::string stop{};
};

/// A step's typed detail; monostate for a step that failed before reporting.
using StepDetail = std::variant<std::monostate, RewriteStep, PlanStep, GraphStep, FigureStep, RetrieveStep, SynthStep,
                                VerifyStep, OrchestrateStep>;

/// One timed step of a run.
struct StepRecord {
  std::string step;   ///< "rewrite" (a conversation's follow-up), "plan", "graph", "figures", "retrieve", "synthesize", "verify", "orchestrate"
  double ms = 0;
  int round = 0;      ///< the orchestrator's round for follow-up rounds (2, ...); 0 = first round
  std::string error;  ///< the step failed with this (and passed the failure on)
  StepDetail detail;
};

class Trace {
 public:
  explicit Trace(bool verbose) : verbose_(verbose) {}

  /// Called with every finished step (the server streams them); may be empty.
  std::function<void(const StepRecord&)> on_step;
  /// Set (from any thread) to stop the run: the next step throws Cancelled instead of starting.
  /// nullptr: never stopped.
  const std::atomic<bool>* cancel = nullptr;

  /// Cancelled when `cancel` is set, naming the step that would have run.
  void check_cancel(const std::string& step) const {
    if (cancel && cancel->load(std::memory_order_relaxed))
      throw Cancelled("stopped by the caller before the " + step + " step");
  }

  /// Runs `fn(detail)` as step `name`; the step fills `detail` with its typed report. The
  /// step's wall time is recorded, and an exception is recorded before it is passed on.
  template <typename Fn>
  auto step(const std::string& name, Fn&& fn) {
    check_cancel(name);
    StepRecord rec;
    rec.step = name;
    rec.round = round_;
    auto t0 = std::chrono::steady_clock::now();
    auto finish = [&]() {
      rec.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (verbose_) std::fprintf(stderr, "mmkg: %s: done in %.1f ms\n", name.c_str(), rec.ms);
      steps_.push_back(std::move(rec));
      if (on_step) on_step(steps_.back());
    };
    try {
      if constexpr (std::is_void_v<decltype(fn(rec.detail))>) {
        fn(rec.detail);
        finish();
      } else {
        auto r = fn(rec.detail);
        finish();
        return r;
      }
    } catch (const std::exception& e) {  // recorded, then passed on
      rec.error = e.what();
      finish();
      throw;
    }
  }

  /// The orchestrator's round (1, 2, ...): recorded in every later step; 0 = not recorded.
  void set_round(int round) { round_ = round; }

  /// A human log line on stderr (only with -v), like the seed system's run log.
  template <typename... Args>
  void log(const char* fmt, Args&&... args) const {
    if (!verbose_) return;
    if constexpr (sizeof...(Args) == 0) {
      std::fputs(fmt, stderr);
    } else {
      std::fprintf(stderr, fmt, std::forward<Args>(args)...);
    }
    std::fputc('\n', stderr);
  }
  /// The log as a function (for the layers below that log through a LogFn).
  LogFn log_fn() const {
    if (!verbose_) return {};
    return [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  }

  bool verbose() const { return verbose_; }
  const std::vector<StepRecord>& steps() const { return steps_; }
  std::vector<StepRecord> take_steps() { return std::move(steps_); }

 private:
  bool verbose_;
  int round_ = 0;
  std::vector<StepRecord> steps_;
};

}  // namespace mmkg
