#include "net/http.h"

#include <gtest/gtest.h>

#include <thread>

#include "support/scripted_http_server.h"

namespace mmkg {
namespace {

using testing::ScriptedHttpServer;

struct SleepRecorder {
  std::vector<double> delays;
  RetryPolicy policy() {
    RetryPolicy p;
    p.sleep = [this](double s) { delays.push_back(s); };
    return p;
  }
};

HttpRequest post(const ScriptedHttpServer& s) {
  return {s.url("/v1/x"), "{\"a\":1}", {"Content-Type: application/json"}};
}

TEST(Http, PlainPostReturnsStatusHeadersAndBody) {
  ScriptedHttpServer s;
  s.push_json(200, "{\"ok\":true}", "X-Thing: Yes\r\n");
  auto r = http_send(post(s));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "{\"ok\":true}");
  EXPECT_EQ(r.header("x-thing"), "Yes");
  ASSERT_EQ(s.request_count(), 1u);
  EXPECT_EQ(s.requests()[0].body, "{\"a\":1}");
  EXPECT_NE(s.requests()[0].head.find("POST /v1/x"), std::string::npos);
}

TEST(Http, RetryAfterIsHonoured) {
  ScriptedHttpServer s;
  s.push_json(429, "{\"error\":{\"message\":\"slow down\"}}", "Retry-After: 2\r\n");
  s.push_json(200, "{}");
  SleepRecorder rec;
  auto r = http_send_with_retry(post(s), {}, rec.policy(), "test server");
  EXPECT_EQ(r.status, 200);
  ASSERT_EQ(rec.delays.size(), 1u);
  EXPECT_DOUBLE_EQ(rec.delays[0], 2.0);
}

TEST(Http, RateLimitResetHeadersAreHonouredFor429) {
  ScriptedHttpServer s;
  s.push_json(429, "{}",
              "x-ratelimit-remaining-requests: 10\r\nx-ratelimit-reset-requests: 1s\r\n"
              "x-ratelimit-remaining-tokens: 0\r\nx-ratelimit-reset-tokens: 7.5s\r\n");
  s.push_json(200, "{}");
  SleepRecorder rec;
  http_send_with_retry(post(s), {}, rec.policy(), "test server");
  ASSERT_EQ(rec.delays.size(), 1u);
  EXPECT_DOUBLE_EQ(rec.delays[0], 7.5);
}

TEST(Http, ServerErrorsBackOffExponentiallyWithJitterThenSucceed) {
  ScriptedHttpServer s;
  s.push_json(500, "{}");
  s.push_json(503, "{}");
  s.push_json(502, "{}");
  s.push_json(200, "{\"done\":1}");
  SleepRecorder rec;
  RetryPolicy p = rec.policy();
  p.base_delay_s = 1;
  auto r = http_send_with_retry(post(s), {}, p, "test server");
  EXPECT_EQ(r.body, "{\"done\":1}");
  ASSERT_EQ(rec.delays.size(), 3u);
  // attempt n waits in [d/2, d] with d = base * 2^(n-1)
  EXPECT_GE(rec.delays[0], 0.5);
  EXPECT_LE(rec.delays[0], 1.0);
  EXPECT_GE(rec.delays[1], 1.0);
  EXPECT_LE(rec.delays[1], 2.0);
  EXPECT_GE(rec.delays[2], 2.0);
  EXPECT_LE(rec.delays[2], 4.0);
}

TEST(Http, GivesUpAfterMaxAttemptsWithClearError) {
  ScriptedHttpServer s;
  for (int i = 0; i < 3; ++i) s.push_json(503, "{\"error\":{\"message\":\"overloaded\"}}");
  SleepRecorder rec;
  RetryPolicy p = rec.policy();
  p.max_attempts = 3;
  try {
    http_send_with_retry(post(s), {}, p, "chat server");
    FAIL() << "expected an error";
  } catch (const HttpStatusError& e) {
    EXPECT_EQ(e.status(), 503);
    const std::string m = e.what();
    EXPECT_NE(m.find("chat server"), std::string::npos) << m;
    EXPECT_NE(m.find("503"), std::string::npos) << m;
    EXPECT_NE(m.find("overloaded"), std::string::npos) << m;
    EXPECT_NE(m.find("3 attempts"), std::string::npos) << m;
  }
  EXPECT_EQ(s.request_count(), 3u);
}

TEST(Http, ClientErrorsAreNotRetried) {
  ScriptedHttpServer s;
  s.push_json(401, "{\"error\":{\"message\":\"Invalid API key\"}}");
  SleepRecorder rec;
  try {
    http_send_with_retry(post(s), {}, rec.policy(), "chat server");
    FAIL();
  } catch (const HttpStatusError& e) {
    EXPECT_EQ(e.status(), 401);
    EXPECT_NE(std::string(e.what()).find("check the API key"), std::string::npos);
  }
  EXPECT_EQ(s.request_count(), 1u);
  EXPECT_TRUE(rec.delays.empty());
}

TEST(Http, AnOverlongServerDelayFailsAtOnce) {
  ScriptedHttpServer s;
  s.push_json(429, "{}", "Retry-After: 3600\r\n");
  SleepRecorder rec;
  try {
    http_send_with_retry(post(s), {}, rec.policy(), "chat server");
    FAIL();
  } catch (const HttpStatusError& e) {
    EXPECT_NE(std::string(e.what()).find("3600 s"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(rec.delays.empty());
}

TEST(Http, StalledBodyIsDetectedAndRetried) {
  ScriptedHttpServer s;
  // Headers promise 100 bytes, 10 arrive, then silence.
  s.push({"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789", 30});
  s.push_json(200, "{\"ok\":1}");
  HttpLimits lim;
  lim.stall_s = 1;
  SleepRecorder rec;
  std::vector<std::string> why;
  auto r = http_send_with_retry(post(s), lim, rec.policy(), "test server",
                                [&](int, double, const std::string& w) { why.push_back(w); });
  EXPECT_EQ(r.body, "{\"ok\":1}");
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].find("stopped sending"), std::string::npos) << why[0];
}

TEST(Http, ASlowFirstByteIsNotAStallButTheTotalTimeoutHolds) {
  ScriptedHttpServer s;
  s.push({.raw = ScriptedHttpServer::response(200, "{\"late\":1}"), .delay_s = 1.5});
  HttpLimits lim;
  lim.stall_s = 1;
  EXPECT_EQ(http_send(post(s), lim).body, "{\"late\":1}");
  s.push({.raw = ScriptedHttpServer::response(200, "{}"), .delay_s = 30});
  lim.timeout_s = 1;
  try {
    http_send(post(s), lim);
    FAIL();
  } catch (const NetError& e) {
    EXPECT_EQ(e.kind(), NetError::Kind::Timeout) << e.what();
  }
}

TEST(Http, TruncatedBodyIsDetectedAndRetried) {
  ScriptedHttpServer s;
  s.push({"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"data\":[1,2", 0});
  s.push_json(200, "{\"ok\":1}");
  SleepRecorder rec;
  std::vector<std::string> why;
  auto r = http_send_with_retry(post(s), {}, rec.policy(), "test server",
                                [&](int, double, const std::string& w) { why.push_back(w); });
  EXPECT_EQ(r.body, "{\"ok\":1}");
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].find("closed before"), std::string::npos) << why[0];
}

