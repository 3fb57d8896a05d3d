// The same search tests against every lexical backend: the store's FTS5 index (graph in SQLite),
// the store's Xapian index (large stores; here forced with MMKG_LEXICAL_THRESHOLD=0) and the
// full-text index of a real Neo4j graph (--graph neo4j://..., started once per run by
// support/neo4j_server.h for the tests whose name says neo4j). Through the Session, as the CLI,
// the server and eval search: search, search_many (ask's sub-queries, with the planner's NEAR
// and AND expressions), hybrid fusion, and deletion.
#include <gtest/gtest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "app/json.h"
#include "app/session.h"
#include "embed/embedder.h"
#include "graph/model/graph_store.h"
#include "net/neo4j_query.h"
#include "index/searcher.h"
#include "graph/stores/graph_store_impl.h"
#include "support/embed_fixtures.h"
#include "support/neo4j_server.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

using testing::TempDir;

class SessionSearchBackends : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    docs_ = dir_.str() + "/docs";
    dir_.write("docs/attention.md",
               "# Attention\n\nAttention lets a model weigh every token of a sequence when it encodes one "
               "token. Multi-Head Attention (MHA) runs several attention heads in parallel.\n\n"
               "## Softmax\n\nThe softmax turns the attention scores into weights that sum to one.\n");
    dir_.write("docs/rnn.txt",
               "Recurrent networks read a sequence one step at a time. Their training is slow because the "
               "steps cannot run in parallel.\n");
    dir_.write("docs/tides.txt",
               "Tides are the rise and fall of sea levels. The gravitational pull of the moon raises the "
               "oceans on the side of the Earth facing it.\n");
    dir_.write("docs/bread_making.txt",
               "Sourdough bread rises because wild yeast ferments the flour and releases carbon dioxide. "
               "A platypus has nothing to do with baking.\n");
    cfg_.store = dir_.str() + "/store";
    cfg_.embedder = EmbedderSpec::parse("none");  // BM25 unless a test loads the model
    cfg_.warn = [this](const std::string& w) { warnings_.push_back(w); };
    if (GetParam() == "xapian") ::setenv("MMKG_LEXICAL_THRESHOLD", "0", 1);
    if (neo4j()) {
      std::string url;
      MMKG_REQUIRE_NEO4J(url);
      graph::make_neo4j_graph_store(url)->clear();  // chunk nodes of another test's store
      cfg_.graph = GraphBackend::parse(url);
    }
  }

  void TearDown() override { ::unsetenv("MMKG_LEXICAL_THRESHOLD"); }

  bool neo4j() const { return GetParam() == "neo4j"; }

  std::unique_ptr<Session> ingested() {
    auto s = Session::open(cfg_, /*create=*/true);
    IngestRequest req;
    req.paths = {docs_};
    IngestReport r = s->ingest(req);
    EXPECT_EQ(r.files.documents, 4);
    EXPECT_TRUE(r.graph.has_value());
    return s;
  }

  SearchReport search(Session& s, const std::string& q, SearchMode mode = SearchMode::Bm25, int k = 5) {
    SearchReport r = s.search({.query = q, .k = k, .mode = mode});
    if (mode != SearchMode::Dense) {
      EXPECT_EQ(r.lexical_backend, GetParam()) << q;
    }
    return r;
  }

  TempDir dir_;
  std::string docs_;
  Config cfg_;
  std::vector<std::string> warnings_;
};

TEST_P(SessionSearchBackends, Bm25FindsThePassagesWithTheQuerysWords) {
  auto s = ingested();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"softmax weights", "attention.md"},
      {"recurrent networks training", "rnn.txt"},
      {"why does the sea rise?", "tides.txt"},          // stemming: "rise" in the text too
      {"how does sourdough bread rise", "bread_making.txt"},
      {"bread making", "bread_making.txt"},             // the document's name (context column)
      {"MULTI-HEAD attention", "attention.md"},          // case and hyphen
      {"what is (the) \"attention\"?", "attention.md"},  // query punctuation is text
  };
  for (const auto& [q, doc] : cases) {
    SearchReport r = search(*s, q);
    ASSERT_FALSE(r.hits.empty()) << q;
    EXPECT_EQ(r.hits[0].doc, doc) << q;
    EXPECT_FALSE(r.hits[0].text.empty()) << q;
    EXPECT_GT(r.hits[0].rowid, 0) << q << ": a full hit, read from the store";
    for (size_t i = 1; i < r.hits.size(); ++i) EXPECT_LE(r.hits[i].score, r.hits[i - 1].score) << q;
  }
  EXPECT_TRUE(search(*s, "zeppelin").hits.empty());
  const nlohmann::json j = search_json(search(*s, "softmax"));
  EXPECT_EQ(j["lexical_backend"], GetParam());
  EXPECT_TRUE(j["dense_backend"].is_null());
}

