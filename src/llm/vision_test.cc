// The figure describer against a scripted OpenAI-compatible server that checks every request as
// a vision server would read it (model, prompt, image_url data URI with the exact base64 of the
// PNG), and answers the ways real VLMs do: clean JSON, prose, JSON in prose, JSON cut short,
// 429 then an answer, 500 throughout, and concurrent requests. No real vision model can be
// installed here (see docs/CONFIG.md); the wire format is the one Ollama, vLLM, OpenAI and Groq
// document.
#include "llm/vision.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>

#include "core/base64.h"
#include "core/hash.h"
#include "llm/llm_cache.h"
#include "llm/openai_chat.h"
#include "support/scripted_http_server.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

using json = nlohmann::json;
using testing::ReceivedRequest;
using testing::ScriptedHttpServer;
using testing::ScriptedReply;

// A 1x1 RGBA PNG and its base64 as written independently of the code under test.
const char kPngBytes[] =
    "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00"
    "\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\x0d\x49\x44\x41\x54\x78\xda\x63\x64\x60\xf8\x5f\x0f\x00\x02\x87\x01\x80"
    "\xeb\x47\xba\x92\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82";
const std::string kPng(kPngBytes, sizeof kPngBytes - 1);
const std::string kPngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const char* kModel = "qwen2.5vl:3b";

