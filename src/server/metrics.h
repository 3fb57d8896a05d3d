// Prometheus text metrics of the server: requests by route and status, latency histograms by
// route, ingest jobs, asks and model calls. Thread-safe; render() gives the text format 0.0.4.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace mmkg::server {

class Metrics {
 public:
  /// One finished request of `route` (the route's pattern name, never the raw path).
  void request(const std::string& route, int status, double seconds);
  void ask();
  /// Requests sent to the chat model by one answer.
  void model_calls(long long n);
  /// An answer stopped by its caller (AskOptions::cancel).
  void cancelled();
  /// Gauges read when rendering (queued and running ingest jobs, model usage, ...).
  using Gauge = std::function<double()>;
  /// A value read at render time: `name{labels}` with its HELP and TYPE (gauge or counter).
  void add_reading(const std::string& name, const std::string& type, const std::string& help,
                   const std::string& labels, Gauge read);
  std::string render() const;

  static const std::vector<double>& buckets();

 private:
  struct Hist {
    std::vector<long long> counts;  ///< per bucket (cumulative when rendered)
    double sum = 0;
    long long n = 0;
  };
  mutable std::mutex mu_;
  std::map<std::pair<std::string, int>, long long> requests_;
  std::map<std::string, Hist> latency_;
  long long asks_ = 0, model_calls_ = 0, cancelled_ = 0;
  struct Reading {
    std::string name, type, help, labels;
    Gauge read;
  };
  std::vector<Reading> readings_;
};

}  // namespace mmkg::server
