// The store's vector index file: rebuilt when stale, or used as it is when a reader allows it.
#include "index/vector_store.h"

#include <gtest/gtest.h>

#include <cmath>

#include "store/store.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

void put(Store& store, const std::string& id, int chunks) {
  DocumentRecord doc;
  doc.id = id;
  doc.path = "/c/" + id + ".txt";
  doc.name = id + ".txt";
  doc.format = "text";
  std::vector<Chunk> cs;
  for (int i = 0; i < chunks; ++i) {
    Chunk c;
    c.id = id + "-" + std::to_string(i);
    c.doc_id = id;
    c.seq = i;
    c.text = "chunk " + std::to_string(i) + " of " + id;
    c.vector = {1.0f * i, 1.0f, 0.5f, static_cast<float>(id.size())};
    float n = 0;
    for (float x : c.vector) n += x * x;
    for (float& x : c.vector) x /= std::sqrt(n);
    cs.push_back(c);
  }
  store.put_document(doc, "text", cs, std::nullopt, "m");
}

TEST(VectorStore, AStaleIndexIsRebuiltUnlessAReaderAllowsItAsItIs) {
  testing::TempDir dir;
  auto store = Store::open(dir.str());
  put(*store, "a", 3);
  VectorIndexStatus st;
  EXPECT_EQ(open_vector_index(*store, "m", 4, {}, &st)->size(), 3);  // no file yet: built and saved
  EXPECT_TRUE(st.rebuilt);
  put(*store, "b", 2);  // the file is now an older generation's

  VectorIndexStatus reader;
  auto stale = open_vector_index(*store, "m", 4, {}, &reader, true);
  EXPECT_TRUE(reader.stale);
  EXPECT_FALSE(reader.rebuilt);
  EXPECT_EQ(stale->size(), 3);

  VectorIndexStatus other_model;  // another model's file is never used as it is
  open_vector_index(*store, "m2", 4, {}, &other_model, true);
  EXPECT_FALSE(other_model.stale);

  VectorIndexStatus fresh;
  EXPECT_EQ(open_vector_index(*store, "m", 4, {}, &fresh)->size(), 5);
  EXPECT_TRUE(fresh.rebuilt);
  EXPECT_FALSE(fresh.stale);
  VectorIndexStatus again;  // saved: no longer stale, even for a reader that allows it
  EXPECT_EQ(open_vector_index(*store, "m", 4, {}, &again, true)->size(), 5);
  EXPECT_FALSE(again.stale);
  EXPECT_FALSE(again.rebuilt);
}

}  // namespace
}  // namespace mmkg
