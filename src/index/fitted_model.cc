#include "index/fitted_model.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace mmkg {
namespace {

constexpr int kFormatVersion = 1;

LinearModel parse_linear(const nlohmann::json& j, const std::vector<size_t>& slot, size_t n, const std::string& where) {
  LinearModel m;
  if (!j.is_object() || !j.contains("weights") || !j["weights"].is_array() || !j.contains("bias"))
    throw UsageError(where + ": a model needs \"bias\" and \"weights\"");
  const auto& w = j["weights"];
  if (w.size() != slot.size())
    throw UsageError(where + ": " + std::to_string(w.size()) + " weights for " + std::to_string(slot.size()) +
                     " features");
  m.bias = j["bias"].get<double>();
  m.threshold = j.value("threshold", 0.0);
  m.weights.assign(n, 0.0);
  for (size_t i = 0; i < slot.size(); ++i) m.weights[slot[i]] = w[i].get<double>();
  return m;
}

}  // namespace

std::shared_ptr<const FittedModel> FittedModel::parse(const std::string& text, const std::string& source,
                                                      const std::string& kind, const std::vector<std::string>& names) {
  const std::string retrain = "; retrain it with scripts/train_" + kind + ".py";
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw UsageError(source + ": not a " + kind + " model (" + e.what() + ")" + retrain);
  }
  try {
    if (!j.is_object() || j.value("format", "") != "mmkg-" + kind)
      throw UsageError(source + ": not a " + kind + " model (\"format\" is not \"mmkg-" + kind + "\")");
    const int version = j.value("version", 0);
    if (version != kFormatVersion)
      throw UsageError(source + ": " + kind + " model version " + std::to_string(version) + ", this mmkg reads version " +
                       std::to_string(kFormatVersion) + retrain);
    std::vector<size_t> slot;
    for (const auto& f : j.at("features")) {
      auto it = std::find(names.begin(), names.end(), f.get<std::string>());
      if (it == names.end())
        throw UsageError(source + ": unknown feature '" + f.get<std::string>() + "'; this mmkg's " + kind +
                         " has " + std::to_string(names.size()) + " (docs/EVAL.md lists them)");
      slot.push_back(static_cast<size_t>(it - names.begin()));
    }
    auto m = std::make_shared<FittedModel>();
    m->version_ = version;
    m->source_ = source;
    m->full_ = parse_linear(j.at("model"), slot, names.size(), source + ": model");
    if (j.contains("folds"))
      for (const auto& f : j["folds"]) {
        const std::string where = source + ": fold " + std::to_string(m->folds_.size() + 1);
        m->folds_.push_back(parse_linear(f, slot, names.size(), where));
        for (const auto& q : f.value("questions", nlohmann::json::array()))
          m->fold_of_[q.get<std::string>()] = m->folds_.size() - 1;
      }
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(source + ": malformed " + kind + " model (" + e.what() + ")" + retrain);
  }
}

std::shared_ptr<const FittedModel> FittedModel::load(const std::string& path, const std::string& kind,
                                                     const std::vector<std::string>& names) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read the " + kind + " model " + path + "; check the path");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path, kind, names);
}

const LinearModel* FittedModel::fold_for(const std::string& id) const {
  auto it = fold_of_.find(id);
  return it == fold_of_.end() ? nullptr : &folds_[it->second];
}

}  // namespace mmkg
