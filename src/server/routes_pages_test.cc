// The page routes on a real loopback server over a real store: a page as PNG with a chunk
// highlighted, a chunk as JSON, and the errors as JSON with the right status.
#include <gtest/gtest.h>

#include "app/session.h"
#include "server/context.h"
#include "server/workspaces.h"
#include "support/loopback_http.h"
#include "support/pdf_fixtures.h"
#include "support/temp_dir.h"

namespace mmkg::server {
namespace {

using nlohmann::json;

TEST(PageRoutes, ServeAPageAsPngAndAChunkAsJson) {
  mmkg::testing::TempDir dir;
  using namespace pdf_fixture;
  PageSpec p1;
  add_lines(p1, 72, 120, 11, 14,
            {"The quokka lives on Rottnest Island off the coast of Western Australia",
             "where it shelters in dense scrub during the hottest hours of the day."});
  dir.write("docs/q.pdf", write_pdf({p1, body_page("second")}));
  dir.write("docs/n.md", "# Notes\n\nNo pages here.\n");
  Config cfg;
  cfg.store = dir.str() + "/store";
  cfg.embedder = EmbedderSpec::parse("none");
  cfg.graph = GraphBackend::parse("none");
  auto meta = Session::open(cfg, true);
  IngestRequest req;
  req.paths = {dir.str() + "/docs"};
  ASSERT_EQ(meta->ingest(req).files.documents, 2);
  std::string chunk_id, doc_id, md_chunk;
  for (const auto& d : meta->store().documents()) {
    if (d.name == "q.pdf") doc_id = d.id, chunk_id = meta->store().chunks_of(d.id).at(0).chunk.id;
    if (d.name == "n.md") md_chunk = meta->store().chunks_of(d.id).at(0).chunk.id;
  }

  Metrics metrics;
  ServeOptions opt;
  opt.workers = 1;
  Workspaces spaces(opt, metrics);
  spaces.open("default", cfg);
  AccessPolicy open;
  open.auth = Auth::None;
  Http http(open, metrics, false);
  add_page_routes(http, spaces);
  mmkg::testing::LoopbackHttp running(http);
  const int port = running.port();

  httplib::Client cli("127.0.0.1", port);
  auto r = cli.Get("/api/documents/q.pdf/pages/1/image?chunk=" + chunk_id + "&zoom=1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "image/png");
  EXPECT_EQ(r->body.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(r->get_header_value("X-Page-Count"), "2");
  EXPECT_NE(r->get_header_value("X-Highlight-Boxes"), "0");
  EXPECT_EQ(cli.Get("/api/documents/" + doc_id.substr(0, 6) + "/pages/2/image")->status, 200);

  auto c = cli.Get("/api/chunks/" + chunk_id);
  ASSERT_EQ(c->status, 200);
  json j = json::parse(c->body);
  EXPECT_EQ(j["doc"], "q.pdf");
  EXPECT_EQ(j["format"], "pdf");
  EXPECT_EQ(j["boxes"][0]["page"], 1);

  auto code = [&](const std::string& path) {
    auto x = cli.Get(path);
    return std::to_string(x->status) + " " + json::parse(x->body)["error"]["code"].get<std::string>();
  };
  EXPECT_EQ(code("/api/documents/q.pdf/pages/3/image"), "404 not_found");
  EXPECT_EQ(code("/api/documents/q.pdf/pages/99999999999/image"), "404 not_found");
  EXPECT_EQ(code("/api/documents/nope.pdf/pages/1/image"), "404 not_found");
  EXPECT_EQ(code("/api/documents/n.md/pages/1/image"), "400 bad_request");
  EXPECT_EQ(code("/api/documents/q.pdf/pages/1/image?zoom=big"), "400 bad_request");
  EXPECT_EQ(code("/api/documents/q.pdf/pages/1/image?chunk=" + md_chunk), "400 bad_request");
  EXPECT_EQ(code("/api/chunks/0123456789abcdef"), "404 not_found");
  // In a workspace by name: the prefix keeps the route's two groups; a workspace the server does
  // not hold is 404.
  EXPECT_EQ(cli.Get("/w/default/api/documents/q.pdf/pages/2/image")->status, 200);
  EXPECT_EQ(cli.Get("/api/chunks/" + chunk_id, {{"X-MMKG-Workspace", "default"}})->status, 200);
  EXPECT_EQ(code("/w/other/api/chunks/" + chunk_id), "404 not_found");
}

}  // namespace
}  // namespace mmkg::server
