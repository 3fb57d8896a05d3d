// Tests of the int8 layers' disk cache (int8_cache.h): the first load writes it, later loads read it
// and give the same vectors bit for bit; a file that is truncated, corrupt, or written for another
// key is refused and rebuilt; an unwritable folder only costs the cache; many writers at once
// leave one whole file; old files are pruned.
#include "embed/int8_cache.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "embed/embedder.h"
#include "embed/native_embedder.h"
#include "support/embed_fixtures.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kTexts = {
    "Multi-head attention runs several attention functions in parallel.",
    "To renew the certificate, run certbot renew from cron twice a day.",
    "The table lists the estimates and their standard errors."};

// The files of `dir` whose name starts with `prefix` (the int8 layers by default).
std::vector<std::string> cache_files(const std::string& dir, const std::string& prefix = "int8-") {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::unique_ptr<Embedder> int8_embedder(const std::string& model, const std::string& cache) {
  return make_native_embedder(model, {.threads = 1, .precision = NativePrecision::Int8, .cache_dir = cache});
}

TEST(Int8Cache, SecondLoadReadsItAndGivesTheSameVectors) {
  MMKG_REQUIRE_MINILM(dir);
  testing::TempDir tmp;
  const std::string cache = tmp.file("cache");
  auto fresh = int8_embedder(dir, cache);
  EXPECT_EQ(fresh->describe().find("cached"), std::string::npos) << fresh->describe();
  const auto files = cache_files(cache);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].rfind("int8-", 0), 0u);
  const std::string key = int8_cache_key(dir, int8::best_isa());
  EXPECT_EQ(fs::path(int8_cache_path(cache, key)).filename().string(), files[0]);
  // Beside it, the model files' hash under their identity, and no temporary file.
  EXPECT_EQ(cache_files(cache, "model-").size(), 1u);
  EXPECT_EQ(cache_files(cache, "").size(), 2u);

  auto cached = int8_embedder(dir, cache);
  EXPECT_NE(cached->describe().find("cached"), std::string::npos) << cached->describe();
  auto none = int8_embedder(dir, "none");
  const auto a = fresh->embed(kTexts, EmbedKind::Document);
  const auto b = cached->embed(kTexts, EmbedKind::Document);
  const auto c = none->embed(kTexts, EmbedKind::Document);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(a.data(), c.data(), a.size() * sizeof(float)), 0);
  // fp32 neither reads nor writes it.
  auto fp32 = make_native_embedder(dir, {.precision = NativePrecision::Fp32, .cache_dir = tmp.file("fp32")});
  EXPECT_FALSE(fs::exists(tmp.file("fp32")));
}

TEST(Int8Cache, BadFilesAreRefusedAndRebuilt) {
  MMKG_REQUIRE_MINILM(dir);
  testing::TempDir tmp;
  const std::string cache = tmp.file("cache");
  const auto want = int8_embedder(dir, cache)->embed(kTexts, EmbedKind::Document);
  const std::string key = int8_cache_key(dir, int8::best_isa());
  const std::string path = int8_cache_path(cache, key);
  std::string good;
  {
    std::ifstream in(path, std::ios::binary);
    good.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_GT(good.size(), 1000000u);
  ASSERT_TRUE(read_int8_cache(path, key).has_value());

  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 0x10;
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"truncated", good.substr(0, good.size() / 3)}, {"a flipped bit", flipped},
      {"empty", ""}, {"not a cache", "hello world, this is not a cache file at all"}};
  for (const auto& [what, bytes] : bad) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    std::string why;
    EXPECT_FALSE(read_int8_cache(path, key, &why).has_value()) << what;
    EXPECT_NE(why.find(path), std::string::npos) << what << ": " << why;
    // The embedder still loads, computes the layers and rewrites a good file.
    auto emb = int8_embedder(dir, cache);
    EXPECT_EQ(emb->describe().find("cached"), std::string::npos) << what;
    const auto got = emb->embed(kTexts, EmbedKind::Document);
    EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)), 0) << what;
    EXPECT_TRUE(read_int8_cache(path, key).has_value()) << what << ": not rewritten";
  }
  // Another model, code version or kernel: another key, refused even under this file's name.
  std::string why;
  EXPECT_FALSE(read_int8_cache(path, key + "x", &why).has_value());
  EXPECT_NE(why.find("another"), std::string::npos) << why;
  EXPECT_NE(int8_cache_path(cache, key + "x"), path);
}

// A key names the model's bytes: a copy of the model with one weight changed gets another key.
TEST(Int8Cache, KeyFollowsTheModelFiles) {
  MMKG_REQUIRE_MINILM(dir);
  testing::TempDir tmp;
  const std::string copy = tmp.file("model");
  fs::create_directories(copy);
  for (const char* f : {"config.json", "vocab.txt", "model.safetensors"}) fs::copy_file(fs::path(dir) / f, fs::path(copy) / f);
  if (fs::exists(fs::path(dir) / "tokenizer_config.json")) {
    fs::copy_file(fs::path(dir) / "tokenizer_config.json", fs::path(copy) / "tokenizer_config.json");
  }
  const std::string k1 = int8_cache_key(copy, int8::best_isa());
  EXPECT_EQ(k1, int8_cache_key(dir, int8::best_isa()));  // the bytes, not the path
  {
    std::fstream f(fs::path(copy) / "model.safetensors", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-4, std::ios::end);
    f.write("\x01\x02\x03\x04", 4);
  }
  EXPECT_NE(int8_cache_key(copy, int8::best_isa()), k1);
  EXPECT_NE(int8_cache_key(dir, int8::Isa::Scalar), int8_cache_key(dir, int8::Isa::Avx2));
}

