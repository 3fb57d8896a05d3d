#include "server/uploads.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "server/http.h"

namespace mmkg::server {
namespace {

namespace fs = std::filesystem;

TEST(SafeFileName, KeepsOnlyTheBaseNameWithoutLeadingDotsOrControlCharacters) {
  EXPECT_EQ(safe_file_name("../../evil.txt"), "evil.txt");
  EXPECT_EQ(safe_file_name("..\\..\\win.md"), "win.md");
  EXPECT_EQ(safe_file_name("/etc/passwd"), "passwd");
  EXPECT_EQ(safe_file_name(".bashrc"), "bashrc");
  EXPECT_EQ(safe_file_name("a\nb\x01.pdf"), "ab.pdf");
  EXPECT_EQ(safe_file_name(".."), "");
  EXPECT_EQ(safe_file_name("dir/"), "");
  EXPECT_EQ(safe_file_name("what?.txt"), "what_.txt");
}

TEST(SafeFileName, ALongNameIsCutButKeepsItsExtensionAndWholeCharacters) {
  std::string name;
  for (int i = 0; i < 100; ++i) name += "é";  // 2 bytes each
  name += ".pdf";
  const std::string s = safe_file_name(name);
  EXPECT_LE(s.size(), 120u);
  EXPECT_EQ(s.substr(s.size() - 4), ".pdf");
  // Every é is whole: an even number of bytes before the extension.
  EXPECT_EQ((s.size() - 4) % 2, 0u);
}

TEST(StoredName, TheBytesDecideTheExtensionAndALieAboutPdfIsRefused) {
  EXPECT_EQ(stored_name("paper.pdf", "%PDF-1.4"), "paper.pdf");
  EXPECT_EQ(stored_name("paper.bin", "%PDF-1.4"), "paper.bin.pdf");
  EXPECT_EQ(stored_name("notes.md", "# notes"), "notes.md");
  EXPECT_EQ(stored_name("notes", "plain text"), "notes.txt");
  EXPECT_EQ(stored_name("page.htm", "<html><body>x</body></html>"), "page.htm");
  const std::string png("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
  EXPECT_EQ(stored_name("shot.png", png), "shot.png");
  EXPECT_EQ(stored_name("shot", png), "shot.png");
  EXPECT_EQ(stored_name("photo.jpeg", "\xFF\xD8\xFF\xE0 jfif"), "photo.jpeg");
  auto refused = [](const std::string& name, const std::string& bytes) {
    try {
      stored_name(name, bytes);
      return 0;
    } catch (const HttpError& e) {
      return e.status;
    }
  };
  EXPECT_EQ(refused("fake.pdf", "just text"), 415);
  EXPECT_EQ(refused("shot.md", png), 415);                                   // an image named like a document
  EXPECT_EQ(refused("tool", std::string("\x7f" "ELF\x02\x01", 6)), 415);  // an executable
  EXPECT_EQ(refused("data.gz", std::string("\x1f\x8b\x08\0", 4)), 415);   // an archive
  EXPECT_EQ(refused("blob.bin", std::string("bin\0ary", 7)), 415);          // binary, no known format
  EXPECT_EQ(refused("latin1.txt", "caf\xe9"), 415);                         // text, not UTF-8
  EXPECT_EQ(refused("caf\xc3\xa9.md", "caf\xc3\xa9"), 0);
}

TEST(WriteUpload, ReplacesASymlinkPlantedAtTheNameInsteadOfWritingThroughIt) {
  const fs::path dir = fs::temp_directory_path() / ("mmkg-upload-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "uploads");
  const fs::path outside = dir / "outside.txt";
  { std::ofstream(outside) << "keep me"; }
  fs::create_symlink(outside, dir / "uploads" / "doc.txt");
  const std::string p = write_upload((dir / "uploads").string(), "doc.txt", "new text");
  EXPECT_EQ(p, (dir / "uploads" / "doc.txt").string());
  EXPECT_FALSE(fs::is_symlink(dir / "uploads" / "doc.txt"));
  std::ifstream in(outside);
  std::string s((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(s, "keep me");
  fs::remove_all(dir);
}

TEST(WriteUpload, RefusesAnUploadsFolderThatIsASymlink) {
  const fs::path dir = fs::temp_directory_path() / ("mmkg-upload-link-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "elsewhere");
  fs::create_directory_symlink(dir / "elsewhere", dir / "uploads");
  EXPECT_THROW(write_upload((dir / "uploads").string(), "a.txt", "x"), std::exception);
  EXPECT_TRUE(fs::is_empty(dir / "elsewhere"));
  EXPECT_THROW(write_upload((dir / "elsewhere").string(), "../a.txt", "x"), std::exception);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mmkg::server
