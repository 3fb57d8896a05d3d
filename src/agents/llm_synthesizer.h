// LLM synthesizer + verifier: the model writes the answer from numbered passages, citing [n]
// after each sentence; every sentence is then checked against the passage it cites (its content
// words must be there), unsupported sentences are dropped, and when nothing survives the
// extractive answer is used instead. The found / not-found decision stays the extractive one
// (coverage of the question's information), so the model never invents an answer the
// documents do not hold.
#pragma once

#include <string>

#include "agents/synthesizer.h"
#include "llm/chat_model.h"

namespace mmkg {

struct LlmSynthOptions {
  size_t max_passages = 5;
  size_t max_passage_chars = 1200;
  int max_tokens = 300;
  /// Least share of a sentence's content words (stems) that its cited passage must contain.
  double min_support = 0.6;
};

struct LlmSynthReport {
  bool used_model = false;    ///< a model answer (after verification) is the answer
  size_t model_sentences = 0;
  size_t kept_sentences = 0;  ///< verified
  std::string fallback;       ///< why the extractive answer was used, if it was
  Usage usage;
  double model_ms = 0;
  bool cached = false;
};

Answer synthesize_llm(ChatModel& model, const std::string& question, const Retrieval& retrieval, TermStats& stats,
                      const SynthOptions& opt, const LlmSynthOptions& lopt, LlmSynthReport& report);

}  // namespace mmkg
