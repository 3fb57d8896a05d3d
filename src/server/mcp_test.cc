// The MCP protocol over a real store: the handshake, every tool, the resources and the errors
// (McpServer::handle). The HTTP transport is tested in routes_mcp_test.cc.
#include "server/mcp.h"

#include <gtest/gtest.h>

#include <sstream>
#include <thread>

#include "core/base64.h"
#include "support/chat_fixtures.h"
#include "support/scripted_http_server.h"
#include "support/image_fixtures.h"
#include "support/temp_dir.h"

namespace mmkg::server {
namespace {

using nlohmann::json;

/// One store for the suite: a Markdown document and a PNG (a figure), with the rule-built graph.
class Mcp : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new mmkg::testing::TempDir;
    dir_->write("docs/attention.md",
                "# Attention\n\nMulti-head attention (MHA) lets the Transformer attend to several positions at once. "
                "The Transformer uses multi-head attention in the encoder and the decoder.\n\n"
                "## Quokkas\n\nThe quokka lives on Rottnest Island and shelters in dense scrub.\n");
    dir_->write("docs/red.png", image_fixture::rgb_png(64, 48));
    cfg_ = new Config;
    cfg_->store = dir_->str() + "/store";
    cfg_->embedder = EmbedderSpec::parse("none");
    session_ = Session::open(*cfg_, true).release();
    IngestRequest req;
    req.paths = {dir_->str() + "/docs"};
    ASSERT_EQ(session_->ingest(req).files.documents, 2);
  }
  static void TearDownTestSuite() {
    delete session_;
    delete cfg_;
    delete dir_;
  }

  static mcp::SessionRunner runner() {
    return [](mcp::Work, const std::function<void(Session&)>& fn) { fn(*session_); };
  }
  /// The result (or error) of request `method` with `params`.
  json call(const std::string& method, json params = json::object()) {
    json r = server_.handle({{"jsonrpc", "2.0"}, {"id", ++id_}, {"method", method}, {"params", params}}, conn_);
    EXPECT_EQ(r["id"], id_);
    return r;
  }
  json tool(const std::string& name, json args) { return call("tools/call", {{"name", name}, {"arguments", args}})["result"]; }
  std::string entity_name() {
    std::ostringstream out;
    session_->graph_export("jsonl", out);
    std::istringstream in(out.str());
    for (std::string line; std::getline(in, line);)
      if (json j = json::parse(line); j["kind"] == "entity") return j["name"].get<std::string>();
    return "";
  }

  static mmkg::testing::TempDir* dir_;
  static Config* cfg_;
  static Session* session_;
  mcp::McpServer server_{runner(), "test"};
  mcp::Connection conn_;
  int id_ = 0;
};

mmkg::testing::TempDir* Mcp::dir_ = nullptr;
Config* Mcp::cfg_ = nullptr;
Session* Mcp::session_ = nullptr;

TEST_F(Mcp, InitializeAnswersTheClientsVersionOrTheLatest) {
  json r = call("initialize", {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()},
                               {"clientInfo", {{"name", "t"}, {"version", "1"}}}})["result"];
  EXPECT_EQ(r["protocolVersion"], "2025-06-18");
  EXPECT_EQ(conn_.version, "2025-06-18");
  EXPECT_EQ(r["serverInfo"]["name"], "mmkg");
  EXPECT_TRUE(r["capabilities"].contains("tools"));
  EXPECT_TRUE(r["capabilities"].contains("resources"));
  EXPECT_EQ(call("initialize", {{"protocolVersion", "1999-01-01"}})["result"]["protocolVersion"],
            mcp::protocol_versions().back());
  EXPECT_EQ(call("initialize", json::object())["error"]["code"], mcp::kInvalidParams);
  EXPECT_TRUE(server_.handle({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, conn_).is_null());
  EXPECT_TRUE(conn_.initialized);
  EXPECT_EQ(call("ping")["result"], json::object());
}

