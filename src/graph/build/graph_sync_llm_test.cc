// The graph sync (graph/build) with the LLM extractor: the extraction cache, failures that are
// not cached, parallelism; and a sync that only removes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "graph/build/graph_builder.h"
#include "graph/extract/extract_llm.h"
#include "graph/extract/rules.h"
#include "graph/model/graph_store.h"
#include "llm/openai_chat.h"
#include "store/sqlite_util.h"
#include "store/store.h"
#include "support/llm_extract_fixtures.h"
#include "support/memory_graph_store.h"
#include "support/scripted_http_server.h"
#include "support/store_fixtures.h"
#include "support/temp_dir.h"

namespace mmkg::graph {
namespace {

using mmkg::testing::ScriptedHttpServer;
using mmkg::testing::TempDir;
using namespace llm_extract_fixture;

// ---- through sync_graph: the extraction cache, failures that are not cached, parallelism

// A store holding one document, notes.md, with one chunk per text.
struct Corpus {
  TempDir dir;
  std::unique_ptr<Store> store;
  explicit Corpus(const std::vector<std::string>& chunks) {
    store = Store::open(dir.file("store"), true);
    mmkg::testing::put_text_document(*store, "d1", dir.file("notes.md"), chunks);
  }
  long long cached_rows() {
    Stmt s(store->db(), "SELECT count(*) FROM extractions WHERE extractor LIKE 'llm-v1:%'");
    return s.step() ? s.i64(0) : -1;
  }
};

TEST(LlmExtractSync, ASecondBuildOfTheSameTextMakesNoRequest) {
  Corpus corpus({kText});
  ScriptedHttpServer s;
  s.push_json(200, answer(graph({ent("BERT", "model", "A language model."), ent("BooksCorpus", "dataset")},
                                {rel("BERT", "BooksCorpus", "uses", "BERT is pre-trained on BooksCorpus.")})));
  s.push_json(200, answer(graph({})));
  OpenAiChat chat(config(s), no_sleep());
  auto ex = make_llm_extractor(chat, {});
  auto gs = make_sqlite_graph_store(corpus.store->db());
  GraphSyncResult r = sync_graph(*corpus.store, *gs, *ex, {});
  EXPECT_EQ(r.extractor, ex->id());
  EXPECT_EQ(r.chunks_extracted, 1);
  EXPECT_EQ(r.model.model_calls, 2);
  EXPECT_EQ(r.model.prompt_tokens, 200);
  EXPECT_EQ(s.request_count(), 2u);
  auto rels = gs->relations();
  ASSERT_EQ(rels.size(), 1u);
  EXPECT_EQ(rels[0].type, "uses");
  EXPECT_EQ(rels[0].description, "BERT is pre-trained on BooksCorpus.");
  bool typed = false;
  for (const auto& e : gs->entities()) typed = typed || (e.name == "BooksCorpus" && e.type == "dataset");
  EXPECT_TRUE(typed);

  // Another backend builds the same document again: every extraction comes from the cache.
  testing::MemoryGraphStore other;
  GraphSyncOptions o;
  o.backend_key = "memory";
  GraphSyncResult again = sync_graph(*corpus.store, other, *ex, {}, o);
  EXPECT_EQ(again.documents_added, 1);
  EXPECT_EQ(again.extractions_cached, 1);
  EXPECT_EQ(again.chunks_extracted, 0);
  EXPECT_EQ(again.model.model_calls, 0);
  EXPECT_EQ(s.request_count(), 2u);
  EXPECT_EQ(other.relations().size(), 1u);
}

TEST(GraphSync, WithoutAddDocumentsItOnlyRemoves) {
  // What `mmkg delete` runs: a document the graph lacks (its build pending for ingest's
  // extractor) is not built; one the store no longer has is removed.
  Corpus corpus({kText});
  auto rules = make_rule_extractor();
  testing::MemoryGraphStore gs;
  GraphSyncOptions only_remove;
  only_remove.backend_key = "memory";
  only_remove.add_documents = false;
  GraphSyncResult none = sync_graph(*corpus.store, gs, *rules, {}, only_remove);
  EXPECT_EQ(none.documents_added, 0);
  EXPECT_EQ(none.chunks_extracted, 0);
  EXPECT_EQ(graph_document_count(*corpus.store, "memory"), 0);
  GraphSyncOptions full;
  full.backend_key = "memory";
  EXPECT_EQ(sync_graph(*corpus.store, gs, *rules, {}, full).documents_added, 1);
  ASSERT_GT(gs.entities().size(), 0u);
  for (const auto& d : corpus.store->documents()) corpus.store->delete_document(d.id);
  GraphSyncResult removed = sync_graph(*corpus.store, gs, *rules, {}, only_remove);
  EXPECT_EQ(removed.documents_removed, 1);
  EXPECT_EQ(gs.entities().size(), 0u);
}

TEST(LlmExtractSync, AFallbackIsCachedButATransportFailureIsNot) {
  Corpus corpus({kText});
  ScriptedHttpServer s;
  for (int i = 0; i < 2; ++i) s.push_json(503, R"({"error":{"message":"overloaded"}})");
  OpenAiChat chat(config(s), no_sleep());
  auto ex = make_llm_extractor(chat, {});
  auto gs = make_sqlite_graph_store(corpus.store->db());
  EXPECT_THROW(sync_graph(*corpus.store, *gs, *ex, {}), Error);
  EXPECT_EQ(corpus.cached_rows(), 0);
  EXPECT_EQ(graph_document_count(*corpus.store, "sqlite"), 0);

  // The next run resumes; this time the answer is garbage: rules, cached under the LLM id.
  s.push_json(200, raw_answer("no"));
  s.push_json(200, raw_answer("still no"));
  GraphSyncResult r = sync_graph(*corpus.store, *gs, *ex, {});
  EXPECT_EQ(r.documents_added, 1);
  EXPECT_EQ(r.model.fallbacks, 1);
  EXPECT_GT(r.stats.entities, 0);
  EXPECT_EQ(corpus.cached_rows(), 1);
  const size_t before = s.request_count();
  testing::MemoryGraphStore other;
  GraphSyncOptions o;
  o.backend_key = "memory";
  EXPECT_EQ(sync_graph(*corpus.store, other, *ex, {}, o).model.model_calls, 0);
  EXPECT_EQ(s.request_count(), before);
}

TEST(LlmExtractSync, ChunksAreExtractedAsManyAtOnceAsTheExtractorAsks) {
  std::vector<std::string> paragraphs;
  for (int i = 0; i < 4; ++i)
    paragraphs.push_back("Paragraph " + std::to_string(i) + " is about attention and nothing else at all here.");
  Corpus corpus(paragraphs);
  ASSERT_GE(corpus.store->stats().chunks, 4);
  ScriptedHttpServer s;
  for (int i = 0; i < 16; ++i)
    s.push({ScriptedHttpServer::response(200, answer(graph({ent("attention", "concept")}))), 0, 0.3});
  OpenAiChat chat(config(s, 2), no_sleep());
  LlmExtractOptions lo;
  lo.parallelism = 2;
  lo.gleaning = false;
  auto ex = make_llm_extractor(chat, lo);
  testing::MemoryGraphStore g;
  GraphSyncOptions o;
  o.backend_key = "memory";
  GraphSyncResult r = sync_graph(*corpus.store, g, *ex, {}, o);
  EXPECT_EQ(r.model.model_calls, corpus.store->stats().chunks);
  EXPECT_EQ(chat.max_in_flight(), 2);
}

}  // namespace
}  // namespace mmkg::graph