TEST(Http, ConnectionRefusedIsAConnectError) {
  int port;
  {
    ScriptedHttpServer s;
    port = s.port();
  }  // closed: nothing listens there now
  HttpRequest req{"http://127.0.0.1:" + std::to_string(port) + "/v1", "{}", {}};
  try {
    http_send(req);
    FAIL();
  } catch (const NetError& e) {
    EXPECT_EQ(e.kind(), NetError::Kind::Connect);
    EXPECT_TRUE(e.retryable());
  }
}

TEST(Http, CancellationStopsAWaitingRequest) {
  ScriptedHttpServer s;
  s.push({"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n", 30});
  std::atomic<bool> cancel{false};
  HttpLimits lim;
  lim.cancel = &cancel;
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel = true;
  });
  try {
    http_send(post(s), lim);
    FAIL();
  } catch (const NetError& e) {
    EXPECT_EQ(e.kind(), NetError::Kind::Cancelled);
    EXPECT_FALSE(e.retryable());
  }
  t.join();
}

TEST(Http, BodyLargerThanTheCapIsRefused) {
  ScriptedHttpServer s;
  s.push_json(200, std::string(5000, 'x'));
  HttpLimits lim;
  lim.max_body = 1000;
  try {
    http_send(post(s), lim);
    FAIL();
  } catch (const NetError& e) {
    EXPECT_EQ(e.kind(), NetError::Kind::TooLarge);
  }
}

