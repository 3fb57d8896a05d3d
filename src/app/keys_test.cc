#include "app/keys.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace mmkg {
namespace {

namespace fs = std::filesystem;

struct KeysTest : ::testing::Test {
  fs::path dir = fs::temp_directory_path() / ("mmkg-keys-" + std::to_string(::getpid()) + "-" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::string path = (dir / "keys.json").string();
  void SetUp() override { fs::remove_all(dir); }
  void TearDown() override { fs::remove_all(dir); }
};

TEST_F(KeysTest, AKeyIsShownOnceAndStoredHashed) {
  KeyFile f = KeyFile::load(path);  // no file yet: empty
  EXPECT_TRUE(f.keys().empty());
  const std::string key = f.add("team-a reader", KeyScope::Read, {"a"});
  EXPECT_EQ(key.rfind("mmkg_", 0), 0u);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string secret = key.substr(key.rfind('_') + 1);
  EXPECT_EQ(text.find(secret), std::string::npos) << "the file holds the secret";
  EXPECT_NE(text.find("\"sha256\""), std::string::npos);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  KeyFile again = KeyFile::load(path);
  auto k = again.verify(key);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->name, "team-a reader");
  EXPECT_TRUE(k->allows("a", false));
  EXPECT_FALSE(k->allows("a", true)) << "a read key writes";
  EXPECT_FALSE(k->allows("b", false)) << "a key for a reads b";
}

TEST_F(KeysTest, WrongOrMalformedKeysAreRefused) {
  KeyFile f = KeyFile::load(path);
  const std::string key = f.add("writer", KeyScope::Write, {"*"});
  std::string wrong = key;
  wrong.back() = wrong.back() == '0' ? '1' : '0';
  EXPECT_FALSE(f.verify(wrong));
  EXPECT_FALSE(f.verify(""));
  EXPECT_FALSE(f.verify("mmkg_"));
  EXPECT_FALSE(f.verify(key + "0"));
  EXPECT_FALSE(f.verify(key.substr(0, key.size() - 1)));
  auto k = f.verify(key);
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->allows("anything", true));
}

TEST_F(KeysTest, RevokeByIdPrefixOrName) {
  KeyFile f = KeyFile::load(path);
  const std::string k1 = f.add("one", KeyScope::Read, {"a"});
  const std::string k2 = f.add("two", KeyScope::Write, {"a", "b"});
  const std::string id1 = f.keys()[0].id;
  EXPECT_EQ(f.revoke(id1.substr(0, 6)).name, "one");
  EXPECT_THROW(f.revoke(id1), UsageError);
  EXPECT_THROW(f.revoke("abc"), UsageError);  // under 4 digits and no such name
  KeyFile again = KeyFile::load(path);
  EXPECT_FALSE(again.verify(k1)) << "a revoked key still works";
  EXPECT_TRUE(again.verify(k2));
  again.revoke("two");
  EXPECT_TRUE(KeyFile::load(path).keys().empty());
}

TEST_F(KeysTest, BadArgumentsAndBadFilesSayWhatToDo) {
  KeyFile f = KeyFile::load(path);
  EXPECT_THROW(f.add("", KeyScope::Read, {"a"}), UsageError);
  EXPECT_THROW(f.add("x", KeyScope::Read, {}), UsageError);
  EXPECT_THROW(f.add("x", KeyScope::Read, {"../b"}), UsageError);
  EXPECT_THROW(parse_key_scope("admin"), UsageError);
  fs::create_directories(dir);
  std::ofstream(path) << "{\"not\": \"keys\"}";
  EXPECT_THROW(KeyFile::load(path), Error);
  std::ofstream(path) << "{\"format\": \"mmkg-keys\", \"version\": 99, \"keys\": []}";
  EXPECT_THROW(KeyFile::load(path), Error);
  EXPECT_TRUE(valid_workspace_name("team_a-1"));
  EXPECT_FALSE(valid_workspace_name("a b"));
  EXPECT_FALSE(valid_workspace_name(std::string(65, 'a')));
}

}  // namespace
}  // namespace mmkg
