// The context budget: the one place that decides what the synthesizers (and so the model) see.
// Ranked candidates are packed best first while their passages fit max_tokens; a relevant chunk
// that does not fit whole is trimmed to its best sentences (those covering the query terms, in
// document order, "…" where text was left out), so it still fits. Passages keep pointing at
// their chunk: citations resolve to it and quotes are verbatim sentences of it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "text/query_terms.h"
#include "retrieve/retrieval.h"

namespace mmkg {

class TokenCounter;

struct BudgetOptions {
  size_t max_chunks = 8;
  size_t max_tokens = 1500;               ///< 0: no token limit
  const TokenCounter* counter = nullptr;  ///< nullptr: default_token_counter()
};

/// Passage `n` as a model sees it: "[n] (doc)\n" + the candidate's text (whitespace collapsed) +
/// "\n\n". The budget counts exactly this; the LLM synthesizer sends exactly this.
std::string format_passage(size_t n, const Candidate& c);

/// Packs `ranked` (best first) into r.context within opt (sets every kept candidate's text,
/// shown and tokens) and fills r's size fields. The sum of the kept passages' counts never
/// exceeds opt.max_tokens. A candidate that does not fit whole is trimmed to the sentences that
/// cover `terms` best; one with no such sentence, or whose best sentence does not fit, is left
/// out and the next one tried. The first passage is never left out for size: when not even its
/// best sentence fits, that sentence is cut at a word boundary.
void pack_context(std::vector<Candidate> ranked, const std::vector<QueryTerm>& terms, const BudgetOptions& opt,
                  Retrieval& r);

/// The sentences of the chunk that the context shows, as byte ranges of c.hit.text in document
/// order (all its sentences when it is whole). Quotes taken from them are verbatim chunk text.
std::vector<std::pair<size_t, size_t>> shown_sentences(const Candidate& c);

/// The context a language model gets when the user did not size it: the largest that leaves a
/// model with a `window`-token context about 1,100 tokens for instructions, question and answer,
/// between 1,500 and 6,000 tokens, with 16 passages per 3,000 tokens (at least 8); docs/EVAL.md,
/// "Context size for a language model", has the evidence recall of each size. `window` 0
/// (not known: a remote model) is taken as 8,192, what current chat models have at least.
struct ContextSize {
  size_t tokens = 1500;
  size_t chunks = 8;
};
ContextSize context_for_model(int window);

}  // namespace mmkg