TEST(Http, StreamingConsumerSeesThePieces) {
  ScriptedHttpServer s;
  s.push_json(200, "data: a\n\ndata: b\n\n");
  std::string seen;
  HttpLimits lim;
  lim.on_data = [&](std::string_view p) {
    seen.append(p);
    return true;
  };
  http_send(post(s), lim);
  EXPECT_EQ(seen, "data: a\n\ndata: b\n\n");
}

TEST(Http, ParseDuration) {
  EXPECT_DOUBLE_EQ(*parse_duration_s("1m30.5s"), 90.5);
  EXPECT_DOUBLE_EQ(*parse_duration_s("6ms"), 0.006);
  EXPECT_DOUBLE_EQ(*parse_duration_s("2h"), 7200);
  EXPECT_DOUBLE_EQ(*parse_duration_s("17"), 17);
  EXPECT_DOUBLE_EQ(*parse_duration_s(" 0.5s "), 0.5);
  EXPECT_FALSE(parse_duration_s(""));
  EXPECT_FALSE(parse_duration_s("soon"));
  EXPECT_FALSE(parse_duration_s("5 parsecs"));
}

TEST(Http, RetryAfterAsHttpDate) {
  HttpResponse r;
  r.status = 503;
  r.headers["retry-after"] = "Wed, 21 Oct 2015 07:28:00 GMT";  // in the past
  EXPECT_DOUBLE_EQ(*server_retry_delay(r), 0.0);
  r.headers.clear();
  EXPECT_FALSE(server_retry_delay(r));
  r.headers["retry-after-ms"] = "250";
  EXPECT_DOUBLE_EQ(*server_retry_delay(r), 0.25);
}

TEST(Http, RedactUrlHidesCredentials) {
  EXPECT_EQ(redact_url("https://user:sk-secret@api.example.com/v1?x=1"),
            "https://***@api.example.com/v1?x=1");
  EXPECT_EQ(redact_url("https://h/v1?api_key=sk-123&model=m"), "https://h/v1?api_key=***&model=m");
  EXPECT_EQ(redact_url("http://127.0.0.1:8080/v1#model=a"), "http://127.0.0.1:8080/v1#model=a");
  EXPECT_EQ(redact_url("https://h/v1?token=abc#frag"), "https://h/v1?token=***#frag");
}

TEST(Http, SplitFragmentOptions) {
  std::string url = "http://h:1/v1#model=a%20b&&flag&q=x+y";
  auto o = split_fragment_options(url);
  EXPECT_EQ(url, "http://h:1/v1");
  ASSERT_EQ(o.size(), 3u);
  EXPECT_EQ(o[0], (std::pair<std::string, std::string>{"model", "a b"}));
  EXPECT_EQ(o[1], (std::pair<std::string, std::string>{"flag", ""}));
  EXPECT_EQ(o[2], (std::pair<std::string, std::string>{"q", "x y"}));
  std::string plain = "http://h/v1";
  EXPECT_TRUE(split_fragment_options(plain).empty());
  EXPECT_EQ(plain, "http://h/v1");
}

TEST(Http, ErrorExcerpt) {
  EXPECT_EQ(error_excerpt("{\"error\":{\"message\":\"bad\\nthing\"}}"), "bad thing");
  EXPECT_EQ(error_excerpt("{\"error\":\"plain\"}"), "plain");
  EXPECT_EQ(error_excerpt("{\"detail\":\"fastapi\"}"), "fastapi");
  EXPECT_EQ(error_excerpt("<html>oops</html>"), "<html>oops</html>");
  EXPECT_EQ(error_excerpt(std::string(500, 'a')).size(), 203u);
}

}  // namespace
}  // namespace mmkg
