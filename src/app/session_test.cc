// The Session end to end over a real store in a temp folder: every operation the CLI uses, the
// per-step callback, the typed reports and their JSON, check() catching a broken store, and the
// configuration checked before anything is written.
#include "app/session.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "agents/trace_json.h"
#include "app/json.h"
#include "core/error.h"
#include "embed/embedder.h"
#include "index/vector_index.h"
#include "index/vector_store.h"
#include "support/embed_fixtures.h"
#include "support/image_fixtures.h"
#include "support/scripted_http_server.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

using testing::TempDir;

TEST(Config, ParsesGraphBackendsAndKeepsCredentialsOutOfTheKey) {
  EXPECT_EQ(GraphBackend::parse("").kind, GraphBackend::Kind::Sqlite);
  EXPECT_EQ(GraphBackend::parse("sqlite").key(), "sqlite");
  EXPECT_FALSE(GraphBackend::parse("none").enabled());
  GraphBackend n = GraphBackend::parse("neo4j://neo4j:secret@127.0.0.1:7474/kg");
  EXPECT_EQ(n.kind, GraphBackend::Kind::Neo4j);
  EXPECT_EQ(n.key(), "neo4j:127.0.0.1:7474/kg");
  EXPECT_THROW(GraphBackend::parse("mongodb://x"), UsageError);
  EXPECT_EQ(parse_extract_mode("llm"), ExtractMode::Llm);
  EXPECT_THROW(parse_extract_mode("magic"), UsageError);
  EXPECT_EQ(parse_fusion("rrf"), Fusion::Rrf);
  EXPECT_THROW(parse_fusion("max"), UsageError);
}

TEST(Config, EnvironmentGivesTheDefaults) {
  ::setenv("MMKG_STORE", "/tmp/elsewhere", 1);
  ::setenv("MMKG_GRAPH", "none", 1);
  Config c = Config::from_env();
  ::unsetenv("MMKG_STORE");
  ::unsetenv("MMKG_GRAPH");
  EXPECT_EQ(c.store, "/tmp/elsewhere");
  EXPECT_FALSE(c.graph.enabled());
  EXPECT_EQ(c.embedder.text, "native");
  Config empty;
  empty.store = "";
  EXPECT_THROW(empty.validate(), UsageError);
  // A Neo4j URL names a shared store, whose graph lives in the same database unless --graph says
  // otherwise; the graph in SQLite (the local copy) is refused, and so is any other URL: it would
  // become a folder named "ftp:". Messages hide the password.
  Config shared;
  shared.store = "neo4j://neo4j:secret@127.0.0.1:7474";
  shared.share_graph_with_store(/*graph_unset=*/true);
  EXPECT_EQ(shared.graph.kind, GraphBackend::Kind::Neo4j);
  EXPECT_EQ(shared.graph.key(), "neo4j:127.0.0.1:7474");
  EXPECT_NO_THROW(shared.validate());
  Config none = shared;
  none.graph = GraphBackend::parse("none");
  none.share_graph_with_store(/*graph_unset=*/false);
  EXPECT_FALSE(none.graph.enabled());
  EXPECT_NO_THROW(none.validate());
  for (const char* bad_store : {"neo4j://neo4j:secret@127.0.0.1:7474", "ftp://u:secret@host/x"}) {
    Config bad;
    bad.store = bad_store;  // the graph left in SQLite, or a scheme that is no store
    try {
      bad.validate();
      ADD_FAILURE() << bad_store << " was accepted";
    } catch (const UsageError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("neo4j://"), std::string::npos) << m;
      EXPECT_EQ(m.find("secret"), std::string::npos) << m;
    }
  }
  Config folder;
  folder.store = "data/my:store";
  EXPECT_NO_THROW(folder.validate());
}

