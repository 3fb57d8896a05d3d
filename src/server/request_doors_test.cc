// The option tables (app/request_options.h) against the server's front doors: the JSON fields of
// POST /api/ask and /api/search and GET /api/search's parameters (ask_request, search_request),
// the MCP tools' input schemas and their checker, and the entries of openapi.json. Each door must
// take every option the table gives it, with the table's range, choices and default.
#include <gtest/gtest.h>

#include "app/request_options.h"
#include "server/context.h"
#include "server/mcp.h"
#include "app/request_option_samples.h"

namespace mmkg::server {
namespace {

using nlohmann::json;
using mmkg::testing::option_samples;

json openapi() { return json::parse(openapi_document()); }

json mcp_input_schema(const std::string& tool) {
  for (const json& t : mcp::tool_list())
    if (t["name"] == tool) return t["inputSchema"];
  ADD_FAILURE() << "no MCP tool " << tool;
  return json::object();
}

httplib::Request get_search(const std::string& name, const std::string& value) {
  httplib::Request r;
  r.method = "GET";
  r.params.emplace("q", "attention");
  r.params.emplace(name, value);
  return r;
}

httplib::Request post_search(const json& body) {
  httplib::Request r;
  r.method = "POST";
  r.body = body.dump();
  r.set_header("Content-Type", "application/json");
  return r;
}

TEST(RequestDoors, OpenApiDescribesEveryHttpOptionAsTheTableDoes) {
  const json doc = openapi();
  const json& ask = doc["components"]["schemas"]["AskRequest"]["properties"];
  const json& search = doc["components"]["schemas"]["SearchRequest"]["properties"];
  for (const OptionSpec& o : door_options(ask_options(), kDoorHttp)) {
    ASSERT_TRUE(ask.contains(o.name)) << "openapi.json AskRequest lacks " << o.name << "; give it " << o.schema().dump();
    EXPECT_EQ(ask[o.name], o.schema()) << "openapi.json AskRequest." << o.name << " should be " << o.schema().dump();
  }
  std::map<std::string, json> get_params;
  for (const json& p : doc["paths"]["/api/search"]["get"]["parameters"]) get_params[p["name"]] = p["schema"];
  for (const OptionSpec& o : door_options(search_options(), kDoorHttp)) {
    ASSERT_TRUE(search.contains(o.name)) << "openapi.json SearchRequest lacks " << o.name << "; give it " << o.schema().dump();
    EXPECT_EQ(search[o.name], o.schema()) << "SearchRequest." << o.name << " should be " << o.schema().dump();
    ASSERT_TRUE(get_params.count(o.name)) << "GET /api/search lacks the parameter " << o.name;
    EXPECT_EQ(get_params[o.name], o.schema()) << "GET /api/search ?" << o.name << " should be " << o.schema().dump();
  }
  // And nothing in them that is neither an option nor the request's own field.
  for (const auto& [name, _] : ask.items()) {
    if (name == "question" || name == "history" || name == "stream") continue;
    const bool http = std::any_of(ask_options().begin(), ask_options().end(),
                                  [&](const auto& o) { return o.spec.name == name && o.spec.at(kDoorHttp); });
    EXPECT_TRUE(http) << "openapi.json AskRequest has " << name << ", which the table does not give HTTP";
  }
}

TEST(RequestDoors, TheMcpToolsTakeTheTablesOptions) {
  for (const auto& [tool, specs] : {std::pair{std::string("ask"), door_options(ask_options(), kDoorMcp)},
                                    std::pair{std::string("search"), door_options(search_options(), kDoorMcp)}}) {
    const json schema = mcp_input_schema(tool);
    const std::string own = tool == "ask" ? "question" : "query";
    EXPECT_EQ(schema["properties"].size(), specs.size() + 1) << tool;
    for (const OptionSpec& o : specs) {
      ASSERT_TRUE(schema["properties"].contains(o.name)) << "the MCP tool " << tool << " lacks " << o.name;
      EXPECT_EQ(schema["properties"][o.name], o.schema()) << tool << "." << o.name;
      const auto s = option_samples(o);
      for (const json& v : s.good)
        EXPECT_EQ(mcp::schema_violation(schema, {{own, "x"}, {o.name, v}}), "") << tool << "." << o.name << " = " << v;
      for (const json& v : s.bad)
        EXPECT_NE(mcp::schema_violation(schema, {{own, "x"}, {o.name, v}}), "") << tool << "." << o.name << " = " << v;
    }
  }
}

TEST(RequestDoors, TheAskBodyTakesEveryHttpOptionWithinItsRangeAndNothingElse) {
  const AskRequest fresh;
  for (const auto& opt : ask_options()) {
    const OptionSpec& o = opt.spec;
    const auto s = option_samples(o);
    if (!o.at(kDoorHttp)) {
      EXPECT_THROW(ask_request({{"question", "q"}, {o.name, s.good.front()}}, json::object()), UsageError) << o.name;
      continue;
    }
    EXPECT_EQ(opt.get(ask_request({{"question", "q"}}, json::object())), o.fallback) << o.name;
    for (const json& v : s.good)
      EXPECT_EQ(opt.get(ask_request({{"question", "q"}, {o.name, v}}, json::object())), v) << o.name << " = " << v;
    for (const json& v : s.bad)
      EXPECT_THROW(ask_request({{"question", "q"}, {o.name, v}}, json::object()), UsageError) << o.name << " = " << v;
  }
  EXPECT_THROW(ask_request({{"question", "q"}, {"max_round", 2}}, json::object()), UsageError);
}

TEST(RequestDoors, TheServersDefaultsComeUnderTheRequestsOwnOptions) {
  const json defaults = {{"max_rounds", 1}, {"rerank", "none"}, {"parallel", 1}};
  const AskRequest a = ask_request({{"question", "q"}}, defaults);
  EXPECT_EQ(a.options.max_rounds, 1);
  EXPECT_EQ(a.rerank.text(), "none");
  EXPECT_EQ(a.options.retrieve.parallel, 1);  // a serve default the request itself may not set
  const AskRequest b = ask_request({{"question", "q"}, {"max_rounds", 3}}, defaults);
  EXPECT_EQ(b.options.max_rounds, 3);
  EXPECT_EQ(b.rerank.text(), "none");
  EXPECT_TRUE(b.fit_context);
  EXPECT_FALSE(ask_request({{"question", "q"}}, {{"context_chunks", 4}}).fit_context);
  EXPECT_FALSE(ask_request({{"question", "q"}, {"context_tokens", 800}}, json::object()).fit_context);
}

TEST(RequestDoors, SearchTakesItsOptionsAsParametersAndAsBodyFields) {
  for (const auto& opt : search_options()) {
    const OptionSpec& o = opt.spec;
    ASSERT_TRUE(o.at(kDoorHttp)) << o.name;
    const auto s = option_samples(o);
    for (const json& v : s.good) {
      const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
      EXPECT_EQ(opt.get(search_request(get_search(o.name, text))), v) << "GET ?" << o.name << "=" << text;
      EXPECT_EQ(opt.get(search_request(post_search({{"query", "q"}, {o.name, v}}))), v) << "POST " << o.name;
    }
    for (const json& v : s.bad) {
      const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
      EXPECT_THROW(search_request(get_search(o.name, text)), UsageError) << "GET ?" << o.name << "=" << text;
      EXPECT_THROW(search_request(post_search({{"query", "q"}, {o.name, v}})), UsageError) << "POST " << o.name;
    }
  }
  EXPECT_EQ(search_request(get_search("unrelated", "1")).k, SearchRequest{}.k);
  EXPECT_THROW(search_request(post_search({{"query", "q"}, {"top_k", 3}})), UsageError);
}

}  // namespace
}  // namespace mmkg::server
