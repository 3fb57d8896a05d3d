// A model file read once and again only when it changes (index/model_file.h), with the real
// parser on files in a temporary directory.
#include "index/model_file.h"

#include <fstream>

#include <gtest/gtest.h>

#include "core/error.h"
#include "index/ranker.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

void write_model(const std::string& path, double bias, const std::string& pad = "") {
  std::ofstream(path) << R"({"format": "mmkg-ranker", "version": 1, "features": ["prox"], "model": {"bias": )" << bias
                      << R"(, "weights": [1]})" << pad << "}";
}

ModelFile ranker_file(const std::string& path) {
  return ModelFile(path, [](const std::string& p) { return FittedModel::load(p, "ranker", rank_feature_names()); });
}

TEST(ModelFile, IsReadOnceAndAgainOnlyWhenTheFileChanges) {
  testing::TempDir dir;
  const std::string path = dir.str() + "/ranker.json";
  write_model(path, 1.0);
  ModelFile f = ranker_file(path);
  EXPECT_EQ(f.loads(), 0) << "nothing read before the first use";
  auto a = f.get();
  auto b = f.get();
  EXPECT_EQ(f.loads(), 1);
  EXPECT_EQ(a.get(), b.get()) << "the same model object while the file is unchanged";
  EXPECT_DOUBLE_EQ(a->full().bias, 1.0);
  write_model(path, 2.0, "  ");  // refitted: another size
  auto c = f.get();
  EXPECT_EQ(f.loads(), 2);
  EXPECT_DOUBLE_EQ(c->full().bias, 2.0);
  EXPECT_DOUBLE_EQ(a->full().bias, 1.0) << "a caller's model stays valid after a reload";
}

TEST(ModelFile, NoPathIsNoModelAndAMissingFileSaysWhich) {
  ModelFile none("", [](const std::string&) -> std::shared_ptr<const FittedModel> { throw Error("not called"); });
  EXPECT_EQ(none.get(), nullptr);
  testing::TempDir dir;
  ModelFile gone = ranker_file(dir.str() + "/missing.json");
  try {
    gone.get();
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.json"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mmkg
