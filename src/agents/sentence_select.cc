#include "agents/sentence_select.h"

#include <cmath>

namespace mmkg {

const std::vector<std::string>& select_feature_names() {
  static const std::vector<std::string> names = {"hand",   "coverage", "cov_rel", "part_cov", "shape",
                                                 "kind_match", "definition", "rank", "first", "anaphor",
                                                 "long",   "log_len",  "sent_cos", "cos_rel"};
  return names;
}

std::vector<double> select_features(const SelectSignals& s, double best_cov, double best_cos) {
  std::vector<double> x(kSelectFeatures, 0.0);
  auto at = [&](SelectFeature f) -> double& { return x[static_cast<size_t>(f)]; };
  at(SelectFeature::Hand) = s.hand;
  at(SelectFeature::Coverage) = s.coverage;
  at(SelectFeature::CovRel) = best_cov > 0 ? s.coverage / best_cov : 0.0;
  at(SelectFeature::PartCov) = s.part_cov;
  at(SelectFeature::Shape) = s.shape;
  at(SelectFeature::KindMatch) = s.kind_match ? 1.0 : 0.0;
  at(SelectFeature::Definition) = s.definition;
  at(SelectFeature::Rank) = 1.0 / (1.0 + static_cast<double>(s.cand));
  at(SelectFeature::First) = s.first ? 1.0 : 0.0;
  at(SelectFeature::Anaphor) = s.anaphor ? 1.0 : 0.0;
  at(SelectFeature::Long) = s.long_sentence ? 1.0 : 0.0;
  at(SelectFeature::LogLen) = std::log1p(static_cast<double>(s.chars)) / 8.0;
  at(SelectFeature::SentCos) = s.cos;
  at(SelectFeature::CosRel) = s.cos - best_cos;
  return x;
}

std::shared_ptr<const FittedModel> load_selector(const std::string& path) {
  return FittedModel::load(path, "selector", select_feature_names());
}

}  // namespace mmkg
