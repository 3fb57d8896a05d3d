// The wrapper on a real loopback server: auth, JSON errors for throwing handlers, metrics.
#include "server/http.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "app/keys.h"
#include "core/error.h"
#include "server/keyring.h"
#include "support/temp_dir.h"

namespace mmkg::server {
namespace {

using nlohmann::json;

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
    http->get(R"(/echo/([a-z]+))", "/echo/{x}", [](const httplib::Request& q, httplib::Response& r) {
      send_json(r, {{"workspace", request_workspace(q)}, {"x", q.matches[1].str()}});
    });
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

TEST(Http, EveryRouteTakesAWorkspacePrefixOrHeader) {
  Running srv(AccessPolicy{});
  httplib::Client cli("127.0.0.1", srv.port);
  auto body = [&](const std::string& path, const httplib::Headers& h = {}) {
    auto r = cli.Get(path, h);
    return std::to_string(r->status) + " " + r->body;
  };
  // The prefix captures nothing: the route's own group is still matches[1].
  EXPECT_EQ(body("/echo/abc"), R"(200 {"workspace":"default","x":"abc"})");
  EXPECT_EQ(body("/w/team-a/echo/abc"), R"(200 {"workspace":"team-a","x":"abc"})");
  EXPECT_EQ(body("/echo/abc", {{"X-MMKG-Workspace", "b_2"}}), R"(200 {"workspace":"b_2","x":"abc"})");
  EXPECT_EQ(body("/w/b_2/echo/abc", {{"X-MMKG-Workspace", "b_2"}}).substr(0, 3), "200");
  EXPECT_EQ(body("/w/a/echo/abc", {{"X-MMKG-Workspace", "b"}}).substr(0, 3), "400");
  EXPECT_EQ(body("/echo/abc", {{"X-MMKG-Workspace", "no way"}}).substr(0, 3), "400");
  EXPECT_EQ(body("/w/a.b/echo/abc").substr(0, 3), "400");
  EXPECT_EQ(body("/w//echo/abc").substr(0, 3), "404");  // no name: no route
}

TEST(AccessPolicy, ScopedKeysPerWorkspace) {
  mmkg::testing::TempDir dir;
  const std::string path = dir.str() + "/keys.json";
  KeyFile f = KeyFile::load(path);
  const std::string a_read = f.add("a reader", KeyScope::Read, {"a"});
  const std::string a_write = f.add("a writer", KeyScope::Write, {"a"});
  const std::string all_read = f.add("auditor", KeyScope::Read, {"*"});
  AccessPolicy p;
  p.auth = Auth::All;
  p.keys = std::make_shared<KeyRing>(path);
  auto status = [&](const std::string& key, bool write, const std::string& ws, bool any = false) {
    httplib::Request req;
    if (!key.empty()) req.headers.emplace("Authorization", "Bearer " + key);
    try {
      p.check(req, write, ws, any);
      return 200;
    } catch (const HttpError& e) {
      return e.status;
    }
  };
  EXPECT_EQ(status(a_read, false, "a"), 200);
  EXPECT_EQ(status(a_read, false, "b"), 403);
  EXPECT_EQ(status(a_read, true, "a"), 403);
  EXPECT_EQ(status(a_write, true, "a"), 200);
  EXPECT_EQ(status(a_write, true, "b"), 403);
  EXPECT_EQ(status(all_read, false, "b"), 200);
  EXPECT_EQ(status(all_read, true, "b"), 403);
  EXPECT_EQ(status("", false, "a"), 401);
  EXPECT_EQ(status(a_read + "x", false, "a"), 401);
  // A route that shows no workspace's data takes any valid key, for reads only.
  EXPECT_EQ(status(a_read, false, "b", true), 200);
  EXPECT_EQ(status(a_read, true, "b", true), 403);
  EXPECT_EQ(status("nope", false, "b", true), 401);
  httplib::Request req;
  req.headers.emplace("X-API-Key", a_read);
  EXPECT_TRUE(p.may_read(req, "a"));
  EXPECT_FALSE(p.may_read(req, "default"));
}

}  // namespace
}  // namespace mmkg::server
