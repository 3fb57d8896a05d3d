// sync_graph over many small documents: their candidate names are embedded in batches of a
// group of documents (NameEmbedding::prefetch), only the names resolution uses reach the store's
// cache, and the graph is the one that embedding each document's names alone builds.
#include <gtest/gtest.h>

#include <set>

#include "core/hash.h"
#include "embed/embedder.h"
#include "graph/build/graph_builder.h"
#include "graph/extract/rules.h"
#include "graph/model/graph_store.h"
#include "store/sqlite_util.h"
#include "store/store.h"
#include "support/store_fixtures.h"
#include "support/temp_dir.h"

namespace mmkg::graph {
namespace {

using mmkg::testing::TempDir;

/// Deterministic vectors seeded by the text's hash; counts its calls and texts.
class CountingEmbedder : public Embedder {
 public:
  std::string id() const override { return "counting"; }
  int dim() const override { return 8; }
  std::vector<float> embed(const std::vector<std::string>& texts, EmbedKind) override {
    ++calls;
    out_texts += texts.size();
    std::vector<float> out;
    for (const auto& t : texts) {
      uint64_t h = std::hash<std::string>{}(t);
      double n = 0;
      std::vector<float> v(8);
      for (float& x : v) x = static_cast<float>((h = h * 6364136223846793005ULL + 1442695040888963407ULL) >> 40) - 8e6f, n += x * x;
      for (float& x : v) out.push_back(static_cast<float>(x / std::sqrt(n)));
    }
    return out;
  }
  int calls = 0;
  size_t out_texts = 0;
};

void put_passages(Store& store, int n) {
  for (int i = 0; i < n; ++i) {
    const std::string id = "d" + std::to_string(i);
    mmkg::testing::put_text_document(store, id, "/p/" + id + ".md",
                               {"Marie Curie" + std::to_string(i) + " worked with Pierre Curie in Paris. "
                                "The Radium Institute" + std::to_string(i) + " opened in 1914."});
  }
}

struct Built {
  GraphStats stats;
  std::set<std::string> entity_names, mentioned_docs;
  int calls;
  long long cached_names;
};

Built build(int docs, bool prefetch) {
  TempDir dir;
  auto store = Store::open(dir.str());
  put_passages(*store, docs);
  auto graph = make_sqlite_graph_store(store->db());
  auto ex = make_rule_extractor();
  CountingEmbedder emb;
  NameEmbedding names = make_name_embedding(*store, &emb);
  GraphSyncOptions o;
  if (prefetch) o.prefetch_names = names.prefetch;
  GraphSyncResult r = sync_graph(*store, *graph, *ex, names.embed, o);
  EXPECT_EQ(r.documents_added, docs);
  Built b{graph->stats(), {}, {}, emb.calls, 0};
  for (const auto& e : graph->entities()) b.entity_names.insert(e.name);
  for (const auto& m : graph->mentions()) b.mentioned_docs.insert(m.doc_id);
  Stmt s(store->db(), "SELECT count(*) FROM embeddings WHERE model = 'counting'");
  s.step();
  b.cached_names = s.i64(0);
  return b;
}

TEST(GraphSyncBatch, NamesOfAGroupOfDocumentsAreEmbeddedTogether) {
  const Built alone = build(40, /*prefetch=*/false), grouped = build(40, /*prefetch=*/true);
  EXPECT_GE(alone.calls, 40) << "a call per document at least";
  EXPECT_LE(grouped.calls, 2) << "40 one-chunk documents make one group";
  // The same graph either way, and the store keeps the names resolution asked for only.
  EXPECT_EQ(grouped.entity_names, alone.entity_names);
  EXPECT_EQ(grouped.stats.entities, alone.stats.entities);
  EXPECT_EQ(grouped.stats.relations, alone.stats.relations);
  EXPECT_EQ(grouped.cached_names, alone.cached_names);
  EXPECT_GT(grouped.cached_names, 0);
}

TEST(GraphSyncBatch, GroupsAreBoundedAndEveryDocumentIsBuilt) {
  const Built b = build(150, /*prefetch=*/true);  // more than one group of 64
  EXPECT_GE(b.calls, 3);
  EXPECT_LE(b.calls, 8);
  EXPECT_FALSE(b.entity_names.empty());
  EXPECT_EQ(b.mentioned_docs.size(), 150u) << "every group's documents are in the graph";
}

long long cached_names(Store& store) {
  Stmt s(store.db(), "SELECT count(*) FROM embeddings WHERE model = 'counting'");
  s.step();
  return s.i64(0);
}

TEST(NameEmbedding, AQuestionsNamesAreReadFromTheStoreAndNeverWrittenToIt) {
  TempDir dir;
  auto store = Store::open(dir.str());
  CountingEmbedder emb;
  const std::vector<float> curie = make_name_embedding(*store, &emb).embed({"Marie Curie"}).at(0);
  ASSERT_EQ(cached_names(*store), 1);  // ingest keeps the names it resolved
  const int before = emb.calls;
  EmbedNames query = make_embed_names(*store, &emb);
  const auto vecs = query({"Marie Curie", "the Radium Institute"});
  EXPECT_EQ(vecs.at(0), curie) << "the stored vector, as ingest left it";
  EXPECT_EQ(emb.calls, before + 1);
  EXPECT_EQ(emb.out_texts, 2u) << "only the name the store lacks is embedded";
  EXPECT_EQ(cached_names(*store), 1) << "asking writes nothing";
  EXPECT_EQ(query({"the Radium Institute"}).at(0), vecs.at(1));
  EXPECT_EQ(emb.calls, before + 1) << "kept in memory for the session's next question";
}

}  // namespace
}  // namespace mmkg::graph
