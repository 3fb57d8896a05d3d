// The OpenAI-compatible chat client against a scripted server: request shape, every fault the
// issue lists (429 + retry-after, 500, 503, stalled body, truncated JSON, invalid tool call,
// empty choices), streaming, structured-output fallback, cache, concurrency, key redaction.
// tests/e2e/test_llm_local.py runs it against a real llama-cpp-python server.
#include "llm/openai_chat.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "support/temp_dir.h"
#include "support/scripted_http_server.h"

namespace mmkg {
namespace {

using json = nlohmann::json;
using testing::ScriptedHttpServer;
using testing::ScriptedReply;

const char* kKey = "sk-test-SECRET-0123456789";

std::string answer(const json& content, const json& tool_calls = nullptr, const std::string& finish = "stop") {
  json msg = {{"role", "assistant"}, {"content", content}};
  if (!tool_calls.is_null()) msg["tool_calls"] = tool_calls;
  return json{{"id", "x"},
              {"model", "served-model"},
              {"choices", {{{"index", 0}, {"message", msg}, {"finish_reason", finish}}}},
              {"usage", {{"prompt_tokens", 11}, {"completion_tokens", 5}, {"total_tokens", 16}}}}
      .dump();
}

json tool_call(const std::string& name, const std::string& args, const std::string& id = "call_1") {
  return json::array({{{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", args}}}}});
}

std::string sse(const std::vector<std::string>& events) {
  std::string s = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
  for (const auto& e : events) s += "data: " + e + "\n\n";
  return s;
}

LlmConfig config(ScriptedHttpServer& s) {
  LlmConfig c;
  c.base_url = s.url("/v1");
  c.model = "test-model";
  c.api_key = kKey;
  c.timeout_s = 10;
  c.stall_s = 0.5;
  c.max_retries = 3;
  return c;
}

struct Recorder {
  std::shared_ptr<std::vector<double>> delays = std::make_shared<std::vector<double>>();
  RetryPolicy policy() const {
    RetryPolicy p;
    auto d = delays;
    p.sleep = [d](double s) { d->push_back(s); };
    return p;
  }
};

ChatRequest ask(const std::string& q) {
  ChatRequest r;
  r.messages = {Message::system("You are terse."), Message::user(q)};
  return r;
}

json body_of(const ScriptedHttpServer& s, size_t i) { return json::parse(s.requests().at(i).body); }

TEST(ChatClient, SendsAnOpenAiRequestAndReadsTheAnswer) {
  ScriptedHttpServer s;
  s.push_json(200, answer("Paris."));
  OpenAiChat chat(config(s), Recorder().policy());
  ChatRequest r = ask("Capital of France?");
  r.temperature = 0.2;
  r.max_tokens = 20;
  r.seed = 7;
  r.stop = {"\n\n"};
  r.tools = {{"search", "Search the corpus", {{"type", "object"}, {"properties", {{"q", {{"type", "string"}}}}}}}};
  r.tool_choice = "search";
  auto resp = chat.chat(r);
  EXPECT_EQ(resp.text, "Paris.");
  EXPECT_EQ(resp.finish_reason, "stop");
  EXPECT_EQ(resp.model, "served-model");
  EXPECT_EQ(resp.usage.total, 16);
  EXPECT_FALSE(resp.cached);
  EXPECT_EQ(chat.total_usage().prompt, 11);
  ASSERT_EQ(s.request_count(), 1u);
  const auto req = s.requests()[0];
  EXPECT_NE(req.head.find("POST /v1/chat/completions"), std::string::npos);
  EXPECT_NE(req.head.find(std::string("Authorization: Bearer ") + kKey), std::string::npos);
  json b = json::parse(req.body);
  EXPECT_EQ(b["model"], "test-model");
  EXPECT_EQ(b["messages"][1]["content"], "Capital of France?");
  EXPECT_EQ(b["temperature"], 0.2);
  EXPECT_EQ(b["max_tokens"], 20);
  EXPECT_EQ(b["seed"], 7);
  EXPECT_EQ(b["stop"][0], "\n\n");
  EXPECT_EQ(b["tools"][0]["function"]["name"], "search");
  EXPECT_EQ(b["tool_choice"]["function"]["name"], "search");
  EXPECT_FALSE(b.contains("stream"));
  EXPECT_EQ(chat.id(), "openai:test-model@" + s.url("/v1"));
}

TEST(ChatClient, TextOnlyMessagesSerialiseExactlyAsBefore) {
  ScriptedHttpServer s;
  s.push_json(200, answer("ok"));
  OpenAiChat chat(config(s), Recorder().policy());
  chat.chat(ask("q"));
  // The whole body, byte for byte once keys are sorted: plain string content, nothing added.
  EXPECT_EQ(body_of(s, 0).dump(),
            R"({"messages":[{"content":"You are terse.","role":"system"},{"content":"q","role":"user"}],)"
            R"("model":"test-model"})");
  Message call = Message::assistant("");
  call.tool_calls = {{"c1", "search", {{"q", "x"}}}};
  EXPECT_EQ(message_to_json(call).dump(),
            R"({"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{\"q\":\"x\"}",)"
            R"("name":"search"},"id":"c1","type":"function"}]})");
  EXPECT_EQ(message_to_json(Message::tool("c1", "found")).dump(),
            R"({"content":"found","role":"tool","tool_call_id":"c1"})");
}

TEST(ChatVision, ImagesGoAsContentPartsTextFirst) {
  ScriptedHttpServer s;
  s.push_json(200, answer("A chart."));
  s.push_json(200, answer("Two images."));
  auto cfg = config(s);
  cfg.vision = true;
  OpenAiChat chat(cfg, Recorder().policy());
  EXPECT_TRUE(chat.vision());
  const std::string png("\x89PNG\r\n\x1a\n", 8);                 // base64 iVBORw0KGgo=
  const std::string jpeg("\xff\xd8\xff\xe0\x00\x10JFIF\x00\xfb\xfe\xff", 14);  // /9j/4AAQSkZJRgD7/v8=
  ChatRequest r;
  r.messages = {Message::system("You read figures."), Message::user("What is this?", {ImagePart{"image/png", png}})};
  EXPECT_EQ(chat.chat(r).text, "A chart.");
  const json b = body_of(s, 0);
  EXPECT_EQ(b["model"], "test-model");
  EXPECT_EQ(b["messages"][0], json({{"role", "system"}, {"content", "You read figures."}}));
  EXPECT_EQ(b["messages"][1]["role"], "user");
  EXPECT_EQ(b["messages"][1]["content"],
            json::parse(R"([{"type":"text","text":"What is this?"},
                            {"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}])"));
  // Several images keep their order and MIME types; an empty text sends no text part.
  r.messages = {Message::user("", {ImagePart{"image/png", png}, ImagePart{"image/jpeg", jpeg}})};
  chat.chat(r);
  EXPECT_EQ(body_of(s, 1)["messages"][0]["content"],
            json::parse(R"([{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},
                            {"type":"image_url","image_url":{"url":"data:image/jpeg;base64,/9j/4AAQSkZJRgD7/v8="}}])"));
}

TEST(ChatVision, ImagesToAModelNotMarkedVisionAreRefusedBeforeSending) {
  ScriptedHttpServer s;
  OpenAiChat chat(config(s), Recorder().policy());
  EXPECT_FALSE(chat.vision());
  ChatRequest r;
  r.messages = {Message::user("What is this?", {ImagePart{"image/png", "\x89PNG"}})};
  try {
    chat.chat(r);
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("vision=1"), std::string::npos) << e.what();
  }
  EXPECT_EQ(s.request_count(), 0u);
}

TEST(ChatStructured, LenientSchemaKeepsProseWithoutAskingAgain) {
  ScriptedHttpServer s;
  s.push_json(200, answer("It is Paris, I think."));
  s.push_json(200, answer("{\"town\": \"Paris\"}"));
  OpenAiChat chat(config(s), Recorder().policy());
  ChatRequest r = ask("Where?");
  r.response_schema = ResponseSchema{"place", {{"type", "object"}, {"required", {"city"}}}, /*lenient=*/true};
  const auto prose = chat.chat(r);
  EXPECT_EQ(prose.text, "It is Paris, I think.");
  EXPECT_TRUE(prose.json.is_null());
  const auto partial = chat.chat(r);  // JSON without the required key: as parsed
  EXPECT_EQ(partial.json["town"], "Paris");
  EXPECT_EQ(s.request_count(), 2u);
}

TEST(ChatClient, ContentBlocksBecomeText) {
  EXPECT_EQ(content_to_text(json("plain")), "plain");
  EXPECT_EQ(content_to_text(json(nullptr)), "");
  json blocks = json::parse(R"([{"type":"text","text":"Hello"},{"type":"image_url","image_url":{"url":"x"}},
                                {"type":"output_text","text":{"value":"world"}}])");
  EXPECT_EQ(content_to_text(blocks), "Hello\nworld");
  EXPECT_EQ(content_to_text(json::parse(R"({"type":"text","text":"one"})")), "one");
  ScriptedHttpServer s;
  s.push_json(200, answer(blocks));
  s.push_json(200, answer(nullptr, tool_call("search", R"({"q":"tides"})"), "tool_calls"));
  OpenAiChat chat(config(s), Recorder().policy());
  auto a = chat.chat(ask("hi"));
  EXPECT_EQ(a.text, "Hello\nworld");
  EXPECT_EQ(a.text.find('['), std::string::npos);
  auto b = chat.chat(ask("search"));
  EXPECT_EQ(b.text, "");
  ASSERT_EQ(b.tool_calls.size(), 1u);
  EXPECT_EQ(b.tool_calls[0].id, "call_1");
  EXPECT_EQ(b.tool_calls[0].arguments["q"], "tides");
}

TEST(ChatClient, Honours429RetryAfter) {
  ScriptedHttpServer s;
  s.push_json(429, R"({"error":{"message":"rate limited"}})", "Retry-After: 2\r\n");
  s.push_json(429, R"({"error":{"message":"rate limited"}})",
              "x-ratelimit-remaining-requests: 0\r\nx-ratelimit-reset-requests: 1.5s\r\n"
              "x-ratelimit-remaining-tokens: 900\r\nx-ratelimit-reset-tokens: 20s\r\n");
  s.push_json(200, answer("ok"));
  Recorder rec;
  OpenAiChat chat(config(s), rec.policy());
  EXPECT_EQ(chat.chat(ask("q")).text, "ok");
  ASSERT_EQ(rec.delays->size(), 2u);
  EXPECT_DOUBLE_EQ((*rec.delays)[0], 2.0);
  EXPECT_DOUBLE_EQ((*rec.delays)[1], 1.5);
}

TEST(ChatClient, Recovers500And503AndGivesUpClearly) {
  ScriptedHttpServer s;
  s.push_json(500, R"({"error":{"message":"boom"}})");
  s.push_json(503, "Service Unavailable");
  s.push_json(200, answer("fine"));
  Recorder rec;
  OpenAiChat chat(config(s), rec.policy());
  EXPECT_EQ(chat.chat(ask("q")).text, "fine");
  EXPECT_EQ(s.request_count(), 3u);
  ASSERT_EQ(rec.delays->size(), 2u);
  EXPECT_GT((*rec.delays)[1], 0.0);  // exponential backoff with jitter
  for (int i = 0; i < 4; ++i) s.push_json(503, R"({"error":{"message":"overloaded"}})");
  try {
    chat.chat(ask("q"));
    FAIL();
  } catch (const HttpStatusError& e) {
    EXPECT_EQ(e.status(), 503);
    EXPECT_NE(std::string(e.what()).find("gave up after 4 attempts"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("overloaded"), std::string::npos);
  }
}

TEST(ChatClient, StalledBodyIsCaughtAndRetried) {
  ScriptedHttpServer s;
  const std::string full = ScriptedHttpServer::response(200, answer("late"));
  s.push({full.substr(0, full.size() - 10), /*stall_s=*/5});
  s.push_json(200, answer("second try"));
  OpenAiChat chat(config(s), Recorder().policy());
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(chat.chat(ask("q")).text, "second try");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 4.0);
  // Without retries: a clear error, quickly.
  auto cfg = config(s);
  cfg.max_retries = 0;
  OpenAiChat once(cfg, Recorder().policy());
  s.push({full.substr(0, full.size() - 10), 5});
  try {
    once.chat(ask("q"));
    FAIL();
  } catch (const NetError& e) {
    EXPECT_EQ(e.kind(), NetError::Kind::Stall);
    EXPECT_NE(std::string(e.what()).find("stopped sending"), std::string::npos);
  }
}

TEST(ChatClient, TruncatedJsonIsRetriedOnceThenFailsClearly) {
  ScriptedHttpServer s;
  const std::string good = answer("whole");
  s.push_json(200, good.substr(0, good.size() / 2));
  s.push_json(200, good);
  OpenAiChat chat(config(s), Recorder().policy());
  EXPECT_EQ(chat.chat(ask("q")).text, "whole");
  s.push_json(200, good.substr(0, 30));
  s.push_json(200, good.substr(0, 30));
  try {
    chat.chat(ask("q"));
    FAIL();
  } catch (const LlmError& e) {
    EXPECT_NE(std::string(e.what()).find("not complete JSON"), std::string::npos) << e.what();
  }
  EXPECT_EQ(s.request_count(), 4u);
}

TEST(ChatClient, InvalidToolCallIsRetriedOnceThenFailsClearly) {
  ScriptedHttpServer s;
  ChatRequest r = ask("look it up");
  r.tools = {{"search", "", {{"type", "object"}}}};
  s.push_json(200, answer(nullptr, tool_call("search", "{\"q\": \"tid"), "tool_calls"));
  s.push_json(200, answer(nullptr, tool_call("search", "{\"q\": \"tides\",}"), "tool_calls"));  // repairable
  OpenAiChat chat(config(s), Recorder().policy());
  auto a = chat.chat(r);
  ASSERT_EQ(a.tool_calls.size(), 1u);
  EXPECT_EQ(a.tool_calls[0].arguments["q"], "tides");
  s.push_json(200, answer(nullptr, tool_call("search", "not json"), "tool_calls"));
  s.push_json(200, answer(nullptr, tool_call("serach", "{}"), "tool_calls"));
  try {
    chat.chat(r);
    FAIL();
  } catch (const LlmError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown tool \"serach\""), std::string::npos) << e.what();
  }
}

TEST(ChatClient, EmptyChoicesAreRetriedOnceThenFailClearly) {
  ScriptedHttpServer s;
  s.push_json(200, R"({"choices":[]})");
  s.push_json(200, answer("there"));
  OpenAiChat chat(config(s), Recorder().policy());
  EXPECT_EQ(chat.chat(ask("q")).text, "there");
  s.push_json(200, R"({"choices":[]})");
  s.push_json(200, R"({"id":"no choices at all"})");
  try {
    chat.chat(ask("q"));
    FAIL();
  } catch (const LlmError& e) {
    EXPECT_NE(std::string(e.what()).find("empty choice list"), std::string::npos) << e.what();
  }
}

TEST(ChatStream, DeltasToolCallFragmentsAndUsage) {
  ScriptedHttpServer s;
  s.push({sse({R"({"model":"m1","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]})",
               R"({"choices":[{"index":0,"delta":{"content":"Hel"}}]})",
               R"({"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"lo"}]}}]})",
               R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c0","function":{"name":"search","arguments":"{\"q\":"}}]}}]})",
               R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"c1","function":{"name":"open","arguments":"{}"}}]}}]})",
               R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" \"moon\"}"}}]}}]})",
               R"({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})",
               R"({"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4,"total_tokens":13}})", "[DONE]"})});
  OpenAiChat chat(config(s), Recorder().policy());
  ChatRequest r = ask("q");
  r.stream = true;
  std::vector<std::string> pieces;
  auto resp = chat.chat(r, [&](std::string_view p) { pieces.emplace_back(p); });
  EXPECT_EQ(pieces, (std::vector<std::string>{"Hel", "lo"}));
  EXPECT_EQ(resp.text, "Hello");
  EXPECT_EQ(resp.finish_reason, "tool_calls");
  EXPECT_EQ(resp.model, "m1");
  EXPECT_EQ(resp.usage.total, 13);
  ASSERT_EQ(resp.tool_calls.size(), 2u);
  EXPECT_EQ(resp.tool_calls[0].id, "c0");
  EXPECT_EQ(resp.tool_calls[0].arguments["q"], "moon");
  EXPECT_EQ(resp.tool_calls[1].name, "open");
  json b = body_of(s, 0);
  EXPECT_EQ(b["stream"], true);
  EXPECT_EQ(b["stream_options"]["include_usage"], true);
  EXPECT_NE(s.requests()[0].head.find("Accept: text/event-stream"), std::string::npos);
}

