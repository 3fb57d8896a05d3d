// The "the documents do not say" decision of the extractive synthesizer: does any passage of the
// context answer the question at all? Decided by a rule over the evidence's features (below), or,
// given a model file (--answerable FILE), by a logistic model over them fitted by
// scripts/train_answerable.py with document-grouped cross-validation and a cut calibrated so that
// few answerable questions are refused. The rule is the default; docs/EVAL.md ("Answerability")
// compares the two.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "agents/messages.h"
#include "index/fitted_model.h"
#include "text/query_terms.h"
#include "text/question_shape.h"

namespace mmkg {

class TermStats;

/// How well the context's sentences answer one part: the best coverage of its terms by any
/// sentence, and by a sentence of the kind it asks for (a number for "how many").
struct PartEvidence {
  double best = 0;
  double best_of_kind = 0;
};

/// The answerability model's features, in this order (answer_feature_names()).
enum class AnswerFeature : size_t {
  Coverage,     ///< the best passage's IDF share of the question's words the corpus holds
  AnswerCov,    ///< the best sentence's share of the question's words (general English discounted)
  MissingName,  ///< 1: a name the question asks about ("Stata") is in no chunk of the corpus
  NumberGap,    ///< a "how many" part: 1 - (best sentence with a number / best sentence), else 0
  PartMin,      ///< the least-covered part's best sentence coverage (every part must be answered)
  AbsentShare,  ///< share of the question's content words that no chunk of the corpus holds
  BestProx,     ///< the best passage's proximity score (text/proximity.h), 0 .. 1.25
  RareMissed,   ///< the rarest question word the best-covering passage lacks: its IDF / the corpus's highest
  RareTogether, ///< the question's two rarest words the corpus holds: the best share of them in one passage
  SentCos,      ///< the best context sentence's cosine to the question (bi-encoder; none: 0)
  Count
};
constexpr size_t kAnswerFeatures = static_cast<size_t>(AnswerFeature::Count);
const std::vector<std::string>& answer_feature_names();

/// An answerability model file ("mmkg-answerable"). Throws UsageError for a bad file.
std::shared_ptr<const FittedModel> load_answerable(const std::string& path);

struct Answerability {
  bool answerable = false;
  double coverage = 0;  ///< best passage's IDF share of the question words the corpus holds
  std::string why;      ///< when not answerable: what is missing
  std::vector<double> features;  ///< the model's inputs (AnswerFeature order)
  double score = 0;     ///< the model's logit (answerable when at least its threshold); 0 without one
};

/// What the evidence says of the question besides the passages' own terms.
struct AnswerSignals {
  double answer_cov = 0;  ///< best sentence coverage of answer_terms(question)
  double best_prox = 0;   ///< best passage proximity
  double sent_cos = 0;    ///< best sentence cosine
};

/// Judges whether the context answers `question`, with `model` (score >= model->threshold) or,
/// without one, the rule: refused when
///  - a name the question asks about (a capitalised or mixed-case term: "Stata", "FooNet-2") is
///    in no chunk of the corpus (the documents are about something else);
///  - the best passage holds less than `min_coverage` of the question's information, counted over
///    the words the corpus holds (IDF-weighted, framing verbs and adverbs discounted; a
///    paraphrase's words the corpus never uses cannot count against it);
///  - a part asks for a number, its words are in the passages, and no sentence holding a number
///    covers it nearly as well (2/3): the documents discuss the subject, not the figure;
///  - no sentence speaks to the question (signals.answer_cov < 0.6 min_coverage).
/// `why` names the reason. The features are computed either way (the model's training rows).
/// `chunk_stems[i]` are the stems passage i shows (with its document name and headings).
Answerability judge_answerable(const std::string& question, const std::vector<QuestionPart>& parts,
                               const std::vector<PartEvidence>& evidence,
                               const std::vector<std::set<std::string>>& chunk_stems, TermStats& stats,
                               const AnswerSignals& signals, const LinearModel* model, double min_coverage);

}  // namespace mmkg
