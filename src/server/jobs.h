// The server's writer: one Session that runs ingest jobs one after another on a background
// thread, and deletes (in between jobs, never during one). Each job's progress is kept for
// polling (GET /api/jobs/ID) and streaming (wait_change). On stop() the running job finishes
// (its documents are committed one by one, so the store stays consistent), queued jobs fail
// with "the server stopped", and their uploaded files are left in uploads/ for a re-upload.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "app/session.h"

namespace mmkg::server {

enum class JobState { Queued, Running, Done, Failed };
/// "queued", "running", "done", "failed" (the JSON's `state`).
const char* job_state_name(JobState s);

struct Job {
  std::string id;
  JobState state = JobState::Queued;
  std::vector<std::string> files;  ///< file names, as uploaded
  std::vector<std::string> paths;  ///< where they are in the store's uploads/
  int done = 0, total = 0;
  std::string current;  ///< the file being worked on (its name; "graph: NAME" while the graph is built)
  std::string phase;    ///< "" (queued), "read" (parse, chunk, embed), "graph", "end"
  std::string created_at, finished_at;
  nlohmann::json result;  ///< ingest_json of the report (done), or null
  std::string error;
  uint64_t version = 0;  ///< bumped at every change
  bool ended() const { return state == JobState::Done || state == JobState::Failed; }
};

nlohmann::json job_json(const Job& j);

class JobQueue {
 public:
  /// `after_write` runs after each write (ingest or delete) committed.
  JobQueue(Config cfg, std::function<void()> after_write);
  ~JobQueue();  ///< stop()

  /// Queues an ingest of `paths` (files in the store's uploads/), named `names`; returns its id.
  std::string submit(std::vector<std::string> names, std::vector<std::string> paths);
  /// A copy of the job; false when unknown.
  bool get(const std::string& id, Job& out) const;
  std::vector<Job> list() const;
  /// Waits until job `id` changes past `version` or ends, at most `timeout_s`; fills `out`.
  /// False when the job is unknown.
  bool wait_change(const std::string& id, uint64_t version, double timeout_s, Job& out) const;
  /// Deletes documents through the writer (after the running job, if any).
  RemoveReport remove(const std::vector<std::string>& keys);
  int queued() const;
  int running() const;
  long long finished(bool ok) const;
  /// Finishes the running job, fails the queued ones, joins the thread. Idempotent.
  void stop();

 private:
  void run();
  /// Removes the uploaded files that did not become documents.
  void forget_unstored(const std::vector<std::string>& paths);
  void update(const std::string& id, const std::function<void(Job&)>& fn);
  /// Keeps the job's JSON in a shared store (Session::record_job), for the other servers.
  void record(const Job& j);
  Session& writer();
  Config cfg_;
  std::function<void()> after_write_;
  std::unique_ptr<Session> writer_;
  std::unique_ptr<Session> recorder_;  ///< record()'s own session (the writer's is busy ingesting)
  std::mutex record_mu_;
  std::mutex write_mu_;  ///< one write at a time on the writer session
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::map<std::string, Job> jobs_;
  std::deque<std::string> order_;  ///< all job ids, oldest first (the last 500 kept)
  std::deque<std::string> queue_;
  bool stopping_ = false;
  long long ok_ = 0, failed_ = 0;
  uint64_t next_ = 0;
  std::thread thread_;
};

}  // namespace mmkg::server