// --graph's one parser: the spec chooses the backend; a bad one says what to give, without the
// password.
TEST(Config, GraphSpecsChooseTheBackendAndBadOnesSayWhatToDo) {
  EXPECT_EQ(GraphBackend::parse("").kind, GraphBackend::Kind::Sqlite);
  EXPECT_EQ(GraphBackend::parse("sqlite").kind, GraphBackend::Kind::Sqlite);
  EXPECT_EQ(GraphBackend::parse("none").kind, GraphBackend::Kind::None);
  const GraphBackend neo = GraphBackend::parse("neo4j://neo4j:pw@db.example:7474/graph");
  EXPECT_EQ(neo.kind, GraphBackend::Kind::Neo4j);
  EXPECT_EQ(neo.key(), "neo4j:db.example:7474/graph");
  try {
    GraphBackend::parse("bolt://neo:s3cret@host:7687");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find("s3cret"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("neo4j://"), std::string::npos) << e.what();
  }
}

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    docs = dir.str() + "/docs";
    dir.write("docs/attention.md",
              "# Attention\n\nAttention lets a model weigh every token of a sequence when it encodes one "
              "token. Multi-Head Attention (MHA) runs several attention heads in parallel.\n\n"
              "## Softmax\n\nThe softmax turns the attention scores into weights that sum to one.\n");
    dir.write("docs/rnn.txt",
              "Recurrent networks read a sequence one step at a time. Their training is slow because the "
              "steps cannot run in parallel.\n");
    cfg.store = dir.str() + "/store";
    cfg.embedder = EmbedderSpec::parse("none");  // BM25 only: the unit suite does not need the model
    cfg.warn = [this](const std::string& w) { warnings.push_back(w); };
  }

  std::unique_ptr<Session> ingested() {
    auto s = Session::open(cfg, /*create=*/true);
    IngestRequest req;
    req.paths = {docs};
    IngestReport r = s->ingest(req);
    EXPECT_EQ(r.files.documents, 2);
    EXPECT_TRUE(r.files.failed.empty());
    EXPECT_TRUE(r.graph.has_value());
    return s;
  }

  TempDir dir;
  std::string docs;
  Config cfg;
  std::vector<std::string> warnings;
};

TEST_F(SessionTest, IngestSearchAskRemoveThroughOneSession) {
  auto s = ingested();
  EXPECT_EQ(s->stats().store.documents, 2);
  EXPECT_GT(s->stats().graph->entities, 0);

  SearchReport sr = s->search({.query = "softmax weights", .k = 3, .mode = SearchMode::Hybrid});
  EXPECT_EQ(sr.mode, SearchMode::Bm25);  // hybrid without an embedder falls back, with a warning
  EXPECT_FALSE(warnings.empty());
  ASSERT_FALSE(sr.hits.empty());
  EXPECT_EQ(sr.hits[0].doc, "attention.md");
  EXPECT_TRUE(search_json(sr)["dense_backend"].is_null());

  // ask: the per-step callback sees every agent step as it finishes, in order.
  AskRequest ar;
  ar.question = "What does the softmax turn attention scores into?";
  std::vector<std::string> streamed;
  ar.options.on_step = [&](const StepRecord& r) { streamed.push_back(r.step); };
  AskResult a = s->ask(ar);
  ASSERT_TRUE(a.found) << a.answer;
  EXPECT_NE(a.answer.find("weights"), std::string::npos) << a.answer;
  std::vector<std::string> steps;
  for (const auto& r : a.trace) steps.push_back(r.step);
  EXPECT_EQ(streamed, steps);
  EXPECT_EQ(steps.front(), "plan");
  EXPECT_EQ(steps.back(), "orchestrate");
  EXPECT_GT(a.retrieval.context_chunks, 0u);  // the typed report of the answer's round
  EXPECT_EQ(a.retrieval.context_tokens, a.context_tokens);
  auto j = ask_json(ar.question, a);
  EXPECT_EQ(j["trace"].size(), a.trace.size());
  EXPECT_EQ(j["citations"][0]["doc"], a.citations[0].doc);

  RemoveReport rr = s->remove({"rnn.txt", "nothing.pdf"});
  ASSERT_EQ(rr.deleted.size(), 1u);
  EXPECT_EQ(rr.deleted[0].doc, "rnn.txt");
  ASSERT_EQ(rr.failed.size(), 1u);
  EXPECT_EQ(rr.failed[0].error, "not found");
  ASSERT_TRUE(rr.graph.has_value());
  EXPECT_EQ(rr.graph->documents_removed, 1);
  EXPECT_EQ(s->stats().store.documents, 1);
  EXPECT_TRUE(s->check().ok);
}

