#include "ingest/files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "core/error.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

namespace fs = std::filesystem;

TEST(Files, CollectsRecursivelySkippingHiddenAndUnsupported) {
  testing::TempDir d;
  d.write("a.txt", "x");
  d.write("sub/b.md", "x");
  d.write("sub/deeper/c.pdf", "x");
  d.write("sub/.hidden.txt", "x");
  d.write(".git/config.txt", "x");
  d.write("sub/archive.zip", "x");
  auto l = collect_files({d.str()});
  ASSERT_EQ(l.files.size(), 3u);
  EXPECT_TRUE(l.errors.empty());
  EXPECT_EQ(l.ignored, 1);
  // An unsupported file named explicitly is taken (content decides).
  auto e = collect_files({d.file("sub/archive.zip")});
  EXPECT_EQ(e.files.size(), 1u);
}

TEST(Files, CollectsImagesEpubAndOfficeFilesSkippingLockFiles) {
  testing::TempDir d;
  for (const char* name : {"a.png", "b.JPG", "c.jpeg", "d.tif", "e.tiff", "f.webp", "g.gif", "h.bmp", "i.epub",
                           "j.docx", "k.pptx", "l.xlsx", "m.odt", "n.odp", "o.ods", "p.doc", "q.ppt", "r.xls"})
    d.write(std::string("in/") + name, "x");
  d.write("in/~$j.docx", "lock");  // Word's owner file while j.docx is open
  d.write("in/s.svg", "<svg/>");
  auto l = collect_files({d.file("in")});
  EXPECT_EQ(l.files.size(), 18u);
  EXPECT_EQ(l.ignored, 1) << "svg";
  for (const auto& f : l.files) EXPECT_EQ(f.find("~$"), std::string::npos) << f;
}

TEST(Files, ReportsSymlinkLoopsAndMissingPaths) {
  testing::TempDir d;
  d.write("dir/a.txt", "x");
  fs::create_directory_symlink(d.file("dir"), d.file("dir/self"));
  fs::create_symlink(d.file("l2"), d.file("l1"));
  fs::create_symlink(d.file("l1"), d.file("l2"));
  auto l = collect_files({d.str(), d.file("missing.txt")});
  ASSERT_EQ(l.files.size(), 1u);
  EXPECT_EQ(l.files[0], d.file("dir/a.txt"));
  int loops = 0, missing = 0;
  for (auto& e : l.errors) {
    loops += e.error.find("symlink loop") != std::string::npos;
    missing += e.error.find("no such file") != std::string::npos;
  }
  EXPECT_EQ(loops, 3) << "dir/self, l1, l2";
  EXPECT_EQ(missing, 1);
}

TEST(Files, SkipsSymlinksLeadingOutOfTheFolderUnlessAskedToFollow) {
  testing::TempDir d;
  d.write("in/a.txt", "inside");
  d.write("in/sub/b.txt", "inside too");
  d.write("outside/secret.txt", "not chosen");
  d.write("outside/docs/c.md", "not chosen");
  fs::create_symlink(d.file("outside/secret.txt"), d.file("in/link.txt"));   // file out
  fs::create_directory_symlink(d.file("outside/docs"), d.file("in/docs"));   // folder out
  fs::create_symlink(d.file("in/sub/b.txt"), d.file("in/inner.txt"));       // stays inside
  fs::create_symlink("../../outside/secret.txt", d.file("in/sub/rel.txt"));    // relative, out
  auto l = collect_files({d.file("in")});
  std::vector<std::string> want = {d.file("in/a.txt"), d.file("in/inner.txt"), d.file("in/sub/b.txt")};
  EXPECT_EQ(l.files, want);
  ASSERT_EQ(l.skipped.size(), 3u);
  for (const auto& s : l.skipped) {
    EXPECT_NE(s.error.find("outside the folder"), std::string::npos) << s.error;
    EXPECT_NE(s.error.find("--follow-symlinks"), std::string::npos) << s.error;
  }
  EXPECT_TRUE(l.errors.empty());

  // Asked to follow: everything the links lead to comes in.
  auto f = collect_files({d.file("in")}, /*follow_symlinks=*/true);
  EXPECT_EQ(f.files.size(), 6u);
  EXPECT_TRUE(f.skipped.empty());

  // A link named on the command line is the user's choice: followed.
  auto e = collect_files({d.file("in/link.txt")});
  EXPECT_EQ(e.files.size(), 1u);
  EXPECT_TRUE(e.skipped.empty());

  // The folder itself reached through a symlink: its inside is judged by the real folder.
  fs::create_directory_symlink(d.file("in"), d.file("alias"));
  auto a = collect_files({d.file("alias")});
  EXPECT_EQ(a.files.size(), 3u);
  EXPECT_EQ(a.skipped.size(), 3u);
}

TEST(Files, ReadFileRefusesEmptyHugeAndSpecialFiles) {
  testing::TempDir d;
  EXPECT_THROW(read_file(d.write("empty.txt", ""), 1 << 20), InputError);
  std::string big(2 << 20, 'a');
  try {
    read_file(d.write("big.txt", big), 1 << 20);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--max-file-size"), std::string::npos);
  }
  EXPECT_EQ(read_file(d.file("big.txt"), 4 << 20).size(), big.size());
  ASSERT_EQ(mkfifo(d.file("fifo").c_str(), 0600), 0);
  EXPECT_THROW(read_file(d.file("fifo"), 1 << 20), InputError);  // must not hang
  EXPECT_THROW(read_file(d.str(), 1 << 20), InputError);
}

TEST(Files, DetectFormatByContentThenExtension) {
  EXPECT_EQ(detect_format("x.txt", "%PDF-1.7 ..."), "pdf");
  EXPECT_EQ(detect_format("x.md", "# Title"), "markdown");
  EXPECT_EQ(detect_format("x.HTM", "<p>x"), "html");
  EXPECT_EQ(detect_format("noext", "<!DOCTYPE html><html>"), "html");
  EXPECT_EQ(detect_format("x.txt", "hello"), "text");
  try {
    detect_format("photo.pdf", std::string("\xFF\xD8\xFF\xE0\x00\x10JFIF", 10));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("JPEG"), std::string::npos) << e.what();
  }
  EXPECT_THROW(detect_format("a.txt", "PK\x03\x04 rest"), InputError);
}

}  // namespace
}  // namespace mmkg
