#include "ingest/chunker.h"

#include <gtest/gtest.h>

#include <set>

namespace mmkg {
namespace {

Block para(std::string t, int page = 0) { return Block{BlockKind::Paragraph, 0, std::move(t), page}; }
Block head(std::string t, int level, int page = 0) { return Block{BlockKind::Heading, level, std::move(t), page}; }

std::string sentence(int i) {
  return "Sentence number " + std::to_string(i) + " talks about scaled dot-product attention in detail.";
}

ParsedDocument long_doc() {
  ParsedDocument d;
  d.format = "text";
  d.blocks.push_back(head("Introduction", 1, 1));
  std::string p;
  for (int i = 0; i < 60; ++i) p += sentence(i) + " ";
  d.blocks.push_back(para(p, 1));
  d.blocks.push_back(head("Methods", 2, 2));
  d.blocks.push_back(para(sentence(300) + " " + sentence(301) + " " + sentence(302), 2));
  d.blocks.push_back(head("Results", 2, 3));
  for (int i = 0; i < 5; ++i) d.blocks.push_back(para(sentence(100 + i) + " " + sentence(200 + i), 3));
  return d;
}

TEST(Chunker, RenderedTextAndOffsetsAgree) {
  auto d = long_doc();
  auto r = render_document(d);
  auto chunks = chunk_document(d, r, "doc1");
  ASSERT_FALSE(chunks.empty());
  for (const auto& c : chunks) {
    EXPECT_EQ(c.text, r.text.substr(static_cast<size_t>(c.start), static_cast<size_t>(c.end - c.start)));
    EXPECT_EQ(c.doc_id, "doc1");
  }
  EXPECT_EQ(r.text.rfind("# Introduction", 0), 0u);
}

TEST(Chunker, RespectsTargetSizeAndNeverCutsWords) {
  auto d = long_doc();
  auto r = render_document(d);
  ChunkerOptions o;
  o.target_chars = 400;
  o.overlap_chars = 100;
  auto chunks = chunk_document(d, r, "doc1", o);
  EXPECT_GT(chunks.size(), 8u);
  for (const auto& c : chunks) {
    EXPECT_LE(c.text.size(), 400u + 100u) << c.text;
    // Starts and ends at word boundaries.
    size_t s = static_cast<size_t>(c.start), e = static_cast<size_t>(c.end);
    if (s > 0) { EXPECT_TRUE(isspace(static_cast<unsigned char>(r.text[s - 1])) || ispunct(static_cast<unsigned char>(r.text[s - 1]))) << c.text; }
    if (e < r.text.size()) { EXPECT_TRUE(isspace(static_cast<unsigned char>(r.text[e])) || ispunct(static_cast<unsigned char>(r.text[e - 1]))) << c.text; }
  }
}

TEST(Chunker, SplitsAtHeadingsAndKeepsHeadingPath) {
  auto d = long_doc();
  auto r = render_document(d);
  auto chunks = chunk_document(d, r, "doc1");
  bool saw_results = false;
  for (const auto& c : chunks) {
    if (c.text.find("## Results") != std::string::npos) {
      EXPECT_EQ(c.text.rfind("## Results", 0), 0u) << "a heading starts its chunk";
      EXPECT_EQ(c.heading_path, "Introduction > Results");
      EXPECT_EQ(c.page_start, 3);
      saw_results = true;
    }
  }
  EXPECT_TRUE(saw_results);
  EXPECT_EQ(chunks.front().heading_path, "Introduction");
  EXPECT_EQ(chunks.front().page_start, 1);
}

TEST(Chunker, OverlapRepeatsTrailingSentenceWithinABlock) {
  auto d = long_doc();
  auto r = render_document(d);
  ChunkerOptions o;
  o.target_chars = 500;
  o.overlap_chars = 120;
  auto chunks = chunk_document(d, r, "doc1", o);
  ASSERT_GT(chunks.size(), 2u);
  // Chunks 0 and 1 both lie in the long Introduction paragraph: they overlap.
  EXPECT_LT(chunks[1].start, chunks[0].end);
  EXPECT_GT(chunks[1].end, chunks[0].end);
}

TEST(Chunker, IdsAreStableAndUnique) {
  auto d = long_doc();
  auto r = render_document(d);
  auto a = chunk_document(d, r, "doc1");
  auto b = chunk_document(d, render_document(d), "doc1");
  ASSERT_EQ(a.size(), b.size());
  std::set<std::string> ids;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].seq, static_cast<int>(i));
    ids.insert(a[i].id);
  }
  EXPECT_EQ(ids.size(), a.size());
  auto c = chunk_document(d, r, "doc2");
  EXPECT_NE(a[0].id, c[0].id);
}

TEST(Chunker, HugeWordlessBlockIsSplitAtCharacterBoundaries) {
  ParsedDocument d;
  std::string s;
  for (int i = 0; i < 5000; ++i) s += "\xC3\xA9";  // 'é' x 5000, no spaces
  d.blocks.push_back(para(s));
  auto r = render_document(d);
  auto chunks = chunk_document(d, r, "x");
  ASSERT_GT(chunks.size(), 5u);
  size_t total = 0;
  for (auto& c : chunks) {
    EXPECT_LE(c.text.size(), 1000u);
    EXPECT_EQ(c.text.size() % 2, 0u) << "never splits a UTF-8 character";
    total += c.text.size();
  }
  EXPECT_EQ(total, s.size());
}

TEST(Chunker, SmallSectionsMerge) {
  ParsedDocument d;
  for (int i = 0; i < 6; ++i) {
    d.blocks.push_back(head("H" + std::to_string(i), 2));
    d.blocks.push_back(para("tiny body " + std::to_string(i)));
  }
  auto r = render_document(d);
  auto chunks = chunk_document(d, r, "x");
  EXPECT_EQ(chunks.size(), 1u);
}

TEST(Chunker, EmptyDocumentHasNoChunks) {
  ParsedDocument d;
  auto r = render_document(d);
  EXPECT_TRUE(chunk_document(d, r, "x").empty());
}

}  // namespace
}  // namespace mmkg