TEST(ChatStream, RetriesBeforeTheFirstTokenAndFailsClearlyAfterIt) {
  ScriptedHttpServer s;
  s.push_json(503, R"({"error":{"message":"warming up"}})");
  s.push({sse({R"({"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]})", "[DONE]"})});
  OpenAiChat chat(config(s), Recorder().policy());
  ChatRequest r = ask("q");
  r.stream = true;
  std::string got;
  EXPECT_EQ(chat.chat(r, [&](std::string_view p) { got += p; }).text, "ok");
  EXPECT_EQ(got, "ok");
  // Tokens, then silence: caught by the stall limit, not retried (text already went out).
  std::string partial = sse({R"({"choices":[{"index":0,"delta":{"content":"half"}}]})"});
  s.push({partial, /*stall_s=*/5});
  const auto t0 = std::chrono::steady_clock::now();
  try {
    chat.chat(r, [](std::string_view) {});
    FAIL();
  } catch (const LlmError& e) {
    EXPECT_NE(std::string(e.what()).find("stream broke after text was delivered"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 4.0);
  // A stream cut short without [DONE] or a finish reason is an error, not a silent half answer.
  s.push({partial});
  EXPECT_THROW(chat.chat(r, [](std::string_view) {}), LlmError);
}

TEST(ChatStream, ErrorEventsAndBadToolFragmentsFailClearly) {
  ScriptedHttpServer s;
  const std::string err = R"({"error":{"message":"context length exceeded"}})";
  s.push({sse({err})});
  s.push({sse({err})});
  OpenAiChat chat(config(s), Recorder().policy());
  ChatRequest r = ask("q");
  r.stream = true;
  try {
    chat.chat(r, [](std::string_view) {});
    FAIL();
  } catch (const LlmError& e) {
    EXPECT_NE(std::string(e.what()).find("context length exceeded"), std::string::npos) << e.what();
  }
  const std::string bad_tool =
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"search","arguments":"{oops"}}]},"finish_reason":"tool_calls"}]})";
  s.push({sse({bad_tool, "[DONE]"})});
  s.push({sse({R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"search","arguments":"{\"q\":1}"}}]},"finish_reason":"tool_calls"}]})",
               "[DONE]"})});
  auto ok = chat.chat(r, [](std::string_view) {});
  ASSERT_EQ(ok.tool_calls.size(), 1u);
  EXPECT_EQ(ok.tool_calls[0].arguments["q"], 1);
}

