// Several writers at once on the shared store. Each ingesting process registers as a (:Worker
// {id, lease_until, writing}) and keeps that alive with a heartbeat thread; it claims each file
// before parsing it ((:Claim {path, owner}), so two writers never parse, OCR and embed the same
// file); when it has written its files it says so, and the last writer still writing brings the
// graph in step, once, for all of them, under the graph's (:Lease {name: 'graph'}). Every check
// takes a write lock first and reads after it (Neo4j reads committed data, so a check before the
// lock could see a state another writer is changing). A killed writer's registration, claims and
// lease lapse after MMKG_CLAIM_TTL seconds (default 30) without a heartbeat.
#include <unistd.h>

#include <chrono>

#include "core/error.h"
#include "store/neo4j_store_impl.h"

namespace mmkg::neo4j_store {

namespace {

const char* kClaim = R"(
MERGE (c:Claim {path: $p})
ON CREATE SET c.owner = $me
SET c.touched = timestamp()
WITH c
OPTIONAL MATCH (o:Worker {id: c.owner})
WITH c, o WHERE c.owner = $me OR o IS NULL OR o.lease_until < timestamp()
SET c.owner = $me
RETURN 1)";

// The counter node is locked first, so writers finishing at the same moment take turns: the
// second sees the first as done, and one of them is always last.
const char* kDoneWriting = R"(
MATCH (st:MmkgStore {key: 'store'})
SET st.writers_turn = coalesce(st.writers_turn, 0) + 1
WITH st
OPTIONAL MATCH (w:Worker {id: $me})
SET w.writing = false
WITH DISTINCT st
RETURN COUNT { MATCH (o:Worker) WHERE o.writing AND o.id <> $me AND o.lease_until >= timestamp() })";

const char* kTakeLease = R"(
MERGE (l:Lease {name: 'graph'})
ON CREATE SET l.owner = $me, l.until = timestamp() + $ttl
SET l.touched = timestamp()
WITH l WHERE l.owner = $me OR l.until < timestamp()
SET l.owner = $me, l.until = timestamp() + $ttl
RETURN 1)";

}  // namespace

void Neo4jStore::join_writers() {
  if (joined_) return;
  db_.run("MATCH (w:Worker) WHERE w.lease_until < timestamp() - 600000 DETACH DELETE w");
  db_.run("MERGE (w:Worker {id: $me}) SET w.lease_until = timestamp() + $ttl, w.writing = true, w.pid = $pid",
          {{"me", worker_}, {"ttl", ttl_ms_}, {"pid", static_cast<int64_t>(::getpid())}});
  joined_ = true;
  beat_stop_ = false;
  beat_ = std::thread([this] { heartbeat(); });
}

// Renews the registration, the claims and the lease every third of their time to live, on a
// connection of its own, until leave_writers().
void Neo4jStore::heartbeat() {
  Neo4jClient db(db_.target());
  std::unique_lock lk(beat_mu_);
  while (!beat_cv_.wait_for(lk, std::chrono::milliseconds(std::max<int64_t>(100, ttl_ms_ / 3)),
                            [this] { return beat_stop_; })) {
    lk.unlock();
    try {
      db.run(
          "MATCH (w:Worker {id: $me}) SET w.lease_until = timestamp() + $ttl "
          "WITH w OPTIONAL MATCH (l:Lease {owner: $me}) SET l.until = timestamp() + $ttl",
          {{"me", worker_}, {"ttl", ttl_ms_}});
    } catch (const Error&) {  // a missed beat: the next one, or the lease lapses
    }
    lk.lock();
  }
}

// A writer publishes a file before it releases the claim, so the file found stored once the claim
// is held is whole: the local copy, which syncs only with this process's writes, may not have it.
Store::Claim Neo4jStore::claim(const std::string& path, const std::string& doc_id) {
  if (db_.run(kClaim, {{"p", path}, {"me", worker_}}).rows.empty()) return Claim::Elsewhere;
  if (db_.run("MATCH (d:Document {path: $p, id: $d}) RETURN 1", {{"p", path}, {"d", doc_id}}).rows.empty())
    return Claim::Mine;
  release(path);
  return Claim::Stored;
}

void Neo4jStore::release(const std::string& path) {
  db_.run("MATCH (c:Claim {path: $p, owner: $me}) DELETE c", {{"p", path}, {"me", worker_}});
}

bool Neo4jStore::done_writing() {
  auto r = db_.run(kDoneWriting, {{"me", worker_}});
  return r.rows.empty() || as_i64(r.rows[0][0]) == 0;
}

void Neo4jStore::take_graph_lease(const std::function<void(const std::string&)>& on_wait) {
  if (!joined_) {  // a delete: registered for the heartbeat that keeps the lease, not as writing
    join_writers();
    done_writing();
  }
  bool told = false;
  while (db_.run(kTakeLease, {{"me", worker_}, {"ttl", ttl_ms_}}).rows.empty()) {
    if (!told && on_wait) on_wait("another mmkg process is bringing the knowledge graph up to date; waiting for it");
    told = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
}

void Neo4jStore::leave_writers() {
  if (!joined_) return;
  {
    std::lock_guard lk(beat_mu_);
    beat_stop_ = true;
  }
  beat_cv_.notify_all();
  if (beat_.joinable()) beat_.join();
  joined_ = false;
  const json me = {{"me", worker_}};
  db_.run("MATCH (c:Claim {owner: $me}) DELETE c", me);
  db_.run("MATCH (l:Lease {owner: $me}) DELETE l", me);
  db_.run("MATCH (w:Worker {id: $me}) DELETE w", me);
}

std::unique_ptr<Store> Neo4jStore::open_reader() {
  return std::make_unique<Neo4jStore>(db_.target(), SqliteStore::open(local_->dir(), false), uuid_, worker_);
}

}  // namespace mmkg::neo4j_store
