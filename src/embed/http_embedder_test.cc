// The HTTP embedder against a scripted server (exact requests, faults, odd answer shapes).
// tests/e2e/test_http_embedder.py runs it against a real llama-cpp-python server.
#include "embed/http_embedder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "embed/embedder.h"
#include "support/scripted_http_server.h"

namespace mmkg {
namespace {

using json = nlohmann::json;
using testing::ScriptedHttpServer;

// An OpenAI-style answer with one 3-d vector per input: (i+1, 0, 0) or as given.
std::string embedding_answer(const std::vector<std::vector<float>>& vecs, bool reversed = false) {
  json data = json::array();
  for (size_t k = 0; k < vecs.size(); ++k) {
    size_t i = reversed ? vecs.size() - 1 - k : k;
    data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", vecs[i]}});
  }
  return json{{"object", "list"}, {"data", data}, {"usage", {{"prompt_tokens", 5}, {"total_tokens", 5}}}}
      .dump();
}

RetryPolicy no_sleep() {
  RetryPolicy p;
  p.sleep = [](double) {};
  return p;
}

std::unique_ptr<Embedder> connect(ScriptedHttpServer& s, const std::string& frag = "") {
  s.push_json(200, embedding_answer({{3, 4, 0}}));  // the dimension probe
  return make_http_embedder(parse_http_embedder_spec(s.url("/v1") + frag), no_sleep());
}

TEST(HttpEmbedderSpec, Parses) {
  auto c = parse_http_embedder_spec(
      "http://127.0.0.1:8080/v1#model=embeddinggemma&prompts=gemma&batch=8&parallel=3&dim=768");
  EXPECT_EQ(c.url, "http://127.0.0.1:8080/v1/embeddings");
  EXPECT_EQ(c.model, "embeddinggemma");
  EXPECT_EQ(c.query_prefix, "task: search result | query: ");
  EXPECT_EQ(c.doc_prefix, "title: none | text: ");
  EXPECT_EQ(c.style, PromptStyle::Gemma);
  EXPECT_EQ(c.batch, 8);
  EXPECT_EQ(c.parallel, 3);
  EXPECT_EQ(c.dim, 768);
  EXPECT_EQ(parse_http_embedder_spec("http://h:1").url, "http://h:1/v1/embeddings");
  EXPECT_EQ(parse_http_embedder_spec("http://h:1/api/embeddings/").url, "http://h:1/api/embeddings");
  auto custom = parse_http_embedder_spec("https://h/v1#query_prefix=search_query:%20&doc_prefix=doc:+");
  EXPECT_EQ(custom.query_prefix, "search_query: ");
  EXPECT_EQ(custom.doc_prefix, "doc: ");
  EXPECT_EQ(custom.style, PromptStyle::Custom);
  EXPECT_EQ(parse_http_embedder_spec("http://h/v1#prompts=bogus&query_prefix=q").style, PromptStyle::Custom)
      << "a prefix given after prompts= wins, as before";
  EXPECT_EQ(parse_http_embedder_spec("http://h/v1").style, PromptStyle::None);
  EXPECT_EQ(parse_http_embedder_spec("openai").url, "https://api.openai.com/v1/embeddings");
  EXPECT_EQ(parse_http_embedder_spec("openai").model, "text-embedding-3-small");
  EXPECT_THROW(parse_http_embedder_spec("http://h/v1#colour=red"), UsageError);
  EXPECT_THROW(parse_http_embedder_spec("http://h/v1#batch=0"), UsageError);
  EXPECT_THROW(parse_http_embedder_spec("http://h/v1#prompts=klingon"), UsageError);
  EXPECT_THROW(parse_http_embedder_spec("ftp://h/v1"), UsageError);
}

TEST(HttpEmbedderSpec, ApiKeyComesFromTheEnvironment) {
  ::setenv("MMKG_TEST_EMBED_KEY", "sk-test-123", 1);
  auto c = parse_http_embedder_spec("http://h/v1#key_env=MMKG_TEST_EMBED_KEY");
  EXPECT_EQ(c.api_key, "sk-test-123");
  ::unsetenv("MMKG_TEST_EMBED_KEY");
  EXPECT_THROW(parse_http_embedder_spec("http://h/v1#key_env=MMKG_TEST_EMBED_KEY"), UsageError);
}

TEST(HttpEmbedder, SendsGemmaPromptsModelAndKeyAndNormalises) {
  ScriptedHttpServer s;
  ::setenv("MMKG_TEST_EMBED_KEY", "sk-secret-999", 1);
  auto e = connect(s, "#model=embeddinggemma&prompts=gemma&key_env=MMKG_TEST_EMBED_KEY");
  ::unsetenv("MMKG_TEST_EMBED_KEY");
  EXPECT_EQ(e->dim(), 3);
  EXPECT_EQ(e->id(), "http:embeddinggemma+gemma");
  s.push_json(200, embedding_answer({{0, 2, 0}}));
  auto q = e->embed({"what is attention?"}, EmbedKind::Query);
  s.push_json(200, embedding_answer({{1, 1, 0}, {0, 0, 5}}));
  auto d = e->embed({"Attention maps a query.", ""}, EmbedKind::Document);

  auto reqs = s.requests();
  ASSERT_EQ(reqs.size(), 3u);
  auto qb = json::parse(reqs[1].body);
  EXPECT_EQ(qb["model"], "embeddinggemma");
  EXPECT_EQ(qb["input"][0], "task: search result | query: what is attention?");
  auto db = json::parse(reqs[2].body);
  EXPECT_EQ(db["input"][0], "title: none | text: Attention maps a query.");
  EXPECT_EQ(db["input"][1], "title: none | text: ");
  EXPECT_NE(reqs[1].head.find("Authorization: Bearer sk-secret-999"), std::string::npos);

  ASSERT_EQ(q.size(), 3u);
  EXPECT_FLOAT_EQ(q[1], 1.0f);
  ASSERT_EQ(d.size(), 6u);
  EXPECT_NEAR(d[0], 1 / std::sqrt(2.0), 1e-6);
  EXPECT_FLOAT_EQ(d[5], 1.0f);
}

TEST(HttpEmbedder, NoPromptsSendsTextAsIsAndSpaceForEmpty) {
  ScriptedHttpServer s;
  auto e = connect(s);
  EXPECT_EQ(e->id(), "http:" + s.url("/v1/embeddings"));
  s.push_json(200, embedding_answer({{1, 0, 0}, {0, 1, 0}}));
  e->embed({"plain", ""}, EmbedKind::Query);
  auto b = json::parse(s.requests()[1].body);
  EXPECT_EQ(b["input"][0], "plain");
  EXPECT_EQ(b["input"][1], " ");
  EXPECT_FALSE(b.contains("model"));
}

TEST(HttpEmbedder, OutOfOrderIndicesAreSorted) {
  ScriptedHttpServer s;
  auto e = connect(s);
  s.push_json(200, embedding_answer({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, /*reversed=*/true));
  auto v = e->embed({"a", "b", "c"}, EmbedKind::Document);
  EXPECT_FLOAT_EQ(v[0], 1);
  EXPECT_FLOAT_EQ(v[4], 1);
  EXPECT_FLOAT_EQ(v[8], 1);
}

TEST(HttpEmbedder, TokenLevelVectorsAreMeanPooled) {
  ScriptedHttpServer s;
  auto e = connect(s);
  json tok = {{"data", {{{"index", 0}, {"embedding", {{1, 0, 0}, {0, 1, 0}}}}}}};
  s.push_json(200, tok.dump());
  auto v = e->embed({"two tokens"}, EmbedKind::Document);
  EXPECT_NEAR(v[0], 1 / std::sqrt(2.0), 1e-6);
  EXPECT_NEAR(v[1], 1 / std::sqrt(2.0), 1e-6);
}

TEST(HttpEmbedder, Base64VectorsAreDecoded) {
  ScriptedHttpServer s;
  auto e = connect(s);
  // float32 LE [0, 0, 2] -> "AAAAAAAAAAAAAABA"
  s.push_json(200, R"({"data":[{"index":0,"embedding":"AAAAAAAAAAAAAABA"}]})");
  auto v = e->embed({"x"}, EmbedKind::Document);
  EXPECT_FLOAT_EQ(v[2], 1.0f);
}

TEST(HttpEmbedder, ARefusedBatchIsSplitAndTheSmallerBatchRemembered) {
  ScriptedHttpServer s;
  auto e = connect(s, "#batch=4&parallel=1");
  s.push_json(500, R"({"error":{"message":"llama_decode returned -1"}})");  // 4 at once
  s.push_json(500, R"({"error":{"message":"llama_decode returned -1"}})");  // first 2
  for (int i = 0; i < 4; ++i) s.push_json(200, embedding_answer({{1, 0, 0}}));       // one by one
  auto v = e->embed({"a", "b", "c", "d"}, EmbedKind::Document);
  EXPECT_EQ(v.size(), 12u);
  // Second call starts at the remembered batch size (1): four single requests.
  for (int i = 0; i < 4; ++i) s.push_json(200, embedding_answer({{0, 1, 0}}));
  size_t before = s.request_count();
  e->embed({"e", "f", "g", "h"}, EmbedKind::Document);
  EXPECT_EQ(s.request_count() - before, 4u);
  for (size_t i = before; i < s.request_count(); ++i) {
    EXPECT_EQ(json::parse(s.requests()[i].body)["input"].size(), 1u);
  }
}

TEST(HttpEmbedder, RateLimitIsRetriedAndBatchesRunInParallel) {
  ScriptedHttpServer s;
  auto e = connect(s, "#batch=1&parallel=2");
  s.push_json(429, "{}", "Retry-After: 0\r\n");
  for (int i = 0; i < 3; ++i) s.push_json(200, embedding_answer({{1, 0, 0}}));
  auto v = e->embed({"a", "b", "c"}, EmbedKind::Document);
  EXPECT_EQ(v.size(), 9u);
  EXPECT_EQ(s.request_count(), 5u);  // probe + 429 + 3
}

TEST(HttpEmbedder, BadAnswersGiveClearErrors) {
  ScriptedHttpServer s;
  auto e = connect(s, "#parallel=1");
  auto expect_error = [&](const std::string& body, const std::string& needle) {
    s.push_json(200, body);
    try {
      e->embed({"a"}, EmbedKind::Document);
      ADD_FAILURE() << "no error for " << body;
    } catch (const Error& err) {
      EXPECT_NE(std::string(err.what()).find(needle), std::string::npos) << err.what();
      EXPECT_NE(std::string(err.what()).find("embedding server"), std::string::npos) << err.what();
    }
  };
  expect_error("{\"data\":[{\"index\":0,\"embedding\":[1,2", "not JSON");
  expect_error("{\"choices\":[]}", "without a \"data\" list");
  expect_error("{\"data\":[]}", "0 embeddings for 1 inputs");
  expect_error("{\"data\":[{\"index\":0,\"embedding\":[1,2]}]}", "2 dimensions, earlier 3");
  expect_error("{\"data\":[{\"index\":0,\"embedding\":[1,\"x\",3]}]}", "not a number");
  expect_error("{\"data\":[{\"index\":7,\"embedding\":[1,0,0]}]}", "bad or repeated index");
}

TEST(HttpEmbedder, UnreachableServerSaysWhatToDo) {
  int port;
  {
    ScriptedHttpServer s;
    port = s.port();
  }
  RetryPolicy p = no_sleep();
  p.max_attempts = 2;
  try {
    make_http_embedder(parse_http_embedder_spec("http://127.0.0.1:" + std::to_string(port) + "/v1"), p);
    FAIL();
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("cannot connect"), std::string::npos) << m;
    EXPECT_NE(m.find("start the server"), std::string::npos) << m;
  }
}

TEST(HttpEmbedder, DimensionMismatchWithSpecIsRefused) {
  ScriptedHttpServer s;
  s.push_json(200, embedding_answer({{1, 0, 0}}));
  EXPECT_THROW(make_http_embedder(parse_http_embedder_spec(s.url("/v1#dim=768")), no_sleep()),
               UsageError);
}

TEST(HttpEmbedder, KeyNeverAppearsInErrors) {
  ScriptedHttpServer s;
  ::setenv("MMKG_TEST_EMBED_KEY", "sk-very-secret", 1);
  s.push_json(401, R"({"error":{"message":"bad key"}})");
  try {
    make_http_embedder(parse_http_embedder_spec(s.url("/v1#key_env=MMKG_TEST_EMBED_KEY")), no_sleep());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find("sk-very-secret"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("API key"), std::string::npos) << e.what();
  }
  ::unsetenv("MMKG_TEST_EMBED_KEY");
}

TEST(HttpEmbedder, MakeEmbedderDispatchesUrls) {
  ScriptedHttpServer s;
  s.push_json(200, embedding_answer({{1, 0, 0}}));
  auto e = make_embedder(s.url("/v1#model=m"));
  EXPECT_EQ(e->id(), "http:m");
  EXPECT_THROW(make_embedder("ollama"), UsageError);
}

}  // namespace
}  // namespace mmkg
