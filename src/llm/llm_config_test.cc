// LLM configuration: --llm values, the config file, the environment, and their precedence.
#include "llm/llm_config.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "core/error.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

class LlmConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : kVars) {
      if (const char* old = std::getenv(v)) saved_.emplace_back(v, old);
      ::unsetenv(v);
    }
  }
  void TearDown() override {
    for (const char* v : kVars) ::unsetenv(v);
    for (auto& [k, v] : saved_) ::setenv(k.c_str(), v.c_str(), 1);
  }
  static constexpr const char* kVars[] = {"MMKG_LLM_BASE_URL", "MMKG_LLM_MODEL", "MMKG_LLM_API_KEY", "GROQ_API_KEY",
                                          "OPENAI_API_KEY", "MMKG_CONFIG", "MMKG_TEST_LLM_KEY"};
  std::vector<std::pair<std::string, std::string>> saved_;
};

TEST_F(LlmConfigTest, ParsesUrlSpecsWithFragmentOptions) {
  ::setenv("MMKG_TEST_LLM_KEY", "sk-frag-1234", 1);
  auto c = parse_llm_spec("http://127.0.0.1:8080/v1/#model=qwen2.5&key_env=MMKG_TEST_LLM_KEY&timeout=30&concurrency=2&retries=0");
  EXPECT_EQ(c.base_url, "http://127.0.0.1:8080/v1");
  EXPECT_EQ(c.model, "qwen2.5");
  EXPECT_EQ(c.api_key, "sk-frag-1234");
  EXPECT_EQ(c.timeout_s, 30);
  EXPECT_EQ(c.concurrency, 2);
  EXPECT_EQ(c.max_retries, 0);
  EXPECT_TRUE(c.configured());
  EXPECT_EQ(parse_llm_spec("http://h:1").base_url, "http://h:1/v1");
  EXPECT_EQ(parse_llm_spec("https://h/v1/chat/completions").base_url, "https://h/v1");
  EXPECT_THROW(parse_llm_spec("http://h/v1#colour=red"), UsageError);
  EXPECT_THROW(parse_llm_spec("http://h/v1#concurrency=0"), UsageError);
  EXPECT_THROW(parse_llm_spec("gpt-4"), UsageError);
  ::unsetenv("MMKG_TEST_LLM_KEY");
  EXPECT_THROW(parse_llm_spec("http://h/v1#key_env=MMKG_TEST_LLM_KEY"), UsageError);
}

TEST_F(LlmConfigTest, NoneAndLocal) {
  auto n = resolve_llm_config("none");
  EXPECT_TRUE(n.disabled);
  EXPECT_FALSE(n.configured());
  auto l = resolve_llm_config("local");
  EXPECT_TRUE(l.local);
  EXPECT_TRUE(l.base_url.empty());
  EXPECT_EQ(l.concurrency, 1) << "the local server answers one request at a time";
  EXPECT_FALSE(resolve_llm_config("").configured());
  auto lc = resolve_llm_config("local#concurrency=2&timeout=300&retries=0");
  EXPECT_TRUE(lc.local);
  EXPECT_EQ(lc.concurrency, 2);
  EXPECT_EQ(lc.timeout_s, 300);
  EXPECT_EQ(lc.max_retries, 0);
  EXPECT_THROW(resolve_llm_config("local#model=x"), UsageError);
  EXPECT_THROW(resolve_llm_config("local#concurrency=0"), UsageError);
}

TEST_F(LlmConfigTest, ServiceKeysPickTheirBaseUrls) {
  ::setenv("GROQ_API_KEY", "gsk-groq-1", 1);
  auto g = resolve_llm_config();
  EXPECT_EQ(g.base_url, "https://api.groq.com/openai/v1");
  EXPECT_EQ(g.api_key, "gsk-groq-1");
  EXPECT_EQ(g.model, kGroqDefaultModel);
  ::unsetenv("GROQ_API_KEY");
  ::setenv("OPENAI_API_KEY", "sk-openai-1", 1);
  ::setenv("MMKG_LLM_MODEL", "gpt-4.1-nano", 1);
  auto o = resolve_llm_config();
  EXPECT_EQ(o.base_url, "https://api.openai.com/v1");
  EXPECT_EQ(o.api_key, "sk-openai-1");
  EXPECT_EQ(o.model, "gpt-4.1-nano");
  // MMKG_LLM_BASE_URL wins over the service keys; MMKG_LLM_API_KEY is its key.
  ::setenv("MMKG_LLM_BASE_URL", "http://10.0.0.1:8000", 1);
  ::setenv("MMKG_LLM_API_KEY", "sk-mmkg-1", 1);
  auto m = resolve_llm_config();
  EXPECT_EQ(m.base_url, "http://10.0.0.1:8000/v1");
  EXPECT_EQ(m.api_key, "sk-mmkg-1");
  EXPECT_EQ(m.source, "MMKG_LLM_BASE_URL");
}

