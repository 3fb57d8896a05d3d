// Graph-store write throughput: Neo4j with UNWIND batches versus one statement per entity
// (same data, same server, same run), and SQLite upserts; plus remove_document times.
//
//   mmkg_graph_store_bench [--entities N] [--per-entity N] [--neo4j URL] [--repeat R]
//
// Without --neo4j (or $MMKG_NEO4J_URL) it starts a fresh test server with scripts/neo4j.sh
// (built by scripts/setup_neo4j.sh) and stops it at the end.
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

#include <sqlite3.h>

#include "support/temp_dir.h"
#include "graph/model/graph_store.h"
#include "net/neo4j_query.h"
#include "store/store.h"

using namespace mmkg;
using namespace mmkg::graph;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string sh(const std::string& cmd, int* rc = nullptr) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = pclose(p);
  if (rc) *rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

// N entities with two aliases each; optionally a mention each (100 chunks over 10 documents)
// and a co_occurs chain with one evidence sentence per relation.
GraphDelta make_delta(int n, bool full) {
  GraphDelta d;
  for (int i = 0; i < n; ++i) {
    Entity e;
    e.id = "e" + std::to_string(1000000 + i);
    e.name = "Entity number " + std::to_string(i);
    e.aliases = {e.name, "EN" + std::to_string(i)};
    e.description = "Entity number " + std::to_string(i) + " is a synthetic benchmark entity.";
    e.score = (i % 97) * 0.01;
    d.entities.push_back(std::move(e));
    if (!full) continue;
    const std::string chunk = "c" + std::to_string(i % 100), doc = "doc" + std::to_string(i % 10);
    d.mentions.push_back(Mention{d.entities.back().id, chunk, doc, d.entities.back().name, 1});
    if (i > 0)
      d.relations.push_back(Relation{"e" + std::to_string(1000000 + i - 1), d.entities.back().id, "co_occurs", 1,
                                     {Evidence{chunk, doc, "Entity " + std::to_string(i - 1) + " and " +
                                                               std::to_string(i) + " co-occur."}}});
  }
  return d;
}

struct Row {
  std::string backend, what;
  int entities;
  double seconds;
  long long statements;
};

// Best of `repeat` runs of clear() + upsert(delta).
double time_upsert(GraphStore& g, const GraphDelta& d, int repeat) {
  double best = 1e30;
  for (int r = 0; r < repeat; ++r) {
    g.clear();
    double t0 = now_s();
    g.upsert(d);
    best = std::min(best, now_s() - t0);
  }
  return best;
}

