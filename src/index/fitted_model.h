// Models fitted by the training scripts (scripts/train_ranker.py, scripts/train_answerable.py)
// and read here: linear models over named features, each file holding the full model (fitted on
// every dev question) and one model per document-grouped cross-validation fold with the question
// ids it held out, so that `mmkg eval --cv` scores each question with a model fitted without its
// documents. Files: models/ranker.json (Fusion::Fitted, index/ranker.h) and models/answerable.json
// (agents/answerable.h), both built into the binary; versioned ("version").
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mmkg {

/// score = bias + Σ weight × feature (a logit); `threshold`: the decision's cut on the score
/// (answerability: below it, refuse), 0 when the model only ranks.
struct LinearModel {
  double bias = 0;
  std::vector<double> weights;
  double threshold = 0;
  /// `x` has as many features as the kind's names (extra weights count nothing).
  template <typename Row>
  double score(const Row& x) const {
    double s = bias;
    for (size_t i = 0; i < weights.size() && i < x.size(); ++i) s += weights[i] * x[i];
    return s;
  }
};

class FittedModel {
 public:
  /// Parses a model file's text of `kind` ("ranker", "answerable": its "format" is "mmkg-KIND")
  /// whose features are among `names` (the weights are placed in `names` order). Throws
  /// UsageError saying what is wrong and how to fix it (`source` names the file).
  static std::shared_ptr<const FittedModel> parse(const std::string& text, const std::string& source,
                                                  const std::string& kind, const std::vector<std::string>& names);
  /// Reads a model file; throws UsageError when it cannot.
  static std::shared_ptr<const FittedModel> load(const std::string& path, const std::string& kind,
                                                 const std::vector<std::string>& names);

  const LinearModel& full() const { return full_; }
  /// The model of the fold that held out question `id`; nullptr when no fold held it out.
  const LinearModel* fold_for(const std::string& id) const;
  size_t folds() const { return folds_.size(); }
  const std::string& source() const { return source_; }
  int version() const { return version_; }

 private:
  int version_ = 0;
  std::string source_;
  LinearModel full_;
  std::vector<LinearModel> folds_;
  std::map<std::string, size_t> fold_of_;  ///< question id -> index into folds_
};

}  // namespace mmkg
