#include "app/config.h"

#include <cstdlib>

#include "core/error.h"
#include "net/http.h"
#include "store/neo4j_store.h"

namespace mmkg {

GraphBackend GraphBackend::parse(const std::string& spec) {
  GraphBackend g;
  if (spec.empty() || spec == "sqlite") return g;
  if (spec == "none") {
    g.kind = Kind::None;
    return g;
  }
  if (spec.rfind("neo4j://", 0) == 0 || spec.rfind("http://", 0) == 0 || spec.rfind("https://", 0) == 0) {
    g.kind = Kind::Neo4j;
    g.url = spec;
    return g;
  }
  throw UsageError("unknown graph backend '" + redact_url(spec) +
                   "'; use sqlite, none or neo4j://USER:PASS@HOST:PORT[/DB] (Neo4j's HTTP port)");
}

std::string GraphBackend::key() const {
  if (kind != Kind::Neo4j) return "sqlite";
  // neo4j://user:pass@host:port/db → neo4j:host:port/db (no credentials in the store)
  std::string r = redact_url(url);
  auto at = r.find("***@");
  if (at != std::string::npos) r = r.substr(0, r.find("://") + 3) + r.substr(at + 4);
  auto scheme = r.find("://");
  return "neo4j:" + (scheme == std::string::npos ? r : r.substr(scheme + 3));
}

bool Config::store_is_shared() const { return is_shared_store_spec(store); }

void Config::share_graph_with_store(bool graph_unset) {
  if (graph_unset && store_is_shared()) graph = GraphBackend::parse(store);
}

ExtractMode parse_extract_mode(const std::string& s) {
  if (s == "rules") return ExtractMode::Rules;
  if (s == "llm") return ExtractMode::Llm;
  if (s == "none") return ExtractMode::None;
  throw UsageError("unknown extractor '" + s + "'; use rules, llm or none");
}

Config::Env Config::read_env() {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v && *v ? v : "";
  };
  return {env("MMKG_STORE"), env("MMKG_EMBEDDER"), env("MMKG_GRAPH"), env("MMKG_CACHE_DIR")};
}

Config Config::from_env() {
  Config c;
  const Env e = read_env();
  if (!e.store.empty()) c.store = e.store;
  if (!e.embedder.empty()) c.embedder = EmbedderSpec::parse(e.embedder);
  if (!e.graph.empty()) c.graph = GraphBackend::parse(e.graph);
  if (!e.cache.empty()) c.cache = e.cache;
  c.share_graph_with_store(e.graph.empty());
  return c;
}

void Config::validate() const {
  if (store.empty()) throw UsageError("--store is empty; give the store directory (default ./mmkg-store)");
  // A URL is not a folder: without this, "ftp://user:pass@host" would become a local folder named
  // "ftp:" holding an embedded store (and the password in its path).
  if (const size_t scheme = store.find("://"); scheme != std::string::npos && scheme > 0 && !store_is_shared())
    throw UsageError("--store " + redact_url(store) +
                     ": give a local folder, or a shared store in Neo4j as neo4j://USER:PASS@HOST:PORT[/DB] "
                     "(Neo4j's HTTP port)");
  if (store_is_shared() && graph.kind == GraphBackend::Kind::Sqlite)
    throw UsageError("--store " + redact_url(store) +
                     ": a shared store keeps its graph in Neo4j too; leave --graph out (the same database) "
                     "or give --graph neo4j://... or none");
}

}  // namespace mmkg