TEST(ChatStream, ServerThatIgnoresStreamStillAnswers) {
  ScriptedHttpServer s;
  s.push_json(200, answer("not streamed"));
  OpenAiChat chat(config(s), Recorder().policy());
  ChatRequest r = ask("q");
  r.stream = true;
  std::string got;
  EXPECT_EQ(chat.chat(r, [&](std::string_view p) { got += p; }).text, "not streamed");
  EXPECT_EQ(got, "not streamed");
}

TEST(ChatStructured, FallsBackFromJsonSchemaToJsonObjectToPromptedWithRepair) {
  ScriptedHttpServer s;
  s.push_json(400, R"({"error":{"message":"response_format type json_schema is not supported"}})");
  s.push_json(400, R"({"error":{"message":"Invalid value for 'response_format': json_object"}})");
  s.push_json(200, answer("Sure! ```json\n{\"city\": \"Paris\", \"n\": [1, 2,],}\n```"));
  OpenAiChat chat(config(s), Recorder().policy());
  ChatRequest r = ask("Where?");
  r.response_schema = ResponseSchema{"place", {{"type", "object"}, {"required", {"city"}}}};
  auto a = chat.chat(r);
  EXPECT_EQ(a.json["city"], "Paris");
  EXPECT_EQ(a.json["n"].size(), 2u);
  EXPECT_EQ(chat.json_mode(), OpenAiChat::JsonMode::Prompted);
  ASSERT_EQ(s.request_count(), 3u);
  EXPECT_EQ(body_of(s, 0)["response_format"]["type"], "json_schema");
  EXPECT_EQ(body_of(s, 0)["response_format"]["json_schema"]["name"], "place");
  EXPECT_EQ(body_of(s, 1)["response_format"]["type"], "json_object");
  EXPECT_EQ(body_of(s, 1)["response_format"]["schema"]["required"][0], "city");
  json third = body_of(s, 2);
  EXPECT_FALSE(third.contains("response_format"));
  EXPECT_NE(third["messages"][0]["content"].get<std::string>().find("Answer with JSON matching this schema"),
            std::string::npos);
  // The downgrade is remembered: the next structured call goes straight to the prompt.
  s.push_json(200, answer("{\"city\": \"Rome\"}"));
  EXPECT_EQ(chat.chat(r).json["city"], "Rome");
  EXPECT_EQ(s.request_count(), 4u);
  EXPECT_FALSE(body_of(s, 3).contains("response_format"));
}