TEST_F(SessionTest, AnAnswerabilityModelIsReadAgainWhenItsFileChanges) {
  const std::string model = dir.str() + "/answerable.json";
  auto write = [&](double bias, const std::string& pad) {
    std::ofstream(model) << R"({"format": "mmkg-answerable", "version": 1, "features": ["coverage"], )"
                         << R"("model": {"bias": )" << bias << R"(, "weights": [0], "threshold": 0}})" << pad;
  };
  write(100, "");  // answers whatever the evidence
  cfg.answerable = model;
  auto s = ingested();
  AskRequest ar;
  ar.question = "What does the softmax turn attention scores into?";
  EXPECT_TRUE(s->ask(ar).found);
  EXPECT_TRUE(s->ask(ar).found);
  write(-100, "\n");  // refitted: refuses everything
  const AskResult refused = s->ask(ar);
  EXPECT_FALSE(refused.found) << refused.answer;
}

TEST_F(SessionTest, TheRankersFileIsReadOnceAndAgainWhenItChanges) {
  const std::string model = dir.str() + "/ranker.json";
  auto write = [&](double bias) {
    nlohmann::json j = {{"format", "mmkg-ranker"}, {"version", 1}, {"features", {"prox", "bm25_z"}},
                        {"model", {{"bias", bias}, {"weights", {1.0, 0.5}}}}};
    std::ofstream(model) << j.dump(bias < 0 ? 2 : -1);  // another size: a change whatever the clock
  };
  write(1.5);
  cfg.ranker = model;
  auto s = ingested();
  const auto first = s->searcher().ranker();
  EXPECT_DOUBLE_EQ(first->full().bias, 1.5);
  EXPECT_EQ(s->searcher().ranker(), first);  // not read again
  write(-2.5);
  EXPECT_DOUBLE_EQ(s->searcher().ranker()->full().bias, -2.5);
  EXPECT_DOUBLE_EQ(first->full().bias, 1.5);  // a holder's model stays as it was
  std::ofstream(model) << "{ not json";
  EXPECT_THROW(s->searcher().ranker(), UsageError);
}

TEST_F(SessionTest, GraphEntityAndEveryExportFormat) {
  auto s = ingested();
  EntityReport e = s->graph_entity("MHA", /*with_evidence=*/true, 50);
  EXPECT_EQ(e.entity.name.find("Multi-Head Attention"), 0u) << e.entity.name;
  EXPECT_GT(e.mentions, 0u);
  EXPECT_THROW(s->graph_entity("zzzz qqqq", false, 5), Error);
  for (const auto& f : Session::export_formats()) {
    std::ostringstream out;
    s->graph_export(f, out);
    EXPECT_NE(out.str().find("Multi-Head Attention"), std::string::npos) << f;
  }
  std::ostringstream out;
  EXPECT_THROW(s->graph_export("dot", out), UsageError);
}

// The graph at a glance: every entity once over the pages, most connected first, each page's
// links between its own entities; out-of-range options are usage errors.
TEST_F(SessionTest, GraphOverviewPagesThroughTheMostConnectedEntities) {
  dir.write("plant/turbines.md",
            "# Steam Turbines\n\nCharles Parsons built the Steam Turbine at Newcastle. The Steam Turbine drives the "
            "Alternator of the Power Station. The Power Station near Newcastle burns Coal in its Boiler. The Boiler "
            "feeds the Steam Turbine, and the Alternator feeds the National Grid.\n\n## Cooling\n\nThe Power "
            "Station cools the Steam Turbine with river water from the Tyne. Charles Parsons tested the Alternator "
            "at Newcastle.\n");
  auto s = Session::open(cfg, /*create=*/true);
  IngestRequest req;
  req.paths = {dir.str() + "/plant"};
  ASSERT_TRUE(s->ingest(req).graph.has_value());
  GraphOverview first = s->graph_overview(1, 2);
  ASSERT_GT(first.entities, 2u);
  EXPECT_EQ(first.pages, static_cast<int>((first.entities + 1) / 2));
  ASSERT_EQ(first.nodes.size(), 2u);
  EXPECT_GT(first.nodes[0].degree, 0u);
  std::set<std::string> seen;
  size_t last_degree = first.nodes[0].degree;
  for (int p = 1; p <= first.pages; ++p) {
    GraphOverview o = s->graph_overview(p, 2);
    EXPECT_EQ(o.page, p);
    std::set<std::string> here;
    for (const auto& n : o.nodes) {
      EXPECT_LE(n.degree, last_degree) << n.name;
      last_degree = n.degree;
      EXPECT_TRUE(seen.insert(n.id).second) << n.name << " on two pages";
      here.insert(n.id);
    }
    for (const auto& l : o.links) EXPECT_TRUE(here.count(l.src) && here.count(l.dst)) << l.src << " " << l.dst;
    EXPECT_LE(o.links.size(), 3 * o.nodes.size());
  }
  EXPECT_EQ(seen.size(), first.entities);
  EXPECT_EQ(s->graph_overview(1000000, 2).page, first.pages) << "past the last page: the last";
  EXPECT_THROW(s->graph_overview(1, 0), UsageError);
  EXPECT_THROW(s->graph_overview(0, 5), UsageError);
  EXPECT_EQ(graph_overview_json(first)["nodes"].size(), 2u);
}

