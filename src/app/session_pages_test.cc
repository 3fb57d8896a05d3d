// The page view through the Session: a PDF ingested for real keeps its chunks' page boxes,
// page_image renders a page with a chunk highlighted and refuses what it cannot render,
// chunk_info and the JSON carry the boxes, check() passes and delete removes them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "app/json.h"
#include "app/session.h"
#include "core/error.h"
#include "store/sqlite_util.h"
#include "support/pdf_fixtures.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

using testing::TempDir;

class SessionPagesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    using namespace pdf_fixture;
    PageSpec p1;
    p1.runs.push_back({72, 80, 18, "Quokka Habitat", true});
    add_lines(p1, 72, 120, 11, 14,
              {"The quokka lives on Rottnest Island off the coast of Western Australia",
               "where it shelters in dense scrub during the hottest hours of the day",
               "and comes out at dusk, when the air is cooler, to look for food along",
               "the paths and the edges of the salt lakes in the middle of the island."});
    PageSpec p2;
    p2.runs.push_back({72, 80, 18, "Quokka Diet", true});
    add_lines(p2, 72, 400, 11, 14,
              {"The quokka drinks little water because it gets most of what it needs",
               "from the succulent plants that it eats every night."});
    pdf = dir.write("docs/q.pdf", write_pdf({p1, p2}));
    dir.write("docs/notes.md", "# Notes\n\nA quokka note in Markdown, which has no pages.\n");
    cfg.store = dir.str() + "/store";
    cfg.embedder = EmbedderSpec::parse("none");
    cfg.graph = GraphBackend::parse("none");
    s = Session::open(cfg, /*create=*/true);
    IngestRequest req;
    req.paths = {dir.str() + "/docs"};
    IngestReport r = s->ingest(req);
    EXPECT_EQ(r.files.documents, 2);
    EXPECT_TRUE(r.files.failed.empty());
  }

  /// The id of the PDF chunk whose text contains `needle`.
  std::string chunk_with(const std::string& needle) {
    for (const auto& d : s->store().documents())
      for (const StoredChunk& c : s->store().chunks_of(d.id))
        if (c.chunk.text.find(needle) != std::string::npos) return c.chunk.id;
    ADD_FAILURE() << "no chunk with " << needle;
    return "";
  }

  TempDir dir;
  std::string pdf;
  Config cfg;
  std::unique_ptr<Session> s;
};