TEST(ChatStructured, Http500RefusalAsLlamaCppPythonSendsIt) {
  ScriptedHttpServer s;
  // llama-cpp-python 0.3.16: a pydantic validation error, as HTTP 500.
  s.push_json(500, R"({"error":{"message":"1 validation error: {'type': 'literal_error', 'loc': ('body', )"
                   R"('response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"}"}})");
  s.push_json(200, answer("{\"city\": \"Oslo\"}"));
  Recorder rec;
  OpenAiChat chat(config(s), rec.policy());
  ChatRequest r = ask("Where?");
  r.response_schema = ResponseSchema{"place", {{"type", "object"}}};
  EXPECT_EQ(chat.chat(r).json["city"], "Oslo");
  EXPECT_EQ(chat.json_mode(), OpenAiChat::JsonMode::Object);
  EXPECT_EQ(s.request_count(), 2u);
  EXPECT_TRUE(rec.delays->empty());  // not retried as a server error
  // An ordinary 500 on a structured request still gets the usual retries.
  s.push_json(500, R"({"error":{"message":"out of memory"}})");
  s.push_json(500, R"({"error":{"message":"out of memory"}})");
  s.push_json(200, answer("{\"city\": \"Bergen\"}"));
  EXPECT_EQ(chat.chat(r).json["city"], "Bergen");
  EXPECT_EQ(chat.json_mode(), OpenAiChat::JsonMode::Object);
  EXPECT_EQ(rec.delays->size(), 1u);
}

