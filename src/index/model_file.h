// A fitted model's file (the answerability model, the sentence selector, the ranker) held for the life of a
// Session: read on first use, and read again only when the file changes (its size or its
// modification time), so an ask does not parse the file on every call and a running server still
// picks up a refitted model.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "index/fitted_model.h"

namespace mmkg {

class ModelFile {
 public:
  using Loader = std::function<std::shared_ptr<const FittedModel>(const std::string& path)>;
  /// `path` empty: no model (get() gives nullptr).
  ModelFile(std::string path, Loader load) : path_(std::move(path)), load_(std::move(load)) {}

  /// The model as the file now holds it; nullptr without a path. Throws what the loader throws
  /// (a UsageError naming the file, also when it is gone). Thread-safe.
  std::shared_ptr<const FittedModel> get();
  /// How many times the file has been read.
  int loads() const;

 private:
  mutable std::mutex mu_;
  std::string path_;
  Loader load_;
  std::shared_ptr<const FittedModel> model_;
  std::uintmax_t size_ = 0;
  std::filesystem::file_time_type mtime_{};
  int loads_ = 0;
};

}  // namespace mmkg