std::string vision_answer(const std::string& content) {
  return json{{"id", "x"},
              {"model", kModel},
              {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", content}}}, {"finish_reason", "stop"}}}},
              {"usage", {{"prompt_tokens", 900}, {"completion_tokens", 40}, {"total_tokens", 940}}}}
      .dump();
}

LlmConfig vlm_config(const ScriptedHttpServer& s) {
  LlmConfig c;
  c.base_url = s.url("/v1");
  c.model = kModel;
  c.vision = true;
  c.timeout_s = 10;
  c.stall_s = 2;
  c.max_retries = 3;
  c.concurrency = 4;
  return c;
}

RetryPolicy recording(std::shared_ptr<std::vector<double>> delays) {
  RetryPolicy p;
  p.sleep = [delays](double s) { delays->push_back(s); };
  return p;
}

// What a vision server reads from one request: the model, the prompt text and the data URIs of
// the images, taken from the OpenAI content parts. Records a failure for anything malformed.
struct Seen {
  std::string model, text;
  std::vector<std::string> image_urls;
  bool text_first = false;
};

Seen read_request(const ReceivedRequest& rq) {
  Seen seen;
  json b;
  try {
    b = json::parse(rq.body);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "request body is not JSON: " << e.what();
    return seen;
  }
  EXPECT_NE(rq.head.find("POST /v1/chat/completions"), std::string::npos) << rq.head;
  seen.model = b.value("model", "");
  for (const auto& m : b["messages"]) {
    if (m["role"] != "user" || !m["content"].is_array()) continue;
    const auto& parts = m["content"];
    seen.text_first = !parts.empty() && parts[0]["type"] == "text";
    for (const auto& p : parts) {
      if (p["type"] == "text") seen.text += p["text"].get<std::string>();
      if (p["type"] == "image_url") seen.image_urls.push_back(p["image_url"]["url"].get<std::string>());
    }
  }
  return seen;
}

// Every request the server got carried the 1x1 PNG and the default prompt, to the right model.
void expect_figure_requests(const ScriptedHttpServer& s, const std::string& hint = "") {
  for (const auto& rq : s.requests()) {
    const Seen seen = read_request(rq);
    EXPECT_EQ(seen.model, kModel);
    EXPECT_TRUE(seen.text_first) << "the text part goes before the image";
    ASSERT_EQ(seen.image_urls.size(), 1u);
    EXPECT_EQ(seen.image_urls[0], "data:image/png;base64," + kPngBase64);
    EXPECT_NE(seen.text.find(VisionDescriber::default_prompt()), std::string::npos) << seen.text;
    if (!hint.empty()) {
      EXPECT_NE(seen.text.find(hint), std::string::npos) << seen.text;
    }
  }
}

TEST(VisionDescriber, ParsesAWellFormedJsonAnswer) {
  ScriptedHttpServer s;
  s.push_json(200, vision_answer(R"({"description": "Training loss falls over 10 epochs.", "text": "epoch, loss, 0.5",
                              "kind": "chart"})"));
  OpenAiChat vlm(vlm_config(s), recording(std::make_shared<std::vector<double>>()));
  VisionDescriber d(vlm);
  const FigureDescription f = d.describe(kPng, "Figure 3: Training loss.");
  EXPECT_EQ(f.description, "Training loss falls over 10 epochs.");
  EXPECT_EQ(f.text, "epoch, loss, 0.5");
  EXPECT_EQ(f.kind, "chart");
  ASSERT_EQ(s.request_count(), 1u);
  expect_figure_requests(s, "Figure 3: Training loss.");
  const json b = json::parse(s.requests()[0].body);
  EXPECT_EQ(b["temperature"], 0);
  EXPECT_TRUE(b.contains("max_tokens"));
  EXPECT_EQ(b["response_format"]["type"], "json_schema");
  EXPECT_EQ(b["response_format"]["json_schema"]["name"], "figure");
  EXPECT_EQ(b["response_format"]["json_schema"]["schema"]["properties"]["kind"]["enum"].size(), 6u);
  // No caption: no caption line.
  s.push_json(200, vision_answer(R"({"description": "A cat.", "text": "", "kind": "photo"})"));
  EXPECT_EQ(d.describe(kPng).kind, "photo");
  EXPECT_EQ(read_request(s.requests()[1]).text.find("caption"), std::string::npos);
}

TEST(VisionDescriber, ProseAnswerIsTheDescriptionWithKindOther) {
  ScriptedHttpServer s;
  s.push_json(200, vision_answer("  The image shows a red bicycle leaning against a brick wall.\n"));
  OpenAiChat vlm(vlm_config(s), recording(std::make_shared<std::vector<double>>()));
  const FigureDescription f = VisionDescriber(vlm).describe(kPng, "");
  EXPECT_EQ(f.description, "The image shows a red bicycle leaning against a brick wall.");
  EXPECT_EQ(f.text, "");
  EXPECT_EQ(f.kind, "other");
  EXPECT_EQ(s.request_count(), 1u) << "a prose answer is used, not asked for again";
  expect_figure_requests(s);
}

TEST(VisionDescriber, JsonInProseAndJsonCutShort) {
  ScriptedHttpServer s;
  s.push_json(200, vision_answer("Sure! Here it is:\n```json\n{\"description\": \"Steps of the ingest pipeline.\", "
                          "\"text\": [\"parse\", \"chunk\", \"embed\"], \"kind\": \"Flowchart\",}\n```"));
  // max_tokens reached inside "text": what came is kept.
  s.push_json(200,
              vision_answer("{\"description\": \"Sales by region, the north \\u00e9 highest.\", \"text\": \"North; So"));
  OpenAiChat vlm(vlm_config(s), recording(std::make_shared<std::vector<double>>()));
  VisionDescriber d(vlm);
  const FigureDescription a = d.describe(kPng, "Figure 1");
  EXPECT_EQ(a.description, "Steps of the ingest pipeline.");
  EXPECT_EQ(a.text, "parse; chunk; embed");
  EXPECT_EQ(a.kind, "diagram");
  const FigureDescription b = d.describe(kPng, "Figure 2");
  EXPECT_EQ(b.description, "Sales by region, the north \xc3\xa9 highest.");
  EXPECT_EQ(b.text, "North; So");
  EXPECT_EQ(b.kind, "other");
  EXPECT_EQ(s.request_count(), 2u);
  expect_figure_requests(s);
}

TEST(VisionDescriber, ParseFigureAnswerNeverThrows) {
  for (const char* bad : {"", "{", "null", "[1, 2]", "{\"description\": \"\\u00", "{\"description\": 5}",
                          "\"just a string\"", "{\"kind\": \"chart\"", "}{", "\xff\xfe"}) {
    FigureDescription f;
    EXPECT_NO_THROW(f = parse_figure_answer(bad)) << bad;
    EXPECT_FALSE(f.kind.empty()) << bad;
  }
  EXPECT_EQ(parse_figure_answer("{\"description\": 5}").description, "5");
  EXPECT_EQ(parse_figure_answer("{\"description\": \"ab\\u00").description, "ab");
  // One level down, and renamed keys.
  const auto nested = parse_figure_answer(R"({"figure": {"summary": "A map.", "type": "Photograph"}})");
  EXPECT_EQ(nested.description, "A map.");
  EXPECT_EQ(nested.kind, "photo");
  // The client's structured JSON wins over the text.
  const auto structured = parse_figure_answer("ignored", json{{"description", "from json"}, {"kind", "table"}});
  EXPECT_EQ(structured.description, "from json");
  EXPECT_EQ(structured.kind, "table");
  // JSON with none of our keys is prose.
  EXPECT_EQ(parse_figure_answer(R"({"answer": 1})").description, R"({"answer": 1})");
}

TEST(VisionDescriber, KindsAreNormalised) {
  EXPECT_EQ(normalise_figure_kind("chart"), "chart");
  EXPECT_EQ(normalise_figure_kind(" Bar Chart "), "chart");
  EXPECT_EQ(normalise_figure_kind("line plot"), "chart");
  EXPECT_EQ(normalise_figure_kind("flowchart"), "diagram");
  EXPECT_EQ(normalise_figure_kind("System architecture"), "diagram");
  EXPECT_EQ(normalise_figure_kind("photograph"), "photo");
  EXPECT_EQ(normalise_figure_kind("Screen shot"), "screenshot");
  EXPECT_EQ(normalise_figure_kind("TABLE"), "table");
  EXPECT_EQ(normalise_figure_kind("equation"), "other");
  EXPECT_EQ(normalise_figure_kind(""), "other");
}

TEST(VisionDescriber, Retries429ThenSucceeds) {
  ScriptedHttpServer s;
  s.push_json(429, R"({"error":{"message":"Rate limit reached for model"}})", "Retry-After: 1\r\n");
  s.push_json(200, vision_answer(R"({"description": "A bar chart.", "text": "Q1 Q2", "kind": "chart"})"));
  auto delays = std::make_shared<std::vector<double>>();
  OpenAiChat vlm(vlm_config(s), recording(delays));
  const FigureDescription f = VisionDescriber(vlm).describe(kPng, "Figure 2: Revenue.");
  EXPECT_EQ(f.description, "A bar chart.");
  EXPECT_EQ(f.kind, "chart");
  EXPECT_EQ(s.request_count(), 2u);
  ASSERT_EQ(delays->size(), 1u);
  EXPECT_DOUBLE_EQ((*delays)[0], 1.0) << "the server's Retry-After";
  expect_figure_requests(s, "Figure 2: Revenue.");  // the retry carries the image again
}

TEST(VisionDescriber, ServerErrorThroughoutIsAClearLlmError) {
  ScriptedHttpServer s;
  for (int i = 0; i < 8; ++i) s.push_json(500, R"({"error":{"message":"model runner crashed"}})");
  auto cfg = vlm_config(s);
  cfg.max_retries = 2;
  auto delays = std::make_shared<std::vector<double>>();
  OpenAiChat vlm(cfg, recording(delays));
  try {
    VisionDescriber(vlm).describe(kPng, "Figure 4");
    FAIL() << "expected LlmError";
  } catch (const LlmError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("could not describe a figure"), std::string::npos) << what;
    EXPECT_NE(what.find("500"), std::string::npos) << what;
    EXPECT_NE(what.find("model runner crashed"), std::string::npos) << what;
  }
  // The first 500 is looked at as a possible refusal of response_format, then 1 + 2 retries.
  EXPECT_EQ(s.request_count(), 4u);
  EXPECT_EQ(delays->size(), 2u);
  expect_figure_requests(s, "Figure 4");
}

