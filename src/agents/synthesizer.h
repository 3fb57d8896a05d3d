// Extractive synthesizer: the few sentences that best answer the question, each cited.
#pragma once

#include <string>
#include <vector>

#include "agents/direct_answer.h"
#include "agents/messages.h"
#include "agents/question.h"
#include "index/fitted_model.h"

namespace mmkg {

class TermStats;
class SentenceVectors;


struct SynthOptions {
  size_t max_sentences = 3;
  size_t max_answer_chars = 800;
  /// Least share of the question's information (IDF-weighted content words) that the best
  /// passage must contain for the question to count as answered (the rule, agents/answerable.h).
  double min_coverage = 0.3;
  /// A fitted answerability model (agents/answerable.h, --answerable FILE) that decides instead
  /// of the rule; nullptr: the rule. Not owned.
  const LinearModel* answerable = nullptr;
  /// Sentence vectors of the bi-encoder (the Searcher's) for the answerability model's sentence
  /// feature; nullptr: no embedder (the feature is 0). Not owned.
  SentenceVectors* sentences = nullptr;
  /// ask() passes the Searcher's sentence vectors when a fitted model decides or this is set
  /// (eval --features records the feature); otherwise the feature is 0, as the rule ignores it.
  bool sentence_feature = false;
  /// A fitted answer-sentence selector (agents/sentence_select.h, --selector FILE) that picks
  /// each part's sentence instead of the hand-set score; nullptr: the hand-set score. Not owned.
  const LinearModel* selector = nullptr;
  /// Record every candidate sentence's selection features in Answer::sentence_rows (eval
  /// --features); ask() then passes the sentence vectors too (the cosine features).
  bool sentence_rows = false;
  /// Sentences beyond one per part come only from passages already cited, and only when they
  /// cover at least this share of what the best sentence covers.
  double extra_share = 0.6;
  /// What a question term counts for in a sentence that does not hold it but whose passage (the
  /// other sentences the context shows of its chunk) does: the passage names the subject once,
  /// its sentences say things about it ("the Nelson estimate ... it is also known as ...").
  double passage_weight = 0.5;
  /// What a sentence that states no reason (text/question_shape.h gives_reason: "because", "so
  /// that", "the rationale is that") counts for a part that asks why, and one that names no
  /// figure or table ("Figure 2.3") for a part that asks which figure: half, as a sentence
  /// without a number counts for a part that asks how many.
  double unshaped_share = 0.5;
  /// Least share (IDF-weighted) of a part's own words (those no other part has) that a sentence
  /// must hold to cite a passage not yet cited for that part.
  double own_part_share = 0.5;
  /// The direct answer's second hop: the passage on an entity the context lacks
  /// (agents/direct_answer.h). Empty: the walk reads the context alone.
  FindHome find_home = {};
  /// Read a direct answer (agents/direct_answer.h) and open the answer with it when found.
  bool direct = true;
};


/// A citation numbered `n` for a retrieved chunk (quote empty).
Citation make_citation(const SearchHit& h, int n);

/// The answer given when the documents do not contain one and nothing more specific can be said;
/// otherwise the answer is "The documents do not say: " + why ("no passage mentions Stata",
/// "no passage covers enough of the question", "no passage gives the number asked for in ...").
extern const char* const kNotFound;

/// The extractive answer to `question` from the context of `retrieval`.
Answer synthesize_extractive(const Question& question, const Retrieval& retrieval, TermStats& stats,
                             const SynthOptions& opt = {});

}  // namespace mmkg
