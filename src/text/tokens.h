// Token counting for the context budget: how many tokens a language model's tokenizer makes of a
// text. One small interface; backends: the calibrated estimate (token_estimate.cc, the default)
// and a fixed bytes-per-token ratio (tokens.cc). Measured against real tokenizers in docs/EVAL.md
// ("Token counter"); bench/token_counts.py repeats the measurement.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace mmkg {

class TokenCounter {
 public:
  virtual ~TokenCounter() = default;
  /// "estimate", "chars:4", ...: the spec make_token_counter() accepts.
  virtual std::string name() const = 0;
  /// Tokens `text` (UTF-8) takes for a model. Estimates err on the high side: a budget counted
  /// with them is not exceeded by the model's own tokenizer. Thread-safe; 0 for "".
  virtual size_t count(std::string_view text) const = 0;
};

/// Builds a counter from a short spec:
///   "estimate"  (default) word/digit/punctuation pieces with weights fitted on SmolLM2's, cl100k's
///               and o200k's tokenizers, scaled to over-count (token_estimate.cc)
///   "chars:N"   one token per N bytes, rounded up (N > 0, e.g. "chars:4", the usual rule of thumb)
/// Throws UsageError for anything else.
std::unique_ptr<TokenCounter> make_token_counter(const std::string& spec);

/// The default counter ("estimate"), shared; never destroyed.
const TokenCounter& default_token_counter();

/// The estimate backend (declared here so the factory and tests can build it).
std::unique_ptr<TokenCounter> make_estimate_token_counter();

}  // namespace mmkg