TEST_P(SessionSearchBackends, SearchManyAndItsThreadsGiveWhatOneByOneGives) {
  auto s = ingested();
  Searcher& searcher = s->searcher();
  EXPECT_EQ(searcher.lexical_backend(), GetParam());
  const std::vector<SearchQuery> queries = {
      {.text = "softmax weights"},
      {.text = "moon", .match = "\"moon\" AND (\"tides\" OR \"oceans\")"},
      {.text = "attention is", .match = "NEAR(\"attention\" \"lets\", 2) OR NEAR(\"bread\" \"rises\", 2)"},
      {.text = "sequence", .lexical_only = true, .k = 2},
  };
  SearchOptions o;
  o.mode = SearchMode::Bm25;
  o.k = 3;
  for (int parallel : {0, 1, 3}) {
    auto many = searcher.search_many(queries, o, parallel);
    ASSERT_EQ(many.size(), queries.size());
    for (size_t i = 0; i < queries.size(); ++i) {
      SearchOptions one_o = o;
      if (queries[i].k) one_o.k = queries[i].k;
      auto one = searcher.search_match(queries[i].match.empty() ? fts_query(queries[i].text) : queries[i].match,
                                       queries[i].text, one_o);
      ASSERT_EQ(many[i].size(), one.size()) << "parallel " << parallel << " query " << i;
      for (size_t h = 0; h < one.size(); ++h) EXPECT_EQ(many[i][h].chunk_id, one[h].chunk_id) << i << " " << h;
    }
  }
  auto many = searcher.search_many(queries, o, 2);
  ASSERT_EQ(many[1].size(), 1u) << "AND: the tides chunk only";
  EXPECT_EQ(many[1][0].doc, "tides.txt");
  ASSERT_EQ(many[2].size(), 2u) << "NEAR: the two chunks where the words are close";
  EXPECT_EQ(many[3].size(), 2u) << "its own k";
}

TEST_P(SessionSearchBackends, AskFindsItsEvidenceThroughTheBackend) {
  auto s = ingested();
  AskRequest ar;
  ar.question = "What does the softmax turn attention scores into?";
  AskResult a = s->ask(ar);
  ASSERT_TRUE(a.found) << a.answer;
  ASSERT_FALSE(a.citations.empty());
  EXPECT_EQ(a.citations[0].doc, "attention.md");
  ar.question = "What is multi-head attention?";  // a definition: the planner's NEAR sub-query
  a = s->ask(ar);
  ASSERT_TRUE(a.found) << a.answer;
  EXPECT_EQ(a.citations.at(0).doc, "attention.md");
}

TEST_P(SessionSearchBackends, DeletingADocumentRemovesItsChunksFromSearch) {
  auto s = ingested();
  ASSERT_FALSE(search(*s, "platypus").hits.empty());
  RemoveReport rr = s->remove({"bread_making.txt"});
  ASSERT_EQ(rr.deleted.size(), 1u);
  EXPECT_TRUE(search(*s, "platypus").hits.empty());
  EXPECT_TRUE(search(*s, "sourdough yeast").hits.empty());
  if (neo4j()) {  // gone from Neo4j's index itself, not only skipped as missing from the store
    EXPECT_TRUE(s->graph_store()->text_search("\"platypus\"", 10).empty());
    EXPECT_FALSE(s->graph_store()->text_search("\"tides\"", 10).empty());
  }
  // A new session decides again: the graph still holds every document.
  auto again = Session::open(cfg_);
  EXPECT_TRUE(search(*again, "platypus").hits.empty());
  EXPECT_FALSE(search(*again, "tides").hits.empty());
}

TEST_P(SessionSearchBackends, HybridFusesTheBackendsLexicalList) {
  MMKG_REQUIRE_MINILM(model);
  cfg_.embedder = EmbedderSpec::parse("native");
  auto s = ingested();
  // (Not "why does dough rise": "rise" is in two of the four chunks, which FTS5's bm25 scores
  // alike, an idf of 0, while Lucene's bm25 ranks the shorter one first; the fusion follows.)
  SearchReport r = search(*s, "why does sourdough rise", SearchMode::Hybrid);
  EXPECT_EQ(r.mode, SearchMode::Hybrid);
  EXPECT_EQ(r.dense_backend, neo4j() ? "neo4j" : "faiss");
  ASSERT_FALSE(r.hits.empty());
  EXPECT_EQ(r.hits[0].doc, "bread_making.txt");
  r = search(*s, "moon pulls the oceans", SearchMode::Hybrid);
  ASSERT_FALSE(r.hits.empty());
  EXPECT_EQ(r.hits[0].doc, "tides.txt");
  EXPECT_TRUE(search(*s, "moon", SearchMode::Dense).lexical_backend.empty());
}