TEST_F(SessionTest, EvaluateScoresTheModesAndAnswers) {
  auto s = ingested();
  EvalRequest req;
  req.items = {{.id = "q1", .type = "factual", .question = "Why is recurrent training slow?",
                .answer_keywords = {"parallel"},
                .evidence = {{"rnn.txt", "the steps cannot run in parallel"}}},
               {.id = "q2", .type = "unanswerable", .question = "Which GPU trained the chess engine?",
                .answer_keywords = {}, .evidence = {}}};
  req.answers = true;
  EvalReport r = s->evaluate(req);
  EXPECT_EQ(r.primary, "bm25");  // dense and hybrid unavailable without an embedder
  EXPECT_FALSE(r.modes.at("dense").unavailable.empty());
  EXPECT_DOUBLE_EQ(r.modes.at("bm25").all.recall_at_10, 1.0);
  EXPECT_TRUE(r.modes.count("bm25+graph"));
  EXPECT_TRUE(r.modes.count("bm25+rerank"));
  ASSERT_TRUE(r.answer_accuracy.has_value());
  EXPECT_DOUBLE_EQ(*r.answer_accuracy, 1.0);
  EXPECT_EQ(eval_report_json(r)["mode"], "bm25");
}

// A question that spells out an acronym the documents only abbreviate ("cumulative sum" for
// CUSUM) is searched with the acronym written in, from the graph; without a graph it is not.
TEST_F(SessionTest, SearchWritesInTheCorpusAcronymAQuestionSpellsOut) {
  dir.write("docs/cusum.md",
            "# Stability tests\n\nBrown, Durbin and Evans proposed the CUSUM test. The CUSUM path "
            "leaves its band after a break.\n");
  dir.write("docs/ledger.txt",
            "The cumulative sum of the daily sales tests the patience of the clerk. A cumulative sum "
            "is a running total, and the sum is checked each week.\n");
  const std::string question = "Who proposed the cumulative sum tests?";
  QaItem item{.id = "c1", .type = "factual", .question = question, .answer_keywords = {"Brown"},
              .evidence = {{"cusum.md", "Brown, Durbin and Evans proposed the CUSUM test"}}};
  std::string with_graph, without;
  double mrr_with = 0, mrr_without = 0;
  for (bool graph : {true, false}) {
    Config c = cfg;
    c.store = dir.str() + (graph ? "/with" : "/without");
    if (!graph) c.graph = GraphBackend::parse("none");
    auto s = Session::open(c, /*create=*/true);
    IngestRequest req;
    req.paths = {docs};
    s->ingest(req);
    SearchReport sr = s->search({.query = question, .k = 3, .mode = SearchMode::Bm25});
    ASSERT_FALSE(sr.hits.empty());
    (graph ? with_graph : without) = sr.hits[0].doc;
    EvalRequest er;
    er.items = {item};
    er.modes = {SearchMode::Bm25};
    (graph ? mrr_with : mrr_without) = s->evaluate(er).modes.at("bm25").all.mrr;
    // ask's searches read it so too; its answer is written for the question as asked.
    AskRequest ar;
    ar.question = question;
    AskResult a = s->ask(ar);
    ASSERT_FALSE(a.subqueries.empty());
    EXPECT_EQ(a.subqueries[0].find("(CUSUM)") != std::string::npos, graph) << a.subqueries[0];
  }
  EXPECT_EQ(with_graph, "cusum.md");
  EXPECT_EQ(without, "ledger.txt");  // "cumulative" and "sum" twice each
  EXPECT_DOUBLE_EQ(mrr_with, 1.0);
  EXPECT_LT(mrr_without, 1.0);
}

