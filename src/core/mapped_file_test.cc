// MappedFile: a file's bytes in place, and each way of failing told apart (the callers word their
// own errors from status()).
#include "core/mapped_file.h"

#include <gtest/gtest.h>

#include <string>

#include "support/temp_dir.h"

namespace mmkg {
namespace {

TEST(MappedFile, GivesTheBytesInPlace) {
  testing::TempDir dir;
  std::string bytes(100000, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7 + 3);
  const std::string p = dir.write("a.bin", bytes);
  for (bool sequential : {false, true}) {
    const MappedFile f(p, sequential);
    ASSERT_EQ(f.status(), MappedFile::Status::Ok);
    EXPECT_TRUE(f.ok());
    EXPECT_EQ(f.size(), bytes.size());
    EXPECT_EQ(f.bytes(), bytes);
    EXPECT_EQ(f.data(), f.bytes().data());
  }
}

TEST(MappedFile, AnEmptyFileIsOkWithNoBytes) {
  testing::TempDir dir;
  const MappedFile f(dir.write("empty", ""));
  EXPECT_EQ(f.status(), MappedFile::Status::Ok);
  EXPECT_EQ(f.size(), 0u);
  EXPECT_TRUE(f.error().empty());
}

TEST(MappedFile, MissingAndNotAFileAreToldApart) {
  testing::TempDir dir;
  const MappedFile missing(dir.file("nope"));
  EXPECT_EQ(missing.status(), MappedFile::Status::Missing);
  EXPECT_FALSE(missing.ok());
  EXPECT_FALSE(missing.error().empty());  // strerror(ENOENT)
  EXPECT_EQ(missing.size(), 0u);

  const MappedFile folder(dir.str());
  EXPECT_EQ(folder.status(), MappedFile::Status::NotAFile);
  EXPECT_EQ(folder.error(), "not a regular file");
  EXPECT_EQ(folder.size(), 0u);

  // A name through a file that is not a folder: open fails with ENOTDIR, not ENOENT.
  dir.write("f", "x");
  const MappedFile through(dir.file("f") + "/g");
  EXPECT_EQ(through.status(), MappedFile::Status::Unreadable);
  EXPECT_FALSE(through.error().empty());
}

}  // namespace
}  // namespace mmkg
