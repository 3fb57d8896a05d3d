// /mcp on a real loopback server over a real store: the API key, a session from initialize, 202
// for a notification, stateless requests, 400 for bad JSON or an unknown protocol version, 405
// for GET, and DELETE ending the session (404 after).
#include <gtest/gtest.h>

#include "server/context.h"
#include "server/workspaces.h"
#include "support/loopback_http.h"
#include "support/temp_dir.h"

namespace mmkg::server {
namespace {

using nlohmann::json;

TEST(McpRoute, SessionsOverStreamableHttp) {
  mmkg::testing::TempDir dir;  // an empty store: the tools are mcp_test.cc's
  Config cfg;
  cfg.store = dir.str() + "/store";
  cfg.embedder = EmbedderSpec::parse("none");
  cfg.graph = GraphBackend::parse("none");
  Metrics metrics;
  ServeOptions opt;
  opt.workers = 1;
  Workspaces spaces(opt, metrics);
  spaces.open("default", cfg);
  McpEndpoint& endpoint = spaces.mcp("default");
  AccessPolicy all;
  all.auth = Auth::All;
  all.api_key = "k";
  Http http(all, metrics, false);
  add_mcp_routes(http, spaces);
  mmkg::testing::LoopbackHttp running(http);
  httplib::Client cli("127.0.0.1", running.port());
  const httplib::Headers key = {{"Authorization", "Bearer k"}};
  const std::string init = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})";

  EXPECT_EQ(cli.Post("/mcp", init, "application/json")->status, 401);
  auto r = cli.Post("/mcp", key, init, "application/json");
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(json::parse(r->body)["result"]["protocolVersion"], "2025-11-25");
  const std::string sid = r->get_header_value("Mcp-Session-Id");
  ASSERT_EQ(sid.size(), 32u);
  httplib::Headers h = key;
  h.insert({"Mcp-Session-Id", sid});
  EXPECT_EQ(cli.Post("/mcp", h, R"({"jsonrpc":"2.0","method":"notifications/initialized"})", "application/json")->status, 202);
  r = cli.Post("/mcp", h, R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})", "application/json");
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(json::parse(r->body)["result"]["tools"].size(), 6u);
  for (const std::string tool : {"list_documents", "search", "ask"}) {  // the shared session, a reader, an ask
    const std::string args = tool == "list_documents" ? "{}" : tool == "ask" ? R"({"question":"why?"})" : R"({"query":"q"})";
    r = cli.Post("/mcp", h, R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":")" + tool + R"(","arguments":)" + args + "}}",
                 "application/json");
    ASSERT_EQ(r->status, 200);
    EXPECT_FALSE(json::parse(r->body)["result"]["isError"].get<bool>()) << r->body;
  }
  EXPECT_NE(metrics.render().find("mmkg_asks_total 1"), std::string::npos);
  // Without a session: answered (stateless); malformed JSON and an unknown version: 400.
  EXPECT_EQ(cli.Post("/mcp", key, R"({"jsonrpc":"2.0","id":4,"method":"ping"})", "application/json")->status, 200);
  r = cli.Post("/mcp", key, "{oops", "application/json");
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(json::parse(r->body)["error"]["code"], mcp::kParseError);
  httplib::Headers bad_version = h;
  bad_version.insert({"MCP-Protocol-Version", "1999-01-01"});
  EXPECT_EQ(cli.Post("/mcp", bad_version, R"({"jsonrpc":"2.0","id":5,"method":"ping"})", "application/json")->status, 400);
  EXPECT_EQ(cli.Get("/mcp", key)->status, 405);
  // DELETE ends the session; then it is unknown (404).
  EXPECT_EQ(endpoint.sessions(), 1u);
  EXPECT_EQ(cli.Delete("/mcp", h)->status, 204);
  EXPECT_EQ(endpoint.sessions(), 0u);
  EXPECT_EQ(cli.Delete("/mcp", h)->status, 404);
  EXPECT_EQ(cli.Post("/mcp", h, R"({"jsonrpc":"2.0","id":6,"method":"ping"})", "application/json")->status, 404);
}

}  // namespace
}  // namespace mmkg::server