TEST_F(LlmConfigTest, PrecedenceFlagThenFileThenEnvironment) {
  testing::TempDir d;
  ::setenv("MMKG_TEST_LLM_KEY", "sk-file-key-77", 1);
  const std::string path = d.write("mmkg.json", R"({"llm": {"base_url": "http://file:1/v1", "model": "file-model",
      "api_key_env": "MMKG_TEST_LLM_KEY", "timeout": 9, "concurrency": 3, "max_retries": 1}})");
  ::setenv("MMKG_CONFIG", path.c_str(), 1);
  ::setenv("MMKG_LLM_BASE_URL", "http://env:1/v1", 1);
  ::setenv("MMKG_LLM_MODEL", "env-model", 1);
  auto f = resolve_llm_config();
  EXPECT_EQ(f.base_url, "http://file:1/v1");
  EXPECT_EQ(f.model, "file-model");
  EXPECT_EQ(f.api_key, "sk-file-key-77");
  EXPECT_EQ(f.timeout_s, 9);
  EXPECT_EQ(f.concurrency, 3);
  EXPECT_EQ(f.max_retries, 1);
  auto fl = resolve_llm_config("http://flag:1/v1#model=flag-model");
  EXPECT_EQ(fl.base_url, "http://flag:1/v1");
  EXPECT_EQ(fl.model, "flag-model");
  EXPECT_EQ(fl.timeout_s, 9);  // not set by the flag: the file's
  EXPECT_EQ(fl.source, "--llm");
  // A key written into the file is refused, and the message does not repeat it.
  d.write("mmkg.json", R"({"llm": {"api_key": "sk-in-file-999"}})");
  try {
    resolve_llm_config();
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find("sk-in-file-999"), std::string::npos);
  }
  d.write("mmkg.json", "{not json");
  EXPECT_THROW(resolve_llm_config(), UsageError);
  ::setenv("MMKG_CONFIG", d.file("missing.json").c_str(), 1);
  EXPECT_THROW(resolve_llm_config(), UsageError);
}

TEST_F(LlmConfigTest, VisionOption) {
  EXPECT_FALSE(parse_llm_spec("http://h/v1#model=m").vision);
  EXPECT_TRUE(parse_llm_spec("http://h/v1#model=llava&vision=1").vision);
  EXPECT_TRUE(parse_llm_spec("http://h/v1#vision&model=llava").vision);
  EXPECT_TRUE(parse_llm_spec("http://h/v1#vision=true").vision);
  EXPECT_FALSE(parse_llm_spec("http://h/v1#vision=0").vision);
  EXPECT_THROW(parse_llm_spec("http://h/v1#vision=maybe"), UsageError);
  EXPECT_TRUE(resolve_llm_config("http://h/v1#model=gpt-4o-mini&vision=1").vision);
  // The context window, when the spec knows it (mmkg serve --llm local gives its sessions one).
  EXPECT_EQ(parse_llm_spec("http://h/v1#model=m").ctx, 0);
  EXPECT_EQ(parse_llm_spec("http://h/v1#model=m&ctx=4096").ctx, 4096);
  EXPECT_EQ(resolve_llm_config("http://h/v1#model=m&ctx=2048").ctx, 2048);
  EXPECT_THROW(parse_llm_spec("http://h/v1#ctx=0"), UsageError);
  testing::TempDir d;
  ::setenv("MMKG_CONFIG", d.write("mmkg.json", R"({"llm": {"base_url": "http://f:1/v1", "vision": true}})").c_str(), 1);
  EXPECT_TRUE(resolve_llm_config().vision);
  EXPECT_FALSE(resolve_llm_config("http://flag:1/v1#vision=0").vision) << "the flag wins";
  d.write("mmkg.json", R"({"llm": {"vision": "yes"}})");
  EXPECT_THROW(resolve_llm_config(), UsageError);
}

TEST_F(LlmConfigTest, VlmSpecImpliesVisionAndRefusesTextOnlyModels) {
  auto v = parse_vlm_spec("http://127.0.0.1:11434/v1#model=qwen2.5vl:3b&timeout=600");
  EXPECT_TRUE(v.vision);
  EXPECT_EQ(v.model, "qwen2.5vl:3b");
  EXPECT_EQ(v.base_url, "http://127.0.0.1:11434/v1");
  EXPECT_EQ(v.timeout_s, 600);
  EXPECT_TRUE(parse_vlm_spec("http://h/v1#model=llava&vision=1").vision);
  EXPECT_EQ(parse_vlm_spec("https://api.groq.com/openai/v1").model, kGroqDefaultVisionModel);
  EXPECT_EQ(parse_vlm_spec("https://api.groq.com/openai/v1#model=x").model, "x");
  EXPECT_EQ(parse_vlm_spec("https://api.openai.com/v1").model, "gpt-4o-mini");
  // Not from the environment: the chat model's settings are not the VLM's.
  ::setenv("MMKG_LLM_MODEL", "text-only-model", 1);
  ::setenv("MMKG_LLM_API_KEY", "sk-chat-model-key", 1);
  EXPECT_EQ(parse_vlm_spec("http://h/v1").model, "");
  EXPECT_EQ(parse_vlm_spec("http://h/v1").api_key, "") << "the chat model's key is not sent to the VLM";
  ::setenv("MMKG_TEST_LLM_KEY", "sk-vlm-key", 1);
  EXPECT_EQ(parse_vlm_spec("http://h/v1#key_env=MMKG_TEST_LLM_KEY").api_key, "sk-vlm-key");
  ::setenv("GROQ_API_KEY", "gsk-groq-2", 1);
  EXPECT_EQ(parse_vlm_spec("https://api.groq.com/openai/v1").api_key, "gsk-groq-2");
  for (const char* bad : {"none", "local", "local#concurrency=1", "llava", "http://h/v1#vision=0", "http://h/v1#colour=red"}) {
    try {
      parse_vlm_spec(bad);
      ADD_FAILURE() << bad;
    } catch (const UsageError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("--vlm"), std::string::npos) << what;
      EXPECT_EQ(what.find("--llm"), std::string::npos) << what;
    }
  }
}

TEST_F(LlmConfigTest, DescribeRedactsCredentials) {
  auto c = parse_llm_spec("https://user:pw-secret@h/v1?api_key=sk-q-1#model=m");
  EXPECT_EQ(c.describe().find("pw-secret"), std::string::npos);
  EXPECT_EQ(c.describe().find("sk-q-1"), std::string::npos);
}

}  // namespace
}  // namespace mmkg