TEST(ChatStructured, InvalidJsonIsAskedForAgainQuotingTheError) {
  ScriptedHttpServer s;
  s.push_json(200, answer("I think the city is Paris."));
  s.push_json(200, answer("{\"city\": \"Paris\"}"));
  OpenAiChat chat(config(s), Recorder().policy());
  ChatRequest r = ask("Where?");
  r.response_schema = ResponseSchema{"place", {{"type", "object"}, {"required", {"city"}}}};
  EXPECT_EQ(chat.chat(r).json["city"], "Paris");
  json second = body_of(s, 1);
  const auto& msgs = second["messages"];
  EXPECT_EQ(msgs[msgs.size() - 2]["content"], "I think the city is Paris.");
  EXPECT_NE(msgs.back()["content"].get<std::string>().find("not valid"), std::string::npos);
  EXPECT_EQ(chat.json_mode(), OpenAiChat::JsonMode::Schema);  // a bad answer is not a refusal
  s.push_json(200, answer("{\"town\": \"Paris\"}"));
  s.push_json(200, answer("still not"));
  try {
    chat.chat(r);
    FAIL();
  } catch (const LlmError& e) {
    EXPECT_NE(std::string(e.what()).find("did not answer valid JSON"), std::string::npos) << e.what();
  }
}

