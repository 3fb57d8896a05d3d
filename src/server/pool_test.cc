// The reader pool on a real store: admission (429 when the queue is full) and readers that see
// the writer's commits.
#include "server/pool.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "server/http.h"
#include "support/temp_dir.h"

namespace mmkg::server {
namespace {

Config pool_config(const std::string& dir) {
  Config c;
  c.store = dir + "/store";
  c.embedder = EmbedderSpec::parse("none");
  c.graph = GraphBackend::parse("none");
  c.warn = [](const std::string&) {};
  return c;
}

TEST(SessionPool, ABusyPoolWithNoQueueAnswers429AndAReturnedSessionIsReused) {
  mmkg::testing::TempDir tmp;
  Config cfg = pool_config(tmp.str());
  Session::open(cfg, true)->store();
  SessionPool pool(cfg, 1, 0);
  auto a = pool.acquire();
  EXPECT_EQ(pool.busy(), 1);
  try {
    pool.acquire();
    FAIL() << "a second lease of a one-session pool with no queue was given";
  } catch (const HttpError& e) {
    EXPECT_EQ(e.status, 429);
  }
  Session* first = a.get();
  a.reset();
  EXPECT_EQ(pool.busy(), 0);
  auto b = pool.acquire();
  EXPECT_EQ(b.get(), first);
}

TEST(SessionPool, AWaitingRequestGetsTheSessionWhenItIsReturned) {
  mmkg::testing::TempDir tmp;
  Config cfg = pool_config(tmp.str());
  Session::open(cfg, true)->store();
  SessionPool pool(cfg, 1, 1);
  auto a = pool.acquire();
  std::shared_ptr<Session> got;
  std::thread waiter([&] { got = pool.acquire(); });
  while (pool.waiting() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  a.reset();
  waiter.join();
  EXPECT_NE(got, nullptr);
}

TEST(SessionPool, ALeasedReaderSeesWhatTheWriterCommittedSinceItsLastLease) {
  mmkg::testing::TempDir tmp;
  Config cfg = pool_config(tmp.str());
  auto writer = Session::open(cfg, true);
  const std::string a = tmp.str() + "/a.md", b = tmp.str() + "/b.md";
  std::ofstream(a) << "# Quokkas\n\nThe quokka lives on Rottnest Island.\n";
  std::ofstream(b) << "# Numbats\n\nThe numbat eats termites in Western Australia.\n";
  IngestRequest ra;
  ra.paths = {a};
  writer->ingest(ra);

  SessionPool pool(cfg, 1, 0);
  {
    auto s = pool.acquire();
    SearchRequest q;
    q.query = "termites";
    q.mode = SearchMode::Bm25;
    EXPECT_TRUE(s->search(q).hits.empty());
  }
  IngestRequest rb;
  rb.paths = {b};
  writer->ingest(rb);
  auto s = pool.acquire();
  SearchRequest q;
  q.query = "termites";
  q.mode = SearchMode::Bm25;
  auto hits = s->search(q).hits;
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].doc, "b.md");
  // What the lease did: the reader dropped what it had read before the write, once.
  EXPECT_FALSE(s->refresh());
  writer->remove({"b.md"});
  EXPECT_TRUE(s->refresh());
  EXPECT_FALSE(s->refresh());
}

}  // namespace
}  // namespace mmkg::server