TEST_F(Mcp, MalformedMessagesAreJsonRpcErrors) {
  EXPECT_EQ(json::parse(server_.handle_text("{not json", conn_))["error"]["code"], mcp::kParseError);
  EXPECT_EQ(json::parse(server_.handle_text("[]", conn_))["error"]["code"], mcp::kInvalidRequest);
  EXPECT_EQ(json::parse(server_.handle_text("42", conn_))["error"]["code"], mcp::kInvalidRequest);
  EXPECT_EQ(json::parse(server_.handle_text(R"({"jsonrpc":"1.0","id":1,"method":"ping"})", conn_))["error"]["code"],
            mcp::kInvalidRequest);
  EXPECT_EQ(json::parse(server_.handle_text(R"({"jsonrpc":"2.0","id":null,"method":"ping"})", conn_))["error"]["code"],
            mcp::kInvalidRequest);
  EXPECT_EQ(call("no/such/method")["error"]["code"], mcp::kMethodNotFound);
  EXPECT_EQ(json::parse(server_.handle_text(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":[1]})", conn_))["error"]["code"],
            mcp::kInvalidParams);
  EXPECT_EQ(server_.handle_text(R"({"jsonrpc":"2.0","method":"notifications/cancelled"})", conn_), "");
  EXPECT_EQ(server_.handle_text(R"({"jsonrpc":"2.0","id":9,"result":{}})", conn_), "");  // a response
  json batch = json::parse(server_.handle_text(
      R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"x"}])",
      conn_));
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[0]["result"], json::object());
  EXPECT_EQ(batch[1]["error"]["code"], mcp::kMethodNotFound);
}

TEST_F(Mcp, ToolsAreListedWithSchemas) {
  json tools = call("tools/list")["result"]["tools"];
  std::vector<std::string> names;
  for (const json& t : tools) {
    names.push_back(t["name"].get<std::string>());
    EXPECT_EQ(t["inputSchema"]["type"], "object") << t["name"];
    EXPECT_TRUE(t["annotations"]["readOnlyHint"].get<bool>()) << t["name"];
  }
  EXPECT_EQ(names, (std::vector<std::string>{"search", "ask", "get_chunk", "get_figure", "graph_entity", "list_documents"}));
}

TEST_F(Mcp, SearchAskAndGetChunk) {
  json s = tool("search", {{"query", "quokka"}, {"k", 3}, {"mode", "bm25"}});
  ASSERT_FALSE(s["isError"].get<bool>()) << s.dump();
  ASSERT_FALSE(s["structuredContent"]["results"].empty());
  const std::string chunk = s["structuredContent"]["results"][0]["chunk_id"];
  EXPECT_NE(s["content"][0]["text"].get<std::string>().find("attention.md"), std::string::npos);

  json a = tool("ask", {{"question", "Where does the quokka live?"}});
  ASSERT_FALSE(a["isError"].get<bool>()) << a.dump();
  EXPECT_TRUE(a["structuredContent"]["found"].get<bool>());
  EXPECT_FALSE(a["structuredContent"]["citations"].empty());
  EXPECT_FALSE(a["structuredContent"].contains("trace"));
  EXPECT_NE(a["content"][0]["text"].get<std::string>().find("Rottnest"), std::string::npos);

  json c = tool("get_chunk", {{"chunk_id", chunk}});
  ASSERT_FALSE(c["isError"].get<bool>()) << c.dump();
  EXPECT_EQ(c["structuredContent"]["chunk_id"], chunk);
  EXPECT_EQ(c["structuredContent"]["doc"], "attention.md");
  json missing = tool("get_chunk", {{"chunk_id", "ffffffffffffdead"}});
  EXPECT_TRUE(missing["isError"].get<bool>());
  EXPECT_NE(missing["content"][0]["text"].get<std::string>().find("no such chunk"), std::string::npos);
}

TEST_F(Mcp, GetFigureGivesThePng) {
  json docs = tool("list_documents", json::object());
  ASSERT_FALSE(docs["isError"].get<bool>()) << docs.dump();
  ASSERT_EQ(docs["structuredContent"]["documents"].size(), 2u);
  std::string fid;
  for (const auto& d : docs["structuredContent"]["documents"])
    for (const auto& f : session_->store().figures_of(d["id"].get<std::string>())) fid = f.figure.id;
  ASSERT_FALSE(fid.empty());
  json f = tool("get_figure", {{"figure_id", fid}});
  ASSERT_FALSE(f["isError"].get<bool>()) << f.dump();
  ASSERT_EQ(f["content"][0]["type"], "image");
  EXPECT_EQ(f["content"][0]["mimeType"], "image/png");
  EXPECT_EQ(base64_decode(f["content"][0]["data"].get<std::string>()).substr(0, 8), "\x89PNG\r\n\x1a\n");
  EXPECT_EQ(f["structuredContent"]["id"], fid);
  EXPECT_TRUE(tool("get_figure", {{"figure_id", "ffffffffffffdead"}})["isError"].get<bool>());
}