TEST(ChatStructured, LenientParser) {
  EXPECT_EQ(parse_json_lenient("{\"a\":1}")->at("a"), 1);
  EXPECT_EQ(parse_json_lenient("```\n[1,2,]\n```")->size(), 2u);
  EXPECT_EQ(parse_json_lenient("Here: {\"s\": \"a,}\", \"b\": {\"c\": 2,},} Done.")->at("s"), "a,}");
  EXPECT_EQ(parse_json_lenient("{\"s\": \"two\nlines\tand \\\"q\\\"\"}")->at("s"), "two\nlines\tand \"q\"");
  std::string err;
  EXPECT_FALSE(parse_json_lenient("no json here", &err).has_value());
  EXPECT_FALSE(err.empty());
}

TEST(ChatCache, HitMakesNoRequest) {
  testing::TempDir d;
  ScriptedHttpServer s;
  s.push_json(200, answer("cached answer"));
  s.push_json(200, answer("warm 1"));
  s.push_json(200, answer("warm 2"));
  OpenAiChat chat(config(s), Recorder().policy(), LlmCache::open(d.file("mmkg.db")));
  ChatRequest r = ask("q");
  r.temperature = 0;
  EXPECT_FALSE(chat.chat(r).cached);
  auto again = chat.chat(r);
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(again.text, "cached answer");
  EXPECT_EQ(s.request_count(), 1u);
  r.stream = true;
  std::string got;
  EXPECT_TRUE(chat.chat(r, [&](std::string_view p) { got += p; }).cached);
  EXPECT_EQ(got, "cached answer");
  // A sampled request is never cached.
  ChatRequest warm = ask("q");
  warm.temperature = 0.8;
  EXPECT_EQ(chat.chat(warm).text, "warm 1");
  EXPECT_EQ(chat.chat(warm).text, "warm 2");
  EXPECT_EQ(s.request_count(), 3u);
}

