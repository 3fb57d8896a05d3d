// LLM synthesizer: the model writes the answer from numbered passages, citing [n] after each
// sentence. The draft then goes to the verifier (verifier.h), which keeps only what the cited
// passages support. The found / not-found decision stays the extractive one (coverage of the
// question's information), so the model is not asked when the documents do not hold an answer.
#pragma once

#include <functional>
#include <string>

#include "agents/messages.h"
#include "agents/synthesizer.h"
#include "llm/chat_model.h"

namespace mmkg {

/// The model sees the whole budgeted context (Retrieval::context, each passage as
/// format_passage() renders it); RetrieveOptions::max_context_tokens sizes it.
struct LlmSynthOptions {
  int max_tokens = 300;
  /// The PNG of a stored figure by id (empty when it has none). With a vision model
  /// (ChatModel::vision()), the images of the figures among the passages go with them, so that
  /// the model reads the plot itself and not only its caption. Unset: text only.
  std::function<std::string(const std::string& figure_id)> figure_png;
  size_t max_images = 4;  ///< at most this many images per question (each costs the model ~1k tokens)
};

/// The model's draft (Draft::extractive always set). A model failure throws (mmkg::Error); an
/// empty or "NOT FOUND" answer gives a draft without sentences and a `fallback` reason.
Draft draft_llm(ChatModel& model, const Question& question, const Retrieval& retrieval, TermStats& stats,
                const SynthOptions& opt, const LlmSynthOptions& lopt);

/// The extractive draft (no model).
Draft draft_extractive(const Question& question, const Retrieval& retrieval, TermStats& stats,
                       const SynthOptions& opt);

}  // namespace mmkg