TEST_F(Mcp, GraphEntityWithEvidence) {
  const std::string name = entity_name();
  ASSERT_FALSE(name.empty()) << "the rule extractor found no entity";
  json e = tool("graph_entity", {{"name", name}});
  ASSERT_FALSE(e["isError"].get<bool>()) << e.dump();
  EXPECT_FALSE(e["structuredContent"]["id"].get<std::string>().empty());
  EXPECT_TRUE(e["structuredContent"]["aliases"].is_array());
  json none = tool("graph_entity", {{"name", "zzzz qqqq xxxx"}});
  EXPECT_TRUE(none["isError"].get<bool>());
}

TEST_F(Mcp, BadArgumentsAndUnknownTools) {
  EXPECT_EQ(call("tools/call", {{"name", "nope"}, {"arguments", json::object()}})["error"]["code"], mcp::kInvalidParams);
  EXPECT_EQ(call("tools/call", {{"arguments", json::object()}})["error"]["code"], mcp::kInvalidParams);
  EXPECT_EQ(call("tools/call", {{"name", "search"}, {"arguments", "q"}})["error"]["code"], mcp::kInvalidParams);
  // From 2025-11-25 (and before initialize), arguments the schema refuses are the tool's error...
  for (const json& args : {json::object(), json{{"query", 3}}, json{{"query", "x"}, {"k", 0}}, json{{"query", "x"}, {"mode", "fuzzy"}},
                           json{{"query", "x"}, {"extra", 1}}, json{{"query", ""}}}) {
    json r = tool("search", args);
    EXPECT_TRUE(r["isError"].get<bool>()) << args.dump();
    EXPECT_NE(r["content"][0]["text"].get<std::string>().find("argument"), std::string::npos) << r.dump();
  }
  // ...before it, a protocol error.
  call("initialize", {{"protocolVersion", "2025-06-18"}});
  json r = call("tools/call", {{"name", "search"}, {"arguments", json::object()}});
  EXPECT_EQ(r["error"]["code"], mcp::kInvalidParams);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("query is required"), std::string::npos);
}

TEST_F(Mcp, DocumentsComeInPages) {
  // The tool: a page, the total and where the next page starts; a name filter.
  json first = tool("list_documents", {{"limit", 1}});
  ASSERT_FALSE(first["isError"].get<bool>()) << first.dump();
  const json& a = first["structuredContent"];
  ASSERT_EQ(a["documents"].size(), 1u);
  EXPECT_EQ(a["total"], 2);
  EXPECT_EQ(a["next_offset"], 1);
  EXPECT_NE(first["content"][0]["text"].get<std::string>().find("offset 1"), std::string::npos);
  json second = tool("list_documents", {{"limit", 1}, {"offset", 1}})["structuredContent"];
  ASSERT_EQ(second["documents"].size(), 1u);
  EXPECT_NE(second["documents"][0]["doc"], a["documents"][0]["doc"]);
  EXPECT_TRUE(second["next_offset"].is_null());
  json named = tool("list_documents", {{"name_contains", "ATTENTION"}})["structuredContent"];
  ASSERT_EQ(named["documents"].size(), 1u);
  EXPECT_EQ(named["documents"][0]["doc"], "attention.md");
  EXPECT_EQ(tool("list_documents", {{"name_contains", "zzz"}})["structuredContent"]["total"], 0);
  EXPECT_TRUE(tool("list_documents", {{"limit", 0}})["isError"].get<bool>());
  // resources/list: pages joined by nextCursor; a cursor the server did not give is an error.
  server_.set_page_size(1);
  json p1 = call("resources/list")["result"];
  ASSERT_EQ(p1["resources"].size(), 1u);
  ASSERT_TRUE(p1.contains("nextCursor"));
  json p2 = call("resources/list", {{"cursor", p1["nextCursor"]}})["result"];
  ASSERT_EQ(p2["resources"].size(), 1u);
  EXPECT_FALSE(p2.contains("nextCursor"));
  EXPECT_NE(p1["resources"][0]["uri"], p2["resources"][0]["uri"]);
  EXPECT_EQ(call("resources/list", {{"cursor", "-1"}})["error"]["code"], mcp::kInvalidParams);
  EXPECT_EQ(call("resources/list", {{"cursor", 5}})["error"]["code"], mcp::kInvalidParams);
  EXPECT_TRUE(call("resources/list", {{"cursor", "99"}})["result"]["resources"].empty());
  server_.set_page_size(100);
}