TEST(VisionDescriber, FourThreadsGetTheirOwnAnswers) {
  // Four different images; the server answers each by the image it got, after a pause, so the
  // requests overlap and arrive in any order.
  std::vector<std::string> pngs;
  std::map<std::string, int> by_url;
  for (int i = 0; i < 4; ++i) {
    pngs.push_back(kPng + std::string(1, static_cast<char>('a' + i)) + std::string(300 * (i + 1), static_cast<char>(0xF0 + i)));
    by_url["data:image/png;base64," + base64_encode(pngs.back())] = i;
  }
  std::atomic<int> unknown{0};
  ScriptedHttpServer s;
  s.respond_with([&](const ReceivedRequest& rq) {
    const Seen seen = read_request(rq);
    int i = -1;
    if (seen.image_urls.size() == 1 && by_url.count(seen.image_urls[0])) i = by_url.at(seen.image_urls[0]);
    if (i < 0 || seen.model != kModel || seen.text.find("Figure " + std::to_string(i)) == std::string::npos) {
      ++unknown;
      return ScriptedReply{ScriptedHttpServer::response(400, R"({"error":{"message":"unexpected request"}})")};
    }
    const std::string a = json{{"description", "figure " + std::to_string(i)}, {"text", ""}, {"kind", "diagram"}}.dump();
    return ScriptedReply{ScriptedHttpServer::response(200, vision_answer(a)), 0, /*delay_s=*/0.3};
  });
  OpenAiChat vlm(vlm_config(s), recording(std::make_shared<std::vector<double>>()));
  const VisionDescriber d(vlm);
  std::vector<FigureDescription> got(4);
  std::vector<std::string> errors(4);
  std::vector<std::thread> ts;
  for (int i = 0; i < 4; ++i) {
    ts.emplace_back([&, i] {
      try {
        got[i] = d.describe(pngs[i], "Figure " + std::to_string(i));
      } catch (const std::exception& e) {
        errors[i] = e.what();  // an exception must not leave a thread
      }
    });
  }
  for (auto& t : ts) t.join();
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(errors[i], "");
    EXPECT_EQ(got[i].description, "figure " + std::to_string(i));
    EXPECT_EQ(got[i].kind, "diagram");
  }
  EXPECT_EQ(unknown.load(), 0);
  EXPECT_EQ(s.request_count(), 4u);
  EXPECT_GT(vlm.max_in_flight(), 1) << "the requests ran concurrently";
}

