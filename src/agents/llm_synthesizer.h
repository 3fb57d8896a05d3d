// LLM synthesizer + verifier: the model writes the answer from numbered passages, citing [n]
// after each sentence; every sentence is then checked against the passage it cites (its content
// words must be there), unsupported sentences are dropped, and when nothing survives the
// extractive answer is used instead. The found / not-found decision stays the extractive one
// (coverage of the question's information), so the model never invents an answer the
// documents do not hold.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "agents/synthesizer.h"
#include "llm/chat_model.h"

namespace mmkg {

/// The model sees the whole budgeted context (Retrieval::context, each passage as
/// format_passage() renders it); RetrieveOptions::max_context_tokens sizes it.
struct LlmSynthOptions {
  int max_tokens = 300;
  /// Least share of a sentence's content words (stems) that its cited passage must contain.
  double min_support = 0.6;
  /// Embedding overlap (when `embed` is set): a sentence with at least min_lexical_with_embedding
  /// of its content words in the passage is also kept when its embedding has cosine >=
  /// min_cosine with one of the passage's sentences (a faithful paraphrase).
  std::function<std::vector<std::vector<float>>(const std::vector<std::string>&)> embed;
  double min_lexical_with_embedding = 0.3;
  double min_cosine = 0.8;
};

struct LlmSynthReport {
  bool used_model = false;    ///< a model answer (after verification) is the answer
  size_t model_sentences = 0;
  size_t kept_sentences = 0;  ///< verified
  size_t kept_by_embedding = 0;  ///< of those, verified by embedding overlap (paraphrases)
  std::string fallback;       ///< why the extractive answer was used, if it was
  Usage usage;
  double model_ms = 0;
  bool cached = false;
};

Answer synthesize_llm(ChatModel& model, const std::string& question, const Retrieval& retrieval, TermStats& stats,
                      const SynthOptions& opt, const LlmSynthOptions& lopt, LlmSynthReport& report);

}  // namespace mmkg