TEST_F(Mcp, DocumentsAreResources) {
  json list = call("resources/list")["result"]["resources"];
  ASSERT_EQ(list.size(), 2u);
  std::string md_uri;
  for (const json& r : list)
    if (r["name"] == "attention.md") md_uri = r["uri"].get<std::string>();
  ASSERT_EQ(md_uri.rfind("mmkg://documents/", 0), 0u);
  json read = call("resources/read", {{"uri", md_uri}})["result"]["contents"][0];
  EXPECT_EQ(read["mimeType"], "text/markdown");
  EXPECT_NE(read["text"].get<std::string>().find("Rottnest Island"), std::string::npos);
  // By file name too; an unknown one, another scheme and no uri are errors.
  EXPECT_EQ(call("resources/read", {{"uri", "mmkg://documents/attention.md"}})["result"]["contents"][0]["uri"],
            "mmkg://documents/attention.md");
  EXPECT_EQ(call("resources/read", {{"uri", "mmkg://documents/nope.md"}})["error"]["code"], mcp::kResourceNotFound);
  EXPECT_EQ(call("resources/read", {{"uri", "file:///etc/passwd"}})["error"]["code"], mcp::kResourceNotFound);
  EXPECT_EQ(call("resources/read")["error"]["code"], mcp::kInvalidParams);
  EXPECT_EQ(call("resources/templates/list")["result"]["resourceTemplates"].size(), 2u);
  // The image document's figure is linked in its Markdown, and readable as a resource.
  json png = call("resources/read", {{"uri", "mmkg://documents/red.png"}})["result"]["contents"][0];
  const std::string text = png["text"];
  const size_t at = text.find("mmkg://figures/");
  ASSERT_NE(at, std::string::npos) << text;
  const std::string fig_uri = text.substr(at, text.find(')', at) - at);
  json blob = call("resources/read", {{"uri", fig_uri}})["result"]["contents"][0];
  EXPECT_EQ(blob["mimeType"], "image/png");
  EXPECT_EQ(base64_decode(blob["blob"].get<std::string>()).substr(0, 4), "\x89PNG");
}

}  // namespace
}  // namespace mmkg::server

namespace mmkg::server {
namespace {

// notifications/cancelled stops the ask it names: its model call is abandoned, no other is made,
// and the request gets no answer. The model is a scripted server that answers only after 3 s.
TEST_F(Mcp, ACancelledAskStopsAndIsNotAnswered) {
  mmkg::testing::ScriptedHttpServer model;
  model.push({mmkg::testing::ScriptedHttpServer::response(200, mmkg::testing::chat_answer("{}")), 0, 3.0});
  Config cfg = *cfg_;
  cfg.llm = model.url("/v1#model=test");
  auto session = Session::open(cfg);
  mcp::McpServer server([&](mcp::Work, const std::function<void(Session&)>& fn) { fn(*session); }, "test");
  mcp::Connection conn;
  json answer = "unset";
  std::thread asker([&] {
    answer = server.handle({{"jsonrpc", "2.0"}, {"id", 7}, {"method", "tools/call"},
                            {"params", {{"name", "ask"}, {"arguments", {{"question", "Where does the quokka live?"}}}}}},
                           conn);
  });
  while (model.request_count() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  mcp::Connection other = conn;
  other.key = "another client";  // the same id on another connection is another request
  EXPECT_TRUE(server.handle({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"},
                             {"params", {{"requestId", 7}}}}, other).is_null());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(answer, "unset");  // still waiting for the model
  EXPECT_TRUE(server.handle({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"},
                             {"params", {{"requestId", 7}, {"reason", "the user stopped it"}}}}, conn).is_null());
  asker.join();
  EXPECT_TRUE(answer.is_null()) << answer.dump();
  EXPECT_EQ(model.request_count(), 1u);
}

}  // namespace
}  // namespace mmkg::server
