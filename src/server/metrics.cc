#include "server/metrics.h"

#include <cstdio>
#include <set>

namespace mmkg::server {

const std::vector<double>& Metrics::buckets() {
  static const std::vector<double> b = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
  return b;
}

void Metrics::request(const std::string& route, int status, double seconds) {
  std::lock_guard<std::mutex> lk(mu_);
  ++requests_[{route, status}];
  Hist& h = latency_[route];
  if (h.counts.empty()) h.counts.assign(buckets().size(), 0);
  for (size_t i = 0; i < buckets().size(); ++i)
    if (seconds <= buckets()[i]) {
      ++h.counts[i];
      break;
    }
  h.sum += seconds;
  ++h.n;
}

void Metrics::ask() {
  std::lock_guard<std::mutex> lk(mu_);
  ++asks_;
}

void Metrics::model_calls(long long n) {
  std::lock_guard<std::mutex> lk(mu_);
  model_calls_ += n;
}

void Metrics::cancelled() {
  std::lock_guard<std::mutex> lk(mu_);
  ++cancelled_;
}

void Metrics::add_reading(const std::string& name, const std::string& type, const std::string& help,
                          const std::string& labels, Gauge read) {
  std::lock_guard<std::mutex> lk(mu_);
  readings_.push_back({name, type, help, labels, std::move(read)});
}

namespace {

std::string num(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

// A label value with \, " and newline escaped (text format 0.0.4).
std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '\\' || c == '"') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    o += c;
  }
  return o;
}

}  // namespace

std::string Metrics::render() const {
  std::lock_guard<std::mutex> lk(mu_);
  std::string o;
  o += "# HELP mmkg_requests_total HTTP requests served, by route and status.\n";
  o += "# TYPE mmkg_requests_total counter\n";
  for (const auto& [k, n] : requests_)
    o += "mmkg_requests_total{route=\"" + esc(k.first) + "\",status=\"" + std::to_string(k.second) + "\"} " +
         std::to_string(n) + "\n";
  o += "# HELP mmkg_request_duration_seconds Time from request to the response (for a stream, to its start), by route.\n";
  o += "# TYPE mmkg_request_duration_seconds histogram\n";
  for (const auto& [route, h] : latency_) {
    long long cum = 0;
    const std::string r = "route=\"" + esc(route) + "\"";
    for (size_t i = 0; i < buckets().size(); ++i) {
      cum += h.counts[i];
      char le[32];
      std::snprintf(le, sizeof le, "%g", buckets()[i]);
      o += "mmkg_request_duration_seconds_bucket{" + r + ",le=\"" + le + "\"} " + std::to_string(cum) + "\n";
    }
    o += "mmkg_request_duration_seconds_bucket{" + r + ",le=\"+Inf\"} " + std::to_string(h.n) + "\n";
    o += "mmkg_request_duration_seconds_sum{" + r + "} " + num(h.sum) + "\n";
    o += "mmkg_request_duration_seconds_count{" + r + "} " + std::to_string(h.n) + "\n";
  }
  o += "# HELP mmkg_asks_total Questions answered (ask, chat completions, Ollama chat).\n";
  o += "# TYPE mmkg_asks_total counter\n";
  o += "mmkg_asks_total " + std::to_string(asks_) + "\n";
  o += "# HELP mmkg_model_calls_total Requests sent to the chat model while answering.\n";
  o += "# TYPE mmkg_model_calls_total counter\n";
  o += "mmkg_model_calls_total " + std::to_string(model_calls_) + "\n";
  o += "# HELP mmkg_asks_cancelled_total Questions stopped because their client left or cancelled them.\n";
  o += "# TYPE mmkg_asks_cancelled_total counter\n";
  o += "mmkg_asks_cancelled_total " + std::to_string(cancelled_) + "\n";
  std::set<std::string> described;
  for (const auto& r : readings_) {
    if (described.insert(r.name).second) {
      o += "# HELP " + r.name + " " + r.help + "\n";
      o += "# TYPE " + r.name + " " + r.type + "\n";
    }
    o += r.name + (r.labels.empty() ? "" : "{" + r.labels + "}") + " " + num(r.read()) + "\n";
  }
  return o;
}

}  // namespace mmkg::server
