#include "core/install_paths.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/temp_dir.h"

namespace fs = std::filesystem;

namespace mmkg {

TEST(InstallPaths, ExecutableDirHoldsTheTestBinary) {
  const std::string dir = executable_dir();
  ASSERT_FALSE(dir.empty());
  EXPECT_TRUE(fs::is_directory(dir));
}

TEST(InstallPaths, FindsShareMmkgBesideBinOnlyWhenItExists) {
  testing::TempDir prefix;
  fs::create_directories(prefix.file("bin"));
  const std::string index = prefix.write("share/mmkg/ui/index.html", "<html></html>");
  const std::string bin = prefix.file("bin");
  EXPECT_EQ(installed_data_path("ui", bin), prefix.file("share/mmkg/ui"));
  EXPECT_EQ(installed_data_path("ui/index.html", bin), index);
  EXPECT_EQ(installed_data_path("models/all-MiniLM-L6-v2", bin), "");
  EXPECT_EQ(installed_data_path("ui", ""), "");
}

}  // namespace mmkg
