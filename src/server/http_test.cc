// The wrapper on a real loopback server: auth, JSON errors for throwing handlers, metrics.
#include "server/http.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "core/error.h"

namespace mmkg::server {
namespace {

using nlohmann::json;

TEST(SameSecret, ComparesWholeStrings) {
  EXPECT_TRUE(same_secret("abc", "abc"));
  EXPECT_FALSE(same_secret("abc", "abd"));
  EXPECT_FALSE(same_secret("abc", "abcd"));
  EXPECT_FALSE(same_secret("", "a"));
  EXPECT_TRUE(same_secret("", ""));
}

struct Running {
  Metrics metrics;
  std::unique_ptr<Http> http;
  std::thread t;
  int port = 0;
  Running(AccessPolicy p) {
    http = std::make_unique<Http>(p, metrics, false);
    RouteOptions w;
    w.write = true;
    http->get("/read", "/read", [](const httplib::Request&, httplib::Response& r) { send_json(r, {{"ok", true}}); });
    http->post("/write", "/write", [](const httplib::Request&, httplib::Response& r) { send_json(r, {{"ok", true}}); }, w);
    http->get("/usage", "/usage", [](const httplib::Request&, httplib::Response&) { throw UsageError("bad k"); });
    http->get("/missing", "/missing", [](const httplib::Request&, httplib::Response&) { throw NotFoundError("gone"); });
    http->get("/boom", "/boom", [](const httplib::Request&, httplib::Response&) { throw std::runtime_error("boom"); });
    http->get("/busy", "/busy", [](const httplib::Request&, httplib::Response&) {
      throw HttpError(429, "too_many_requests", "busy");
    });
    port = http->raw().bind_to_any_port("127.0.0.1");
    t = std::thread([this] { http->raw().listen_after_bind(); });
    while (!http->raw().is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ~Running() {
    http->raw().stop();
    t.join();
  }
};

json error_of(const httplib::Result& r) { return json::parse(r->body)["error"]; }

TEST(Http, WritesNeedTheKeyAndReadsDoNotUnlessAuthIsAll) {
  AccessPolicy p;
  p.api_key = "s3cret";
  Running srv(p);
  httplib::Client cli("127.0.0.1", srv.port);
  EXPECT_EQ(cli.Get("/read")->status, 200);
  auto r = cli.Post("/write", "{}", "application/json");
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(error_of(r)["code"], "unauthorized");
  EXPECT_EQ(cli.Post("/write", {{"X-API-Key", "wrong"}}, "{}", "application/json")->status, 401);
  EXPECT_EQ(cli.Post("/write", {{"X-API-Key", "s3cret"}}, "{}", "application/json")->status, 200);
  EXPECT_EQ(cli.Post("/write", {{"Authorization", "Bearer s3cret"}}, "{}", "application/json")->status, 200);
}

TEST(Http, AllNeedsTheKeyForReadsAndNoKeyConfiguredForbidsWrites) {
  AccessPolicy all;
  all.auth = Auth::All;
  all.api_key = "k";
  Running a(all);
  httplib::Client ca("127.0.0.1", a.port);
  EXPECT_EQ(ca.Get("/read")->status, 401);
  EXPECT_EQ(ca.Get("/read", {{"X-API-Key", "k"}})->status, 200);

  AccessPolicy none_set;  // writes need a key, and none is configured
  Running b(none_set);
  httplib::Client cb("127.0.0.1", b.port);
  auto r = cb.Post("/write", "{}", "application/json");
  EXPECT_EQ(r->status, 403);
  EXPECT_NE(error_of(r)["message"].get<std::string>().find("MMKG_API_KEY"), std::string::npos);
}

TEST(Http, HandlerErrorsBecomeJsonWithTheirStatus) {
  Running srv(AccessPolicy{});
  httplib::Client cli("127.0.0.1", srv.port);
  auto u = cli.Get("/usage");
  EXPECT_EQ(u->status, 400);
  EXPECT_EQ(error_of(u)["message"], "bad k");
  EXPECT_EQ(cli.Get("/missing")->status, 404);
  auto b = cli.Get("/boom");
  EXPECT_EQ(b->status, 500);
  EXPECT_EQ(error_of(b)["code"], "internal");
  auto busy = cli.Get("/busy");
  EXPECT_EQ(busy->status, 429);
  EXPECT_EQ(busy->get_header_value("Retry-After"), "1");
  auto none = cli.Get("/no/such/route");
  EXPECT_EQ(none->status, 404);
  EXPECT_EQ(error_of(none)["code"], "not_found");
}

TEST(Http, EveryRequestIsCountedByRouteAndStatus) {
  Running srv(AccessPolicy{});
  httplib::Client cli("127.0.0.1", srv.port);
  cli.Get("/read");
  cli.Get("/read");
  cli.Get("/boom");
  const std::string m = srv.metrics.render();
  EXPECT_NE(m.find("mmkg_requests_total{route=\"GET /read\",status=\"200\"} 2"), std::string::npos) << m;
  EXPECT_NE(m.find("mmkg_requests_total{route=\"GET /boom\",status=\"500\"} 1"), std::string::npos);
  EXPECT_NE(m.find("mmkg_request_duration_seconds_count{route=\"GET /read\"} 2"), std::string::npos);
  EXPECT_NE(m.find("mmkg_request_duration_seconds_bucket{route=\"GET /read\",le=\"+Inf\"} 2"), std::string::npos);
}

}  // namespace
}  // namespace mmkg::server
