// A small client for the Neo4j 5 HTTP Query API (`POST {base}/db/{db}/query/v2`): one Cypher
// statement per request, every value a parameter, auto-commit. Used by the Neo4j graph store
// and the graph-store benchmark.
#pragma once

#include <mutex>
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
  /// Runs a statement that only reads, marked `"accessMode": "Read"`: on a cluster the Query API
  /// may run it on a secondary, which first catches up with the last transaction this client
  /// saw (every request carries the bookmarks of the previous answer), so a client reads its own
  /// writes and a later read never sees an older state than an earlier one. A statement that
  /// writes fails (Neo.ClientError.Statement.AccessMode).
  Neo4jResult read(const std::string& statement, const nlohmann::json& parameters = nlohmann::json::object());
  /// The bookmarks of the last answer (what the next request asks the server to have applied).
  std::vector<std::string> bookmarks() const;
  /// Continues another client's chain: the next request waits for what those bookmarks name.
  void set_bookmarks(std::vector<std::string> marks);

  const Neo4jTarget& target() const { return t_; }
  /// Number of requests sent so far (for benchmarks).
  long long requests() const { return requests_; }

 private:
  Neo4jResult send(const std::string& statement, const nlohmann::json& parameters, bool read_only);

  Neo4jTarget t_;
  std::string endpoint_;
  long long requests_ = 0;
  mutable std::mutex bookmarks_mu_;  // a client may serve several threads
  std::vector<std::string> bookmarks_;
};

}  // namespace mmkg