// The model files' hash is remembered under their identity, and recomputed when a file changes.
TEST(Int8Cache, ModelHashIsRememberedUntilAFileChanges) {
  MMKG_REQUIRE_MINILM(dir);
  testing::TempDir tmp;
  const std::string copy = tmp.file("model");
  fs::create_directories(copy);
  for (const char* f : {"config.json", "vocab.txt", "model.safetensors"}) fs::copy_file(fs::path(dir) / f, fs::path(copy) / f);
  const std::string cache = tmp.file("cache");
  const std::string h = model_files_hash(copy, cache);
  EXPECT_EQ(h, model_files_hash(copy));  // the same as computed without a memo
  const auto memos = cache_files(cache, "model-");
  ASSERT_EQ(memos.size(), 1u);
  // A memo is trusted while the identity holds: one planted by hand is believed.
  std::ofstream(cache + "/" + memos[0], std::ios::trunc) << "0123456789abcdef\n";
  EXPECT_EQ(model_files_hash(copy, cache), "0123456789abcdef");
  // Writing to a file changes its identity (ctime), so its bytes are hashed again.
  {
    std::fstream f(fs::path(copy) / "config.json", std::ios::in | std::ios::out | std::ios::binary | std::ios::ate);
    f << " ";
  }
  const std::string h2 = model_files_hash(copy, cache);
  EXPECT_NE(h2, "0123456789abcdef");
  EXPECT_NE(h2, h);
  EXPECT_EQ(h2, model_files_hash(copy));
}

TEST(Int8Cache, UnwritableFolderOnlyCostsTheCache) {
  MMKG_REQUIRE_MINILM(dir);
  if (::geteuid() == 0) {
    // root writes through permissions: use a path under a regular file instead.
    testing::TempDir tmp;
    const std::string blocker = tmp.write("file", "x");
    auto emb = int8_embedder(dir, blocker + "/cache");
    EXPECT_EQ(emb->embed(kTexts, EmbedKind::Document).size(), kTexts.size() * 384);
    return;
  }
  testing::TempDir tmp;
  ::chmod(tmp.str().c_str(), 0500);
  auto emb = int8_embedder(dir, tmp.file("cache"));
  EXPECT_EQ(emb->embed(kTexts, EmbedKind::Document).size(), kTexts.size() * 384);
  ::chmod(tmp.str().c_str(), 0700);
}

// Many loaders at once on an empty cache: all succeed with the same vectors, one whole file is
// left and no temporary file.
TEST(Int8Cache, ConcurrentWritersLeaveOneWholeFile) {
  MMKG_REQUIRE_MINILM(dir);
  testing::TempDir tmp;
  const std::string cache = tmp.file("cache");
  std::vector<std::vector<float>> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] { got[static_cast<size_t>(t)] = int8_embedder(dir, cache)->embed(kTexts, EmbedKind::Document); });
  }
  for (auto& t : threads) t.join();
  for (int t = 1; t < 4; ++t) {
    EXPECT_EQ(std::memcmp(got[0].data(), got[static_cast<size_t>(t)].data(), got[0].size() * sizeof(float)), 0);
  }
  const auto files = cache_files(cache);
  ASSERT_EQ(files.size(), 1u) << files.size() << " files, first " << files.front();
  EXPECT_EQ(cache_files(cache, "").size(), 2u) << "a temporary file left behind";
  EXPECT_TRUE(read_int8_cache(cache + "/" + files[0], int8_cache_key(dir, int8::best_isa())).has_value());
}

TEST(Int8Cache, KeepsTheNewestFiles) {
  testing::TempDir tmp;
  Int8Layers empty;
  for (int i = 0; i < kKeepInt8CacheFiles + 3; ++i) {
    const std::string key = "key" + std::to_string(i);
    const std::string path = int8_cache_path(tmp.str(), key);
    ASSERT_TRUE(write_int8_cache(path, key, empty));
    // Distinct modification times, oldest first.
    fs::last_write_time(path, fs::file_time_type::clock::now() - std::chrono::hours(100 - i));
  }
  tmp.write("notes.txt", "other files are left alone");
  const auto files = cache_files(tmp.str(), "");
  EXPECT_EQ(files.size(), static_cast<size_t>(kKeepInt8CacheFiles) + 1);
  for (int i = 3; i < kKeepInt8CacheFiles + 3; ++i) {
    const std::string key = "key" + std::to_string(i);
    EXPECT_TRUE(read_int8_cache(int8_cache_path(tmp.str(), key), key).has_value()) << key;
  }
}

TEST(Int8Cache, DefaultFolder) {
  const char* keep[] = {"MMKG_CACHE_DIR", "XDG_CACHE_HOME", "HOME"};
  std::vector<std::pair<std::string, std::optional<std::string>>> saved;
  for (const char* k : keep) {
    const char* v = std::getenv(k);
    saved.emplace_back(k, v ? std::optional<std::string>(v) : std::nullopt);
  }
  ::setenv("MMKG_CACHE_DIR", "/a/b", 1);
  ::setenv("XDG_CACHE_HOME", "/x", 1);
  ::setenv("HOME", "/h", 1);
  EXPECT_EQ(default_cache_dir(), "/a/b");
  ::unsetenv("MMKG_CACHE_DIR");
  EXPECT_EQ(default_cache_dir(), "/x/mmkg");
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(default_cache_dir(), "/h/.cache/mmkg");
  ::unsetenv("HOME");
  EXPECT_EQ(default_cache_dir(), "");
  for (const auto& [k, v] : saved) {
    if (v) {
      ::setenv(k.c_str(), v->c_str(), 1);
    } else {
      ::unsetenv(k.c_str());
    }
  }
}

}  // namespace
}  // namespace mmkg