INSTANTIATE_TEST_SUITE_P(Lexical, SessionSearchBackends, ::testing::Values("fts5", "xapian", "neo4j"),
                         [](const auto& info) { return info.param; });

// Without the whole store in the graph (ingested with --extract none), the Neo4j full-text index
// does not serve search: FTS5 does, and -v says why.
TEST(SessionSearchBackendsNeo4j, AGraphWithoutEveryDocumentLeavesSearchToFts5) {
  std::string url;
  MMKG_REQUIRE_NEO4J(url);
  graph::make_neo4j_graph_store(url)->clear();
  TempDir dir;
  dir.write("docs/a.txt", "The platypus lays eggs.\n");
  Config cfg;
  cfg.store = dir.str() + "/store";
  cfg.embedder = EmbedderSpec::parse("none");
  cfg.graph = GraphBackend::parse(url);
  cfg.verbose = true;
  std::vector<std::string> warnings;
  cfg.warn = [&](const std::string& w) { warnings.push_back(w); };
  auto s = Session::open(cfg, true);
  IngestRequest req;
  req.paths = {dir.str() + "/docs"};
  req.extract = ExtractMode::None;
  s->ingest(req);
  SearchReport r = s->search({.query = "platypus", .k = 3, .mode = SearchMode::Bm25});
  EXPECT_EQ(r.lexical_backend, "fts5");
  ASSERT_EQ(r.hits.size(), 1u);
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings.back().find("1 document is not in the Neo4j graph"), std::string::npos) << warnings.back();
}

// A graph an mmkg before graph schema 4 built: chunk nodes without their text. Search warns and
// uses FTS5 until the next ingest copies the text; then Neo4j serves it.
TEST(SessionSearchBackendsNeo4j, AnOlderGraphGetsItsChunkTextOnTheNextIngest) {
  std::string url;
  MMKG_REQUIRE_NEO4J(url);
  graph::make_neo4j_graph_store(url)->clear();
  TempDir dir;
  dir.write("docs/a.txt", "The platypus lays eggs.\n");
  dir.write("docs/b.txt", "The echidna has spines.\n");
  Config cfg;
  cfg.store = dir.str() + "/store";
  cfg.embedder = EmbedderSpec::parse("none");
  cfg.graph = GraphBackend::parse(url);
  std::vector<std::string> warnings;
  cfg.warn = [&](const std::string& w) { warnings.push_back(w); };
  IngestRequest req;
  req.paths = {dir.str() + "/docs"};
  Session::open(cfg, true)->ingest(req);
  Neo4jClient c(parse_neo4j_url(url));
  c.run("MATCH (c:Chunk) REMOVE c.text, c.heading_path, c.context");
  c.run("MATCH (m:MmkgGraphMeta {key: 'graph'}) SET m.schema_version = 3");
  {
    auto s = Session::open(cfg);
    SearchReport r = s->search({.query = "platypus", .k = 3, .mode = SearchMode::Bm25});
    EXPECT_EQ(r.lexical_backend, "fts5");
    EXPECT_EQ(r.hits.size(), 1u);
    ASSERT_FALSE(warnings.empty());
    EXPECT_NE(warnings.back().find("run `mmkg ingest` once"), std::string::npos) << warnings.back();
    EXPECT_EQ(c.run("MATCH (m:MmkgGraphMeta {key: 'graph'}) RETURN m.schema_version").rows[0][0],
              graph::detail::kGraphSchemaVersion);
    s->ingest(req);  // nothing new to ingest: the graph sync copies the text
  }
  warnings.clear();
  EXPECT_EQ(c.run("MATCH (c:Chunk) WHERE c.text IS NULL RETURN count(c)").rows[0][0], 0);
  auto s = Session::open(cfg);
  SearchReport r = s->search({.query = "platypus", .k = 3, .mode = SearchMode::Bm25});
  EXPECT_EQ(r.lexical_backend, "neo4j");
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.hits[0].doc, "a.txt");
  EXPECT_TRUE(warnings.empty()) << warnings.front();
}

}  // namespace
}  // namespace mmkg