void print_row(const Row& r) {
  std::printf("| %-7s | %-52s | %8d | %9.3f | %12.0f | %10lld |\n", r.backend.c_str(), r.what.c_str(), r.entities,
              r.seconds, r.entities / r.seconds, r.statements);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int n = 5000, per_entity = -1, repeat = 2;
  std::string url;
  if (const char* u = std::getenv("MMKG_NEO4J_URL")) url = u;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--entities") n = std::stoi(next());
    else if (a == "--per-entity") per_entity = std::stoi(next());
    else if (a == "--neo4j") url = next();
    else if (a == "--repeat") repeat = std::max(1, std::stoi(next()));
    else {
      std::cerr << "usage: mmkg_graph_store_bench [--entities N] [--per-entity N] [--neo4j URL] [--repeat R]\n";
      return 2;
    }
  }
  if (per_entity < 0) per_entity = n;

  namespace fs = std::filesystem;
  std::string state_dir, script;
  if (url.empty()) {
    fs::path root = fs::path(__FILE__).parent_path().parent_path();
    script = "bash '" + (root / "scripts" / "neo4j.sh").string() + "'";
    char tmpl[] = "/tmp/mmkg-neo4j-bench-XXXXXX";
    if (!mkdtemp(tmpl)) return 1;
    state_dir = tmpl;
    std::cerr << "starting Neo4j (" << script << " start " << state_dir << ")\n";
    int rc = 0;
    double t0 = now_s();
    url = sh(script + " start " + state_dir, &rc);
    if (rc != 0 || url.rfind("http", 0) != 0) {
      std::cerr << "cannot start Neo4j; run bash scripts/setup_neo4j.sh or pass --neo4j URL\n";
      return 1;
    }
    std::cerr << "Neo4j up at " << url << " in " << now_s() - t0 << " s\n";
  }
  int status = 0;
  try {
    Neo4jClient probe(parse_neo4j_url(url));
    auto v = probe.run("CALL dbms.components() YIELD versions, edition RETURN versions[0], edition");
    std::string neo_version = v.rows.empty() ? "?" : v.rows[0][0].get<std::string>() + " " + v.rows[0][1].get<std::string>();
    struct utsname un {};
    uname(&un);
    std::printf("# Graph store write throughput\n\n");
    std::printf("Conditions: %d entities (2 aliases, a description and a score each); \"full delta\" adds one\n"
                "mention per entity (100 chunks, 10 documents) and a co_occurs chain of %d relations with one\n"
                "evidence sentence each. Each number is the best of %d runs of clear() + upsert() (per-entity:\n"
                "one run), wall-clock, client and server on the same machine.\n",
                n, n - 1, repeat);
    std::printf("Machine: %s %s, %ld cores (shared with other jobs), load average: %s\n", un.sysname, un.release,
                sysconf(_SC_NPROCESSORS_ONLN), sh("cut -d' ' -f1-3 /proc/loadavg").c_str());
    std::printf("Neo4j %s through the HTTP Query API (%s), auto-commit transaction per statement,\n"
                "heap %s, page cache %s MB%s; SQLite %s, WAL, synchronous=NORMAL, one transaction per upsert.\n\n",
                neo_version.c_str(), parse_neo4j_url(url).shown.c_str(),
                std::getenv("NEO4J_HEAP") ? std::getenv("NEO4J_HEAP") : "512m",
                std::getenv("NEO4J_PAGECACHE_MB") ? std::getenv("NEO4J_PAGECACHE_MB") : "32",
                state_dir.empty() ? " (external server)" : " (scripts/neo4j.sh test server)", sqlite3_libversion());
    std::printf("| backend | write                                                | entities | seconds   | entities/s   | statements |\n");
    std::printf("|---------|------------------------------------------------------|----------|-----------|--------------|------------|\n");

    const GraphDelta ents = make_delta(n, false), full = make_delta(n, true);
    auto sep = url.find('?') == std::string::npos ? "?" : "&";
    // Warm the server up (JIT, plan cache) so that the first measured run is not penalised.
    {
      auto g = make_neo4j_graph_store(url);
      g->clear();
      g->upsert(make_delta(std::min(n, 2000), true));
      g->clear();
    }
    for (int batch : {1000, 500, 100}) {
      auto g = make_neo4j_graph_store(url + sep + "batch=" + std::to_string(batch));
      double s = time_upsert(*g, ents, repeat);
      print_row({"neo4j", "entities, UNWIND batches of " + std::to_string(batch), n, s, (n + batch - 1) / batch});
    }
    {
      GraphDelta some = make_delta(per_entity, false);
      auto g = make_neo4j_graph_store(url + sep + "batch=1");
      double s = time_upsert(*g, some, 1);
      print_row({"neo4j", "entities, one statement per entity", per_entity, s, per_entity});
    }
    double neo_full = 0;
    {
      auto g = make_neo4j_graph_store(url);
      neo_full = time_upsert(*g, full, repeat);
      print_row({"neo4j", "full delta, UNWIND batches of 1000", n, neo_full, 3LL * ((n + 999) / 1000)});
      double t0 = now_s();
      g->remove_document("doc3");
      std::printf("| neo4j   | remove_document (1/10 of the graph)                  | %8d | %9.3f |              |          3 |\n",
                  n / 10, now_s() - t0);
      g->clear();
    }
    mmkg::testing::TempDir dir;
    auto store = Store::open(dir.str());
    {
      auto g = make_sqlite_graph_store(store->db());
      double s = time_upsert(*g, ents, repeat);
      print_row({"sqlite", "entities, one transaction", n, s, 1});
      s = time_upsert(*g, full, repeat);
      print_row({"sqlite", "full delta, one transaction", n, s, 1});
      double t0 = now_s();
      g->remove_document("doc3");
      std::printf("| sqlite  | remove_document (1/10 of the graph)                  | %8d | %9.3f |              |          1 |\n",
                  n / 10, now_s() - t0);
    }
    {
      // Many small deltas (one per "document" of 50 entities), as ingest writes them.
      auto g = make_sqlite_graph_store(store->db());
      g->clear();
      const int per = 50;
      double t0 = now_s();
      for (int i = 0; i < n; i += per) {
        GraphDelta d;
        for (int j = i; j < std::min(n, i + per); ++j) {
          d.entities.push_back(full.entities[j]);
          d.mentions.push_back(full.mentions[j]);
          if (j > 0) d.relations.push_back(full.relations[j - 1]);
        }
        g->upsert(d);
      }
      print_row({"sqlite", "full delta in upserts of 50 (own transaction each)", n, now_s() - t0, (n + per - 1) / per});
    }
    auto g = make_neo4j_graph_store(url);
    g->clear();
  } catch (const std::exception& e) {
    std::cerr << "graph_store_bench: " << e.what() << "\n";
    status = 1;
  }
  if (!state_dir.empty()) {
    sh(script + " stop " + state_dir + " >/dev/null 2>&1");
    std::error_code ec;
    fs::remove_all(state_dir, ec);
  }
  return status;
}
