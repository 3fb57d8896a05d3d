#include "server/jobs.h"

#include <chrono>
#include <ctime>
#include <filesystem>

#include <unistd.h>

#include "app/json.h"
#include "core/clock.h"
#include "core/error.h"
#include "server/http.h"

namespace mmkg::server {

using nlohmann::json;

namespace {

std::string now_iso() { return utc_now_iso(); }

json or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

}  // namespace

const char* job_state_name(JobState s) {
  switch (s) {
    case JobState::Queued: return "queued";
    case JobState::Running: return "running";
    case JobState::Done: return "done";
    case JobState::Failed: return "failed";
  }
  return "queued";
}

json job_json(const Job& j) {
  return {{"id", j.id},           {"kind", "ingest"},
          {"state", job_state_name(j.state)},     {"files", j.files},
          {"done", j.done},       {"total", j.total},
          {"current", j.current}, {"phase", j.phase}, {"created_at", j.created_at},
          {"finished_at", or_null(j.finished_at)}, {"result", j.result},
          {"error", or_null(j.error)}};
}

JobQueue::JobQueue(Config cfg, std::function<void()> after_write)
    : cfg_(std::move(cfg)), after_write_(std::move(after_write)) {
  thread_ = std::thread([this] { run(); });
}

JobQueue::~JobQueue() { stop(); }

Session& JobQueue::writer() {
  if (!writer_) writer_ = Session::open(cfg_, true);
  return *writer_;
}

std::string JobQueue::submit(std::vector<std::string> names, std::vector<std::string> paths) {
  std::lock_guard<std::mutex> lk(mu_);
  if (stopping_) throw HttpError(503, "unavailable", "the server is stopping; upload again after it restarts");
  char id[40];
  // Time, process and count: unique among the servers of a shared store too.
  std::snprintf(id, sizeof id, "j%lx-%x-%llu", static_cast<long>(std::time(nullptr)), static_cast<unsigned>(::getpid()),
                static_cast<unsigned long long>(++next_));
  Job j;
  j.id = id;
  j.files = std::move(names);
  j.paths = std::move(paths);
  j.total = static_cast<int>(j.files.size());
  j.created_at = now_iso();
  jobs_[j.id] = j;
  order_.push_back(j.id);
  while (order_.size() > 500) {
    const auto& old = jobs_[order_.front()];
    if (!old.ended()) break;
    jobs_.erase(order_.front());
    order_.pop_front();
  }
  queue_.push_back(j.id);
  cv_.notify_all();
  return j.id;
}

bool JobQueue::get(const std::string& id, Job& out) const {
  std::lock_guard<std::mutex> lk(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return false;
  out = it->second;
  return true;
}

std::vector<Job> JobQueue::list() const {
  std::lock_guard<std::mutex> lk(mu_);
  std::vector<Job> out;
  for (const auto& id : order_) out.push_back(jobs_.at(id));
  return out;
}

bool JobQueue::wait_change(const std::string& id, uint64_t version, double timeout_s, Job& out) const {
  std::unique_lock<std::mutex> lk(mu_);
  auto changed = [&] {
    auto it = jobs_.find(id);
    return it == jobs_.end() || it->second.version > version || it->second.ended();
  };
  cv_.wait_for(lk, std::chrono::duration<double>(timeout_s), changed);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return false;
  out = it->second;
  return true;
}

void JobQueue::update(const std::string& id, const std::function<void(Job&)>& fn) {
  Job copy;
  {
    std::lock_guard<std::mutex> lk(mu_);
    Job& j = jobs_[id];
    fn(j);
    ++j.version;
    copy = j;
    cv_.notify_all();
  }
  record(copy);
}

void JobQueue::record(const Job& j) {
  if (!cfg_.store_is_shared()) return;  // this server's memory is the only record it needs
  std::lock_guard<std::mutex> lk(record_mu_);
  try {
    if (!recorder_) recorder_ = Session::open(cfg_, true);
    recorder_->record_job(j.id, job_json(j).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  } catch (const std::exception& e) {  // the job goes on; only the other servers miss this change
    std::fprintf(stderr, "mmkg: warning: job %s not recorded in the shared store: %s\n", j.id.c_str(), e.what());
  }
}

void JobQueue::run() {
  for (;;) {
    std::string id;
    std::vector<std::string> paths;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping with nothing left
      if (stopping_) {
        // Stopped: what is queued fails; the running job (none here) has finished.
        for (const auto& q : queue_) {
          Job& j = jobs_[q];
          j.state = JobState::Failed;
          j.error = "the server stopped before this job ran; upload the files again";
          j.finished_at = now_iso();
          ++j.version;
          ++failed_;
        }
        queue_.clear();
        cv_.notify_all();
        return;
      }
      id = queue_.front();
      queue_.pop_front();
      Job& j = jobs_[id];
      j.state = JobState::Running;
      j.phase = "read";
      ++j.version;
      paths = j.paths;
      cv_.notify_all();
    }
    IngestRequest req;
    req.paths = paths;
    req.progress = [this, &id](const IngestProgress& p) {
      update(id, [&](Job& j) {
        j.done = static_cast<int>(p.files_done);
        j.current = std::filesystem::path(p.current).filename().string();
        // The graph is built after every file is read: its progress counts the files again.
        j.phase = p.current.rfind("graph: ", 0) == 0 ? "graph" : "read";
      });
    };
    try {
      IngestReport rep;
      {
        std::lock_guard<std::mutex> w(write_mu_);
        rep = writer().ingest(req);
      }
      if (after_write_) after_write_();
      forget_unstored(paths);
      json r = ingest_json(rep);
      update(id, [&](Job& j) {
        j.state = JobState::Done;
        j.phase = "end";
        j.done = j.total;
        j.current.clear();
        j.result = r;
        j.finished_at = now_iso();
        ++ok_;  // under the same lock as the state, so a reader never sees one without the other
      });
    } catch (const std::exception& e) {
      if (after_write_) after_write_();
      const std::string msg = e.what();
      update(id, [&](Job& j) {
        j.state = JobState::Failed;
        j.phase = "end";
        j.error = msg;
        j.finished_at = now_iso();
        ++failed_;
      });
    }
  }
}

void JobQueue::forget_unstored(const std::vector<std::string>& paths) {
  // An uploaded file that is not a document now (it failed, or its content was already stored
  // under another name) would stay in uploads/ with no way to delete it through the API.
  std::lock_guard<std::mutex> w(write_mu_);
  for (const auto& p : paths) {
    try {
      if (!writer().has_document_at(p)) std::filesystem::remove(p);
    } catch (const std::exception&) {
    }
  }
}

RemoveReport JobQueue::remove(const std::vector<std::string>& keys) {
  RemoveReport r;
  {
    std::lock_guard<std::mutex> w(write_mu_);
    r = writer().remove(keys);
  }
  if (!r.deleted.empty() && after_write_) after_write_();
  return r;
}

int JobQueue::queued() const {
  std::lock_guard<std::mutex> lk(mu_);
  return static_cast<int>(queue_.size());
}

int JobQueue::running() const {
  std::lock_guard<std::mutex> lk(mu_);
  int n = 0;
  for (const auto& [id, j] : jobs_) n += j.state == JobState::Running;
  return n;
}

long long JobQueue::finished(bool ok) const {
  std::lock_guard<std::mutex> lk(mu_);
  return ok ? ok_ : failed_;
}

void JobQueue::stop() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stopping_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

}  // namespace mmkg::server
