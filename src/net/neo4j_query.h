// A small client for the Neo4j 5 HTTP Query API (`POST {base}/db/{db}/query/v2`): one Cypher
// statement per request, every value a parameter, auto-commit. Used by the Neo4j graph store
// and the graph-store benchmark.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mmkg {

/// Where a Neo4j server is, parsed from neo4j://USER:PASS@HOST:PORT[/DB] or
/// http(s)://USER:PASS@HOST:PORT[/DB] (the HTTP port; neo4j:// defaults to 7474).
struct Neo4jTarget {
  std::string base;        ///< "http://host:port" (no credentials, no path)
  std::string db = "neo4j";
  std::string authorization;  ///< "Authorization: Basic ..." header, empty without credentials
  std::string shown;       ///< the URL for messages, credentials replaced by ***
  /// Rows per UNWIND statement (`?batch=N` in the URL; 1 = one statement per row, for benchmarks).
  int batch = 1000;
};

/// Throws UsageError for a malformed URL (the message never contains the credentials).
Neo4jTarget parse_neo4j_url(const std::string& url);

/// The result of one statement: column names and rows (each row a JSON array).
struct Neo4jResult {
  std::vector<std::string> fields;
  nlohmann::json rows = nlohmann::json::array();
};

class Neo4jClient {
 public:
  explicit Neo4jClient(Neo4jTarget target);

  /// Runs one statement. Throws Error naming the server (redacted), the Neo4j error code and
  /// message, and what to do. Transport failures and 5xx are retried by http_send_with_retry;
  /// Neo4j transient errors (deadlocks, leader switches) are retried here.
  Neo4jResult run(const std::string& statement, const nlohmann::json& parameters = nlohmann::json::object());

  const Neo4jTarget& target() const { return t_; }
  /// Number of requests sent so far (for benchmarks).
  long long requests() const { return requests_; }

 private:
  Neo4jTarget t_;
  std::string endpoint_;
  long long requests_ = 0;
};

}  // namespace mmkg