TEST_F(SessionTest, CheckFindsABrokenFullTextIndexAndOrphanChunks) {
  auto s = ingested();
  CheckReport ok = s->check();
  EXPECT_TRUE(ok.ok);
  for (const auto& c : ok.checks) EXPECT_TRUE(c.ok) << c.name << ": " << c.detail;
  // A chunk whose document is gone (written around the store's API) and an index that lost it.
  s->store().exec("PRAGMA foreign_keys = OFF");
  s->store().exec("UPDATE chunks SET doc_id = 'gone' WHERE rowid = (SELECT min(rowid) FROM chunks)");
  s->store().exec("DELETE FROM chunks_fts WHERE rowid = (SELECT max(rowid) FROM chunks)");
  CheckReport bad = s->check();
  EXPECT_FALSE(bad.ok);
  std::map<std::string, bool> by_name;
  for (const auto& c : bad.checks) by_name[c.name] = c.ok;
  EXPECT_FALSE(by_name["chunks"]);
  EXPECT_FALSE(by_name["fulltext"]);
  EXPECT_FALSE(check_json(bad)["ok"].get<bool>());
}

TEST_F(SessionTest, AConfigurationErrorLeavesNoStoreBehind) {
  ::setenv("MMKG_CONFIG", (dir.str() + "/no-such-config.json").c_str(), 1);
  ::unsetenv("MMKG_LLM_BASE_URL");
  auto s = Session::open(cfg, /*create=*/true);
  IngestRequest req;
  req.paths = {docs};
  req.extract = ExtractMode::Llm;
  EXPECT_THROW(s->ingest(req), UsageError);
  ::unsetenv("MMKG_CONFIG");
  EXPECT_FALSE(std::filesystem::exists(cfg.store));
  // Opening a store that is not there (without create) is an error at once.
  Config missing = cfg;
  missing.store = dir.str() + "/nowhere";
  EXPECT_THROW(Session::open(missing), Error);
}

// A vision model (--vlm) on the first ingest into a new store: its answer cache lives in the
// store's database, which must exist first. The second ingest of the same image (after a delete)
// takes the description from the figure cache: no model call. A bad spec leaves no store behind.
TEST_F(SessionTest, VisionModelIntoANewStoreThenCachedOnReingest) {
  mmkg::testing::ScriptedHttpServer vlm;
  vlm.respond_with([](const mmkg::testing::ReceivedRequest&) {
    nlohmann::json content = {{"description", "A red square."}, {"text", ""}, {"kind", "other"}};
    nlohmann::json body = {
        {"id", "x"},
        {"model", "stub-vlm"},
        {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", content.dump()}}}, {"finish_reason", "stop"}}}}};
    return mmkg::testing::ScriptedReply{mmkg::testing::ScriptedHttpServer::response(200, body.dump())};
  });
  dir.write("pics/red.png", image_fixture::rgb_png(64, 48));
  IngestRequest bad;
  bad.paths = {dir.str() + "/pics"};
  bad.vlm = "ftp://nowhere";
  EXPECT_THROW(Session::open(cfg, /*create=*/true)->ingest(bad), UsageError);
  EXPECT_FALSE(std::filesystem::exists(cfg.store));

  auto s = Session::open(cfg, /*create=*/true);
  IngestRequest req;
  req.paths = {dir.str() + "/pics"};
  req.vlm = vlm.url("/v1") + "#model=stub-vlm";
  IngestReport r = s->ingest(req);
  ASSERT_TRUE(r.files.failed.empty()) << r.files.failed[0].error;
  EXPECT_EQ(r.files.figures, 1);
  EXPECT_EQ(r.files.described, 1);
  const size_t calls = vlm.requests().size();
  EXPECT_GE(calls, 1u);
  ASSERT_EQ(s->remove({"red.png"}).deleted.size(), 1u);
  r = s->ingest(req);
  EXPECT_EQ(r.files.figures, 1);
  EXPECT_EQ(r.files.described, 0);
  EXPECT_EQ(r.files.describe_cached, 1);
  EXPECT_EQ(vlm.requests().size(), calls) << "the second ingest called the model";
}

}  // namespace
}  // namespace mmkg