TEST(ChatClient, ApiKeyNeverAppearsInErrors) {
  ScriptedHttpServer s;
  const std::string echo = std::string(R"({"error":{"message":"Incorrect API key provided: )") + kKey + "\"}}";
  s.push_json(401, echo);
  auto cfg = config(s);
  cfg.base_url = s.url("/v1?api_key=") + kKey;  // even a key in the URL
  OpenAiChat chat(cfg, Recorder().policy());
  try {
    chat.chat(ask("q"));
    FAIL();
  } catch (const HttpStatusError& e) {
    EXPECT_EQ(std::string(e.what()).find(kKey), std::string::npos) << e.what();
    EXPECT_EQ(e.body().find(kKey), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("check the API key"), std::string::npos);
  }
  s.push_json(200, std::string("not json ") + kKey);
  s.push_json(200, std::string("not json ") + kKey);
  try {
    chat.chat(ask("q"));
    FAIL();
  } catch (const LlmError& e) {
    EXPECT_EQ(std::string(e.what()).find(kKey), std::string::npos) << e.what();
  }
  EXPECT_EQ(chat.id().find(kKey), std::string::npos);
}

TEST(ChatClient, ConcurrencyCapAndCancellation) {
  ScriptedHttpServer s;
  for (int i = 0; i < 6; ++i) s.push({ScriptedHttpServer::response(200, answer("ok")), 0, /*delay_s=*/0.2});
  auto cfg = config(s);
  cfg.concurrency = 2;
  OpenAiChat chat(cfg, Recorder().policy());
  std::vector<std::thread> ts;
  std::atomic<int> ok{0};
  for (int i = 0; i < 6; ++i) ts.emplace_back([&] { ok += chat.chat(ask("q")).text == "ok"; });
  for (auto& t : ts) t.join();
  EXPECT_EQ(ok.load(), 6);
  EXPECT_LE(chat.max_in_flight(), 2);
  EXPECT_EQ(chat.max_in_flight(), 2);
  // Cancel a request the server is slow to answer.
  s.push({ScriptedHttpServer::response(200, answer("too late")), 0, /*delay_s=*/5});
  std::atomic<bool> cancel{false};
  ChatRequest r = ask("q");
  r.cancel = &cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel = true;
  });
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW(chat.chat(r), Error);
  canceller.join();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 3.0);
}

}  // namespace
}  // namespace mmkg

