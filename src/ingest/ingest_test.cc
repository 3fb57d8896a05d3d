#include "ingest/ingest.h"

#include <gtest/gtest.h>

#include "core/hash.h"
#include "support/pdf_fixtures.h"
#include "support/temp_dir.h"
#include "index/lexical.h"
#include "store/store.h"

namespace mmkg {
namespace {

TEST(Ingest, BatchGoesOnPastBadFilesAndSkipsUnchanged) {
  testing::TempDir in, st;
  for (int i = 0; i < 12; ++i)
    in.write("doc" + std::to_string(i) + ".txt",
             "Title " + std::to_string(i) + "\n\nBody about creature" + std::to_string(i) + " and more words.\n");
  in.write("empty.txt", "");
  in.write("fake.pdf", std::string("\xFF\xD8\xFF\xE0 not a pdf", 14));
  auto store = Store::open(st.str());
  IngestOptions opt;
  opt.threads = 3;
  size_t calls = 0;
  IngestResult r = ingest(*store, {in.str()}, opt, [&](const IngestProgress& p) {
    ++calls;
    EXPECT_LE(p.files_done, p.files_total);
  });
  EXPECT_EQ(r.documents, 12);
  EXPECT_EQ(r.failed.size(), 2u);
  EXPECT_EQ(calls, 14u);
  EXPECT_EQ(bm25_search(*store, "creature7").at(0).doc, "doc7.txt");

  IngestResult again = ingest(*store, {in.str()}, opt);
  EXPECT_EQ(again.documents, 0);
  EXPECT_EQ(again.skipped, 12);
  EXPECT_EQ(again.chunks, 0);
}

TEST(Ingest, ChangedFileReplacesAndDuplicateContentIsStoredOnce) {
  testing::TempDir in, st;
  auto a = in.write("a.txt", "Old words about the okapi.\n");
  auto store = Store::open(st.str());
  ingest(*store, {a}, {});
  in.write("a.txt", "New words about the gerenuk.\n");
  IngestResult r = ingest(*store, {a}, {});
  EXPECT_EQ(r.documents, 1);
  EXPECT_TRUE(bm25_search(*store, "okapi").empty());
  EXPECT_EQ(bm25_search(*store, "gerenuk").size(), 1u);
  auto b = in.write("copy.txt", "New words about the gerenuk.\n");
  IngestResult d = ingest(*store, {b}, {});
  EXPECT_EQ(d.documents, 0);
  EXPECT_EQ(d.skipped, 1);
  EXPECT_EQ(store->documents().size(), 1u);
}

// Issue 13 (session 5): a PDF that an older reader stored (its id the plain hash of its bytes,
// its text without the TeX ligatures) is read again by the next ingest, replaced like an edited
// file; other formats keep the plain hash, so nothing else is re-read.
TEST(Ingest, AFileANewerReaderReadsDifferentlyIsReadAgain) {
  testing::TempDir in, st;
  const std::string bytes = pdf_fixture::write_type3_pdf("the di\x1B" "erent coe\x1E" "cient");
  const std::string pdf = in.write("tex.pdf", bytes);
  const std::string txt = in.write("plain.txt", "A plain file about the okapi.\n");
  EXPECT_EQ(document_id("A plain file about the okapi.\n", "text"), hash_hex("A plain file about the okapi.\n"));
  EXPECT_NE(document_id(bytes, "pdf"), hash_hex(bytes));
  auto store = Store::open(st.str());
  {  // what an mmkg with the first PDF reader stored
    DocumentRecord d;
    d.id = hash_hex(bytes);
    d.path = pdf;
    d.name = "tex.pdf";
    d.format = "pdf";
    d.pages = 1;
    Chunk c;
    c.id = d.id + "-0";
    c.doc_id = d.id;
    c.text = "the dierent coecient";
    c.page_start = c.page_end = 1;
    c.end = static_cast<int64_t>(c.text.size());
    store->put_document(d, c.text, {c}, std::nullopt, "", {});
  }
  ASSERT_EQ(bm25_search(*store, "dierent").size(), 1u);
  IngestResult r = ingest(*store, {pdf, txt}, {});
  EXPECT_EQ(r.documents, 2) << "the PDF read again, the text file read for the first time";
  EXPECT_TRUE(bm25_search(*store, "dierent").empty());
  EXPECT_EQ(bm25_search(*store, "coefficient").size(), 1u);
  EXPECT_EQ(store->documents().size(), 2u);
  EXPECT_FALSE(store->find_by_id(hash_hex(bytes))) << "the old reading is gone";
  IngestResult again = ingest(*store, {pdf, txt}, {});
  EXPECT_EQ(again.documents, 0);
  EXPECT_EQ(again.skipped, 2);
}

TEST(Ingest, ResultIsIndependentOfThreadCount) {
  testing::TempDir in, s1, s4;
  for (int i = 0; i < 20; ++i) {
    std::string body;
    for (int k = 0; k < 50; ++k) body += "Sentence " + std::to_string(k) + " of file " + std::to_string(i) + ". ";
    in.write("f" + std::to_string(i) + ".txt", "Heading\n\n" + body + "\n");
  }
  auto a = Store::open(s1.str());
  auto b = Store::open(s4.str());
  IngestOptions o1, o4;
  o1.threads = 1;
  o4.threads = 4;
  ingest(*a, {in.str()}, o1);
  ingest(*b, {in.str()}, o4);
  auto da = a->documents(), db = b->documents();
  ASSERT_EQ(da.size(), db.size());
  for (size_t i = 0; i < da.size(); ++i) {
    auto ca = a->chunks_of(da[i].id), cb = b->chunks_of(db[i].id);
    ASSERT_EQ(ca.size(), cb.size());
    for (size_t k = 0; k < ca.size(); ++k) EXPECT_EQ(ca[k].chunk.id, cb[k].chunk.id);
  }
}

}  // namespace
}  // namespace mmkg

