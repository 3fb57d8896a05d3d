// Answer-sentence selection of the extractive synthesizer, fitted: which sentence of the
// context answers each part of the question. The synthesizer's hand-set score (coverage of the
// part's and the question's words, the shape the part asks for, a definition's form, a mild
// preference for the first passages) is one feature among those below; a model file
// (--selector FILE, written by scripts/train_selector.py with document-grouped cross-validation)
// weighs them instead. Without one the hand-set score decides (docs/EVAL.md, "Answer-sentence
// selection", gives the cross-validated comparison).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "index/fitted_model.h"

namespace mmkg {

/// The selection features of one sentence for one part, in this order (select_feature_names()).
enum class SelectFeature : size_t {
  Hand,        ///< the hand-set score (synthesizer.cc choose_sentences, step 2)
  Coverage,    ///< IDF share of the question's words in the sentence (with its passage's context)
  CovRel,      ///< Coverage over the best sentence's
  PartCov,     ///< the same share of the part's own words
  Shape,       ///< PartCov weighted by the shape the part asks for (a number, a name, a reason)
  KindMatch,   ///< the part asks for a number or a name and the sentence holds a new one
  Definition,  ///< how well it defines what the part asks to define (0 .. 1; none asked: 0)
  Rank,        ///< 1 / (1 + its passage's place in the context)
  First,       ///< the first sentence its passage shows
  Anaphor,     ///< opens with an anaphor ("This ...", "It ..."): speaks of the sentence before
  Long,        ///< more than 40 distinct words
  LogLen,      ///< log(1 + characters) / 8
  SentCos,     ///< its cosine to the question (bi-encoder; none: 0)
  CosRel,      ///< SentCos minus the best sentence's
  Count
};
constexpr size_t kSelectFeatures = static_cast<size_t>(SelectFeature::Count);

const std::vector<std::string>& select_feature_names();

/// What the features are made of, for one sentence and one part (the synthesizer fills it).
struct SelectSignals {
  double hand = 0, coverage = 0, part_cov = 0, shape = 0, definition = 0, cos = 0;
  bool kind_match = false, first = false, anaphor = false, long_sentence = false;
  size_t cand = 0, chars = 0;
};

/// The feature row (pure; `best_cov`, `best_cos`: the context's best sentence's coverage and cosine).
std::vector<double> select_features(const SelectSignals& s, double best_cov, double best_cos);

/// The selector's model file ("mmkg-selector", fitted_model.h). Throws UsageError for a bad file.
std::shared_ptr<const FittedModel> load_selector(const std::string& path);

}  // namespace mmkg
