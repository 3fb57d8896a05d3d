// The LLM response cache: keys, deterministic-only policy, round trip, threads.
#include "llm/llm_cache.h"

#include <gtest/gtest.h>

#include <thread>

#include "core/hash.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

ChatRequest req(double temp) {
  ChatRequest r;
  r.messages = {Message::system("be brief"), Message::user("hi")};
  r.temperature = temp;
  return r;
}

TEST(LlmCache, KeyCoversWhatDecidesTheAnswer) {
  const auto a = LlmCache::key("m", req(0));
  EXPECT_EQ(a, LlmCache::key("m", req(0)));
  EXPECT_EQ(a.size(), 16u);
  EXPECT_NE(a, LlmCache::key("other", req(0)));
  auto b = req(0);
  b.messages[1].content = "hi!";
  EXPECT_NE(a, LlmCache::key("m", b));
  auto c = req(0);
  c.max_tokens = 10;
  EXPECT_NE(a, LlmCache::key("m", c));
  auto d = req(0);
  d.response_schema = ResponseSchema{"x", {{"type", "object"}}};
  EXPECT_NE(a, LlmCache::key("m", d));
  auto e = req(0);
  e.stream = true;  // streaming does not change the answer
  EXPECT_EQ(a, LlmCache::key("m", e));
}

TEST(LlmCache, TextOnlyKeysAreUnchanged) {
  // The canonical form keys had before images existed: entries cached then are still found.
  EXPECT_EQ(LlmCache::key("m", req(0)),
            hash_hex("mmkg-llm-cache-v1\n"
                     R"({"max_tokens":null,"messages":[{"content":"be brief","role":"system"},)"
                     R"({"content":"hi","role":"user"}],"model":"m","response_format":null,"seed":null,)"
                     R"("stop":[],"temperature":0.0,"tool_choice":"","tools":[]})"));
}

TEST(LlmCache, KeyCoversImages) {
  auto with = [](std::vector<ImagePart> images) {
    ChatRequest r = req(0);
    r.messages[1].images = std::move(images);
    return LlmCache::key("m", r);
  };
  const auto png1 = with({{"image/png", "\x89PNG one"}});
  EXPECT_EQ(png1, with({{"image/png", "\x89PNG one"}}));
  EXPECT_NE(png1, LlmCache::key("m", req(0)));
  EXPECT_NE(png1, with({{"image/png", "\x89PNG two"}})) << "different bytes";
  EXPECT_NE(png1, with({{"image/jpeg", "\x89PNG one"}})) << "different type";
  EXPECT_NE(png1, with({{"image/png", "\x89PNG one"}, {"image/png", "\x89PNG one"}})) << "twice";
  const auto ab = with({{"image/png", "a"}, {"image/png", "b"}});
  EXPECT_NE(ab, with({{"image/png", "b"}, {"image/png", "a"}})) << "order";
  // The lenient flag changes what may be served, so the key.
  ChatRequest strict = req(0), lenient = req(0);
  strict.response_schema = ResponseSchema{"x", {{"type", "object"}}};
  lenient.response_schema = ResponseSchema{"x", {{"type", "object"}}, true};
  EXPECT_NE(LlmCache::key("m", strict), LlmCache::key("m", lenient));
}

TEST(LlmCache, OnlyDeterministicRequests) {
  EXPECT_TRUE(LlmCache::cacheable(req(0)));
  EXPECT_FALSE(LlmCache::cacheable(req(0.7)));
  auto s = req(0.7);
  s.seed = 42;
  EXPECT_TRUE(LlmCache::cacheable(s));
  ChatRequest none;
  EXPECT_FALSE(LlmCache::cacheable(none));
}

TEST(LlmCache, RoundTripAndThreads) {
  testing::TempDir d;
  auto cache = LlmCache::open(d.file("mmkg.db"));
  EXPECT_FALSE(cache->get("k").has_value());
  ChatResponse r;
  r.text = "hello";
  r.tool_calls = {{"c1", "search", {{"q", "x"}}}};
  r.finish_reason = "stop";
  r.usage = {3, 4, 7};
  r.model = "m";
  r.json = {{"a", 1}};
  cache->put("k", r);
  auto got = cache->get("k");
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(got->cached);
  EXPECT_EQ(got->text, "hello");
  EXPECT_EQ(got->tool_calls[0].arguments["q"], "x");
  EXPECT_EQ(got->usage.total, 7);
  EXPECT_EQ(got->json["a"], 1);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        cache->put("k" + std::to_string(t) + "-" + std::to_string(i), r);
        EXPECT_TRUE(cache->get("k" + std::to_string(t) + "-" + std::to_string(i)).has_value());
      }
    });
  }
  for (auto& t : ts) t.join();
  // A second connection (another process) sees the rows.
  auto again = LlmCache::open(d.file("mmkg.db"));
  EXPECT_TRUE(again->get("k3-49").has_value());
}

}  // namespace
}  // namespace mmkg