#include "embed/embedder.h"
#include "core/error.h"

namespace mmkg {
namespace {

TEST(Ingest, EmbedsChunksReportsProgressAndReusesVectors) {
  std::unique_ptr<Embedder> emb;
  try {
    emb = make_embedder("native");
  } catch (const Error& e) {
    GTEST_SKIP() << e.what();
  }
  testing::TempDir in, st;
  std::string body;
  for (int i = 0; i < 600; ++i) body += "Line " + std::to_string(i) + " names animal" + std::to_string(i) + ".\n\n";
  auto f = in.write("many.txt", body);
  auto store = Store::open(st.str());
  IngestOptions opt;
  opt.embedder = emb.get();
  opt.chunker.target_chars = 64;
  opt.chunker.min_chars = 16;
  bool saw_partial = false;
  IngestResult r = ingest(*store, {f}, opt, [&](const IngestProgress& p) {
    if (p.embed_total > 0) {
      EXPECT_LT(p.embed_done, p.embed_total);
      saw_partial = true;
    }
  });
  ASSERT_GT(r.chunks, 256) << "more than one embedding batch";
  EXPECT_EQ(r.embedded, r.chunks);
  EXPECT_TRUE(saw_partial);
  EXPECT_FALSE(r.vector_index.empty());
  // Edit one line: only the chunk(s) that changed are embedded again.
  size_t at = body.find("animal7.");
  body.replace(at, 8, "zebra7.");
  in.write("many.txt", body);
  IngestResult again = ingest(*store, {f}, opt);
  EXPECT_EQ(again.documents, 1);
  EXPECT_GE(again.embedded, 1);
  EXPECT_LE(again.embedded, 3);
  EXPECT_EQ(again.embed_reused + again.embedded, again.chunks);
  EXPECT_EQ(again.vector_index, "updated");
}

}  // namespace
}  // namespace mmkg
