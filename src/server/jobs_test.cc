// The writer's job queue on a real store: a job runs to done with its report, a bad file fails
// alone, and stop() finishes the running job and fails the queued ones.
#include "server/jobs.h"

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace mmkg::server {
namespace {

Config config_for(const mmkg::testing::TempDir& tmp) {
  Config c;
  c.store = tmp.file("store");
  c.embedder = EmbedderSpec::parse("none");
  c.graph = GraphBackend::parse("none");
  c.warn = [](const std::string&) {};
  return c;
}

Job wait_done(const JobQueue& q, const std::string& id) {
  Job j;
  uint64_t seen = 0;
  for (int i = 0; i < 600; ++i) {
    EXPECT_TRUE(q.wait_change(id, seen, 1, j));
    if (j.ended()) return j;
    seen = j.version;
  }
  ADD_FAILURE() << "job " << id << " did not end";
  return j;
}

TEST(JobQueue, AnIngestJobRunsToDoneWithItsReportAndCountsItsFiles) {
  mmkg::testing::TempDir tmp;
  int writes = 0;
  JobQueue q(config_for(tmp), [&] { ++writes; });
  const std::string a = tmp.write("a.md", "# Quokkas\n\nThe quokka lives on Rottnest Island.\n");
  const std::string b = tmp.write("b.md", "# Numbats\n\nThe numbat eats termites.\n");
  const std::string id = q.submit({"a.md", "b.md"}, {a, b});
  Job j = wait_done(q, id);
  EXPECT_EQ(j.state, JobState::Done);
  EXPECT_EQ(j.done, 2);
  EXPECT_EQ(j.total, 2);
  EXPECT_EQ(j.result["documents"], 2);
  EXPECT_FALSE(j.finished_at.empty());
  EXPECT_EQ(writes, 1);
  EXPECT_EQ(q.finished(true), 1);
  // Deleting goes through the same writer.
  RemoveReport r = q.remove({"a.md"});
  ASSERT_EQ(r.deleted.size(), 1u) << (r.failed.empty() ? "" : r.failed[0].message);
  EXPECT_EQ(writes, 2);
}

TEST(JobQueue, ABadFileIsReportedInItsJobAndTheNextJobStillRuns) {
  mmkg::testing::TempDir tmp;
  JobQueue q(config_for(tmp), nullptr);
  const std::string bad = tmp.write("bad.pdf", "this is not a pdf");
  Job j1 = wait_done(q, q.submit({"bad.pdf"}, {bad}));
  EXPECT_EQ(j1.state, JobState::Done);  // ingest reports the file as failed, the job itself ran
  ASSERT_EQ(j1.result["failed"].size(), 1u);
  const std::string ok = tmp.write("ok.txt", "Plain text about termites.\n");
  Job j2 = wait_done(q, q.submit({"ok.txt"}, {ok}));
  EXPECT_EQ(j2.result["documents"], 1);
}

TEST(JobQueue, StopLetsTheRunningJobFinishAndFailsTheQueuedOnes) {
  mmkg::testing::TempDir tmp;
  JobQueue q(config_for(tmp), nullptr);
  auto doc = [&](int i) { return tmp.write("d" + std::to_string(i) + ".md", "# Doc " + std::to_string(i) + "\n\nText.\n"); };
  const std::string first = q.submit({"d0.md"}, {doc(0)});
  Job j;
  while (q.get(first, j) && j.state == JobState::Queued) q.wait_change(first, j.version, 1, j);
  for (int i = 1; i < 5; ++i) q.submit({"d.md"}, {doc(i)});
  q.stop();
  ASSERT_TRUE(q.get(first, j));
  EXPECT_EQ(j.state, JobState::Done);
  int ended = 0;
  for (const auto& x : q.list()) {
    EXPECT_TRUE(x.ended()) << job_state_name(x.state);
    ended += 1;
    if (x.state == JobState::Failed) {
      EXPECT_NE(x.error.find("stopped"), std::string::npos);
    }
  }
  EXPECT_EQ(ended, 5);
  EXPECT_THROW(q.submit({"x"}, {"x"}), std::exception);
}

}  // namespace
}  // namespace mmkg::server