namespace mmkg {
namespace {

// Against a real OpenAI-compatible server; tests/e2e/test_llm_local.py starts llama-cpp-python
// and sets MMKG_TEST_LLM_URL. Skipped otherwise.
class ChatLocal : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* url = std::getenv("MMKG_TEST_LLM_URL");
    if (!url || !*url) GTEST_SKIP() << "MMKG_TEST_LLM_URL is not set (tests/e2e/test_llm_local.py sets it)";
    cfg_ = parse_llm_spec(url);
    cfg_.timeout_s = 120;
  }
  LlmConfig cfg_;
};

TEST_F(ChatLocal, PlainAndStreamedAnswers) {
  OpenAiChat chat(cfg_);
  ChatRequest r;
  r.messages = {Message::system("You are a helpful assistant."), Message::user("Say hello in one short sentence.")};
  r.temperature = 0;
  r.max_tokens = 24;
  auto a = chat.chat(r);
  EXPECT_FALSE(a.text.empty());
  EXPECT_FALSE(a.finish_reason.empty());
  EXPECT_GT(a.usage.prompt, 0);
  EXPECT_GT(a.usage.completion, 0);
  std::cout << "plain: " << a.text << " [" << a.finish_reason << ", " << a.usage.total << " tokens, " << a.ms
            << " ms]\n";

  r.stream = true;
  std::string streamed;
  int pieces = 0;
  auto b = chat.chat(r, [&](std::string_view p) {
    streamed += p;
    ++pieces;
  });
  EXPECT_FALSE(b.text.empty());
  EXPECT_EQ(streamed, b.text);
  EXPECT_GT(pieces, 1);
  EXPECT_FALSE(b.finish_reason.empty());
  std::cout << "streamed (" << pieces << " pieces): " << b.text << "\n";
  // Same prompt, temperature 0: llama.cpp is deterministic, so both agree.
  EXPECT_EQ(a.text, b.text);
}

TEST_F(ChatLocal, StructuredOutput) {
  OpenAiChat chat(cfg_);
  ChatRequest r;
  r.messages = {Message::user("Give the name and age of a fictional person.")};
  r.temperature = 0;
  r.max_tokens = 64;
  r.response_schema = ResponseSchema{
      "person",
      {{"type", "object"},
       {"properties", {{"name", {{"type", "string"}}}, {"age", {{"type", "integer"}}}}},
       {"required", {"name", "age"}}}};
  auto a = chat.chat(r);
  std::cout << "structured (mode " << static_cast<int>(chat.json_mode()) << "): " << a.json.dump() << "\n";
  ASSERT_TRUE(a.json.is_object());
  EXPECT_TRUE(a.json.contains("name"));
  EXPECT_TRUE(a.json.contains("age"));
}

}  // namespace
}  // namespace mmkg
