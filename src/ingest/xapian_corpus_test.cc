// The Xapian lexical index that ingest builds, against FTS5, on the sample corpus.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "index/lexical.h"
#include "index/xapian_lexical.h"
#include "ingest/ingest.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;

namespace mmkg {
namespace {

// On a real corpus (examples/corpus), Xapian's top 10 is FTS5's top 10 up to BM25 details
// (document length counts the heading twice, phrase weights): most hits shared, mostly the same
// first hit.
TEST(XapianLexicalCorpus, RanksLikeFts5OnTheSampleCorpus) {
  const fs::path corpus = fs::path(__FILE__).parent_path() / "../../examples/corpus";
  if (!fs::exists(corpus)) GTEST_SKIP() << "examples/corpus not found";
  testing::TempDir dir;
  ::setenv("MMKG_LEXICAL_THRESHOLD", "0", 1);
  auto store = Store::open(dir.str());
  IngestResult r = ingest(*store, {corpus.string()}, IngestOptions{});
  ::unsetenv("MMKG_LEXICAL_THRESHOLD");
  ASSERT_EQ(r.lexical_index.rfind("built", 0), 0u) << r.lexical_index;
  auto index = XapianLexical::open(dir.str());
  ASSERT_TRUE(index);
  const char* questions[] = {"what is multi-head attention?", "how is the learning rate scheduled?",
                             "positional encoding sine cosine", "which optimizer was used?",
                             "what is dropout", "residual connections and layer normalization",
                             "BLEU score on English-German translation", "what does the encoder stack contain?",
                             "scaled dot-product attention", "knowledge graph entity resolution"};
  int same_first = 0, n = 0;
  double overlap = 0;
  for (const char* q : questions) {
    LexicalOptions fo, xo;
    xo.index = index.get();
    std::string served;
    auto f = bm25_match(*store, fts_query(q), fo);
    auto x = bm25_match(*store, fts_query(q), xo, &served);
    ASSERT_EQ(served, "xapian") << q;
    if (f.empty()) continue;
    ++n;
    std::set<std::string> fs_ids;
    for (auto& h : f) fs_ids.insert(h.chunk_id);
    int shared = 0;
    for (auto& h : x) shared += static_cast<int>(fs_ids.count(h.chunk_id));
    overlap += static_cast<double>(shared) / static_cast<double>(f.size());
    same_first += !x.empty() && x[0].chunk_id == f[0].chunk_id;
  }
  ASSERT_GT(n, 5);
  std::printf("xapian vs fts5 on examples/corpus: top-10 overlap %.2f, same first hit %d / %d\n", overlap / n,
              same_first, n);
  EXPECT_GE(overlap / n, 0.7);
  EXPECT_GE(same_first, n * 6 / 10);
}

}  // namespace
}  // namespace mmkg