TEST(VisionDescriber, RepeatsComeFromTheLlmCacheAndImagesKeepEntriesApart) {
  testing::TempDir dir;
  ScriptedHttpServer s;
  s.push_json(200, vision_answer(R"({"description": "first", "text": "", "kind": "photo"})"));
  s.push_json(200, vision_answer(R"({"description": "second", "text": "", "kind": "photo"})"));
  OpenAiChat vlm(vlm_config(s), recording(std::make_shared<std::vector<double>>()),
                 LlmCache::open(dir.file("mmkg.db")));
  VisionDescriber d(vlm);
  const std::string other = kPng + "x";
  EXPECT_EQ(d.describe(kPng, "Figure 1").description, "first");
  EXPECT_EQ(d.describe(other, "Figure 1").description, "second") << "another image is another entry";
  EXPECT_EQ(d.describe(kPng, "Figure 1").description, "first");
  EXPECT_EQ(d.describe(other, "Figure 1").description, "second");
  EXPECT_EQ(s.request_count(), 2u);
}

// A model that is never asked anything: for the key and the refusals.
class IdOnly final : public ChatModel {
 public:
  IdOnly(std::string id, bool vision) : id_(std::move(id)), vision_(vision) {}
  ChatResponse chat(const ChatRequest&, const TokenCallback&) override { throw LlmError("not expected"); }
  std::string id() const override { return id_; }
  Usage total_usage() const override { return {}; }
  bool vision() const override { return vision_; }

 private:
  std::string id_;
  bool vision_;
};

TEST(VisionDescriber, CacheKeyChangesWithImagePromptModelAndCaption) {
  IdOnly a("openai:llava@http://h/v1", true), b("openai:qwen2.5vl@http://h/v1", true);
  const VisionDescriber da(a), db(b), custom(a, "List the objects in this image as JSON.");
  const std::string img1 = hash_hex(kPng), img2 = hash_hex(kPng + "x");
  const std::string k = da.cache_key(img1);
  EXPECT_EQ(k, da.cache_key(img1));
  EXPECT_EQ(k, VisionDescriber(a).cache_key(img1));
  EXPECT_EQ(k, da.cache_key(img1, "  ")) << "a blank caption is no caption";
  EXPECT_NE(k, da.cache_key(img2)) << "another image";
  EXPECT_NE(k, custom.cache_key(img1)) << "another prompt";
  EXPECT_NE(k, db.cache_key(img1)) << "another model";
  EXPECT_NE(k, da.cache_key(img1, "Figure 1: Loss."));
  EXPECT_NE(da.cache_key(img1, "Figure 1: Loss."), da.cache_key(img1, "Figure 2: Loss."));
  EXPECT_EQ(k.size(), 16u);
}

TEST(VisionDescriber, RefusesModelsWithoutVisionAndEmptyImages) {
  IdOnly text_only("openai:llama-3.1-8b@http://h/v1", false);
  try {
    VisionDescriber d(text_only);
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("vision=1"), std::string::npos) << e.what();
  }
  IdOnly vlm("openai:llava@http://h/v1", true);
  EXPECT_THROW(VisionDescriber(vlm, "  "), UsageError);
  EXPECT_THROW(VisionDescriber(vlm).describe("", "Figure 1"), Error);
  // The real client refuses too, from its configuration, before sending anything.
  ScriptedHttpServer s;
  auto cfg = vlm_config(s);
  cfg.vision = false;
  OpenAiChat chat(cfg);
  EXPECT_FALSE(chat.vision());
  EXPECT_THROW(VisionDescriber{chat}, UsageError);
  EXPECT_EQ(s.request_count(), 0u);
}

}  // namespace
}  // namespace mmkg