TEST_F(SessionPagesTest, RendersAPageWithTheChunkHighlighted) {
  const std::string id = chunk_with("succulent");
  ChunkReport info = s->chunk_info(id);
  EXPECT_EQ(info.format, "pdf");
  EXPECT_EQ(info.chunk.doc_name, "q.pdf");
  ASSERT_FALSE(info.chunk.chunk.boxes.empty());
  for (const PageBox& b : info.chunk.chunk.boxes) EXPECT_EQ(b.page, 2);
  nlohmann::json j = chunk_json(info);
  EXPECT_EQ(j["chunk_id"], id);
  EXPECT_EQ(j["page"], 2);
  ASSERT_EQ(j["boxes"].size(), info.chunk.chunk.boxes.size());
  EXPECT_EQ(j["boxes"][0]["page"], 2);
  EXPECT_LT(j["boxes"][0]["y0"].get<double>(), j["boxes"][0]["y1"].get<double>());

  PageImage img = s->page_image("q.pdf", 2, id, 1.0);
  EXPECT_EQ(img.png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(img.boxes, static_cast<int>(info.chunk.chunk.boxes.size()));
  EXPECT_NEAR(img.width, 612, 1);
  EXPECT_EQ(img.pages, 2);
  EXPECT_EQ(img.doc, "q.pdf");
  EXPECT_EQ(img.chunk_id, id);
  EXPECT_EQ(page_image_json(img)["boxes"], img.boxes);
  // By id prefix, without a chunk: no highlight.
  PageImage plain = s->page_image(info.chunk.chunk.doc_id.substr(0, 8), 2, "", 2.0);
  EXPECT_EQ(plain.boxes, 0);
  EXPECT_NEAR(plain.width, 1224, 1);
  EXPECT_NE(plain.png, img.png);
}

TEST_F(SessionPagesTest, SearchHitsCarryTheirBoxes) {
  SearchRequest req;
  req.query = "succulent plants";
  req.mode = SearchMode::Bm25;
  SearchReport r = s->search(req);
  ASSERT_FALSE(r.hits.empty());
  EXPECT_EQ(r.hits[0].doc, "q.pdf");
  EXPECT_FALSE(r.hits[0].boxes.empty());
  nlohmann::json j = search_json(r);
  EXPECT_EQ(j["results"][0]["boxes"][0]["page"], 2);
  req.query = "Markdown note";
  r = s->search(req);
  ASSERT_FALSE(r.hits.empty());
  EXPECT_EQ(r.hits[0].doc, "notes.md");
  EXPECT_TRUE(search_json(r)["results"][0]["boxes"].empty());
}

template <typename E, typename F>
void expect_page_error(F&& fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "expected an error containing '" << needle << "'";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST_F(SessionPagesTest, RefusesWhatItCannotRender) {
  const std::string on_two = chunk_with("succulent");
  const std::string md_chunk = chunk_with("Markdown");
  expect_page_error<UsageError>([&] { s->page_image("notes.md", 1, "", 1); }, "has no pages to render");
  expect_page_error<NotFoundError>([&] { s->page_image("q.pdf", 3, "", 1); }, "no page 3; it has 2 pages");
  expect_page_error<NotFoundError>([&] { s->page_image("q.pdf", 0, "", 1); }, "no page 0");
  expect_page_error<NotFoundError>([&] { s->page_image("other.pdf", 1, "", 1); }, "no such document");
  expect_page_error<NotFoundError>([&] { s->page_image("q.pdf", 1, "0123456789abcdef", 1); }, "no such chunk");
  expect_page_error<UsageError>([&] { s->page_image("q.pdf", 1, on_two, 1); }, "is on page 2 of q.pdf, not on page 1");
  expect_page_error<UsageError>([&] { s->page_image("q.pdf", 1, md_chunk, 1); }, "belongs to notes.md");
  expect_page_error<NotFoundError>([&] { s->chunk_info("0123456789abcdef"); }, "no such chunk");
  // The file changed after ingest: its boxes may be wrong, so no highlight; a plain page is fine.
  dir.write("docs/q.pdf", pdf_fixture::write_pdf({pdf_fixture::body_page("a"), pdf_fixture::body_page("b")}));
  expect_page_error<InputError>([&] { s->page_image("q.pdf", 2, on_two, 1); }, "ingest it again");
  EXPECT_EQ(s->page_image("q.pdf", 2, "", 1).boxes, 0);
  std::filesystem::remove(pdf);
  expect_page_error<InputError>([&] { s->page_image("q.pdf", 1, "", 1); }, "file not found");
}

TEST_F(SessionPagesTest, CheckPassesAndDeleteRemovesTheBoxes) {
  auto boxes = [&] {
    Stmt st(s->store().db(), "SELECT count(*) FROM chunk_boxes");
    st.step();
    return st.i64(0);
  };
  EXPECT_GT(boxes(), 0);
  CheckReport c = s->check();
  for (const auto& ch : c.checks) EXPECT_TRUE(ch.ok) << ch.name << ": " << ch.detail;
  RemoveReport r = s->remove({"q.pdf"});
  ASSERT_EQ(r.deleted.size(), 1u);
  EXPECT_EQ(boxes(), 0);
  // A box left without its chunk (written around the store's API) fails the chunks check.
  s->store().exec("INSERT INTO chunk_boxes VALUES (987654, 0, 1, 0, 0, 1, 1)");
  bool chunks_ok = true;
  for (const auto& ch : s->check().checks)
    if (ch.name == "chunks") chunks_ok = ch.ok;
  EXPECT_FALSE(chunks_ok);
}

}  // namespace
}  // namespace mmkg