namespace mmkg {
namespace {

// A store in `tmp` with the native embedder and no graph, holding one small markdown file.
Config native_store(testing::TempDir& tmp) {
  Config cfg;
  cfg.store = tmp.file("store");
  cfg.graph = GraphBackend::parse("none");
  cfg.warn = [](const std::string&) {};
  auto writer = Session::open(cfg, true);
  IngestRequest in;
  in.paths = {tmp.write("a.md", "# Quokkas\n\nThe quokka is a small marsupial on Rottnest Island.\n")};
  writer->ingest(in);
  return cfg;
}

// A reader that accepted an older vector index file (the server's readers while its writer is
// about to save the index) reads it again on the next refresh, even with nothing else changed.
TEST(SessionRefresh, AReaderWithAStaleVectorIndexReadsItAgainOnceItIsSaved) {
  MMKG_REQUIRE_MINILM(model);
  testing::TempDir tmp;
  const Config cfg = native_store(tmp);
  auto writer = Session::open(cfg);

  // A document written with its vectors but without the index update: the file is now stale.
  Embedder* emb = writer->embedder().get();
  ASSERT_NE(emb, nullptr);
  DocumentRecord doc;
  doc.id = "00000000000000b1";
  doc.path = tmp.file("b.md");
  doc.name = "b.md";
  doc.format = "markdown";
  Chunk c;
  c.id = "b1-0";
  c.doc_id = doc.id;
  c.text = "The numbat eats termites in the woodlands of Western Australia.";
  c.end = static_cast<int64_t>(c.text.size());
  c.vector = emb->embed({c.text}, EmbedKind::Document);
  writer->store().put_document(doc, c.text, {c}, std::nullopt, emb->id());

  auto dense_docs = [](Session& s) {
    SearchRequest q;
    q.query = "what do numbats eat";
    q.mode = SearchMode::Dense;
    std::set<std::string> docs;
    for (const auto& h : s.search(q).hits) docs.insert(h.doc);
    return docs;
  };
  auto reader = Session::open(cfg);
  reader->accept_stale_index(true);
  reader->refresh();
  EXPECT_FALSE(dense_docs(*reader).count("b.md"));  // the old file, as it is: no rebuild

  // Another session brings the index file up to date (a rebuild, saved).
  EXPECT_TRUE(dense_docs(*Session::open(cfg)).count("b.md"));
  reader->accept_stale_index(false);
  EXPECT_TRUE(reader->refresh());
  EXPECT_TRUE(dense_docs(*reader).count("b.md"));
  EXPECT_FALSE(reader->refresh());
}

// `mmkg check` compares the vector index's ids with the chunks, not only its size: an index that
// lost one chunk's id and holds a stale one instead has the right count and must still fail.
TEST(SessionCheck, AVectorIndexWithTheRightCountButAWrongIdFails) {
  MMKG_REQUIRE_MINILM(model);
  testing::TempDir tmp;
  const Config cfg = native_store(tmp);
  auto s = Session::open(cfg);
  CheckReport ok = s->check();
  for (const auto& c : ok.checks) EXPECT_TRUE(c.ok) << c.name << ": " << c.detail;
  // Rewrite the index file with the same tag (so it is taken as current): one id swapped.
  const std::string path = vector_index_path(cfg.store);
  VectorIndexOptions vo;
  std::string tag;
  auto index = load_vector_index(path, vo, &tag);
  ASSERT_NE(index, nullptr);
  auto ids = index->ids();
  ASSERT_FALSE(ids.empty());
  std::vector<float> v(384, 0.0f);
  v[0] = 1.0f;
  index->remove({ids[0]});
  index->add({987654321}, v.data());
  index->save(path, tag);
  auto again = Session::open(cfg);
  CheckReport bad = again->check();
  EXPECT_FALSE(bad.ok);
  bool seen = false;
  for (const auto& c : bad.checks) {
    if (c.name != "vectors") continue;
    seen = true;
    EXPECT_FALSE(c.ok);
    EXPECT_NE(c.detail.find("1 ids in the index are not chunks with a vector"), std::string::npos) << c.detail;
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace mmkg
