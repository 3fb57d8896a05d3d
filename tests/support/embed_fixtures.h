// Helpers for the embedder tests only: the sentence-transformers reference fixture
// (testdata/minilm_reference.json, written by scripts/make_embedding_fixture.py) and the model.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "embed/native_embedder.h"

namespace mmkg::testing {

struct ReferenceText {
  std::string text;
  std::vector<int32_t> input_ids;
  std::vector<float> embedding;
};

/// The fixture, found next to this header (a path relative to the source tree).
inline std::vector<ReferenceText> load_minilm_reference() {
  auto path = std::filesystem::path(__FILE__).parent_path() / "testdata" / "minilm_reference.json";
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("missing fixture " + path.string());
  auto doc = nlohmann::json::parse(in);
  std::vector<ReferenceText> out;
  for (const auto& t : doc.at("texts")) {
    out.push_back({t.at("text").get<std::string>(), t.at("input_ids").get<std::vector<int32_t>>(),
                   t.at("embedding").get<std::vector<float>>()});
  }
  return out;
}

/// Every examples/corpus file (in name order) cut at word boundaries into texts of at most ~1000
/// characters, each file's last, shorter piece included.
inline std::vector<std::string> corpus_chunks() {
  auto corpus = std::filesystem::path(__FILE__).parent_path() / "../../examples/corpus";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(corpus)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<std::string> texts;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::string w, cur;
    while (in >> w) {
      if (cur.size() + w.size() + 1 > 1000 && !cur.empty()) texts.push_back(cur), cur.clear();
      cur += (cur.empty() ? "" : " ") + w;
    }
    if (!cur.empty()) texts.push_back(cur);
  }
  return texts;
}

/// The all-MiniLM-L6-v2 folder, or "" (and the reason in `why`) when it is not installed.
inline std::string minilm_dir_or_empty(std::string* why = nullptr) {
  try {
    return find_native_model_dir();
  } catch (const Error& e) {
    if (why) *why = e.what();
    return "";
  }
}

}  // namespace mmkg::testing

/// Skips the current test when the model is not installed (`make setup` installs it).
#define MMKG_REQUIRE_MINILM(dir_var)                                  \
  std::string dir_var;                                                \
  do {                                                                \
    std::string why_;                                                 \
    dir_var = mmkg::testing::minilm_dir_or_empty(&why_);              \
    if (dir_var.empty()) GTEST_SKIP() << why_;                        \
  } while (0)
