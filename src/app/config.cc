#include "app/config.h"

#include <cstdlib>

#include "core/error.h"
#include "net/http.h"

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
  return {env("MMKG_STORE"), env("MMKG_EMBEDDER"), env("MMKG_GRAPH")};
}

Config Config::from_env() {
  Config c;
  const Env e = read_env();
  if (!e.store.empty()) c.store = e.store;
  if (!e.embedder.empty()) c.embedder = EmbedderSpec::parse(e.embedder);
  if (!e.graph.empty()) c.graph = GraphBackend::parse(e.graph);
  return c;
}

void Config::validate() const {
  if (store.empty()) throw UsageError("--store is empty; give the store directory (default ./mmkg-store)");
  // A URL is not a folder: without this, "neo4j://user:pass@host:7474" became a local folder named
  // "neo4j:" holding an embedded store (and the password in its path).
  if (const size_t scheme = store.find("://"); scheme != std::string::npos && scheme > 0) {
    std::string graph = redact_url(store);
    if (const size_t at = graph.find("***@"); at != std::string::npos) graph.replace(at, 3, "USER:PASS");
    throw UsageError("--store " + redact_url(store) +
                     ": the store is a local folder; a store in Neo4j is not supported yet. Keep the store "
                     "local and put the graph, with its vector and full-text search, in Neo4j: --graph " + graph);
  }
}

}  // namespace mmkg
