// HTTP for the model backends (embedding and chat servers): one POST through libcurl with
// timeouts, stall detection, cancellation and a body-size cap, plus a retry loop with
// exponential backoff and jitter that honours retry-after and the x-ratelimit-* headers.
// Secrets (API keys) travel only in headers and never appear in error messages.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"

namespace mmkg {

struct HttpRequest {
  std::string url;
  std::string body;                  // sent as POST; empty body + get=true sends GET
  std::vector<std::string> headers;  // "Name: value"
  bool get = false;
};

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased; last value wins
  std::string body;
  std::string header(const std::string& lower_name) const;
};

struct HttpLimits {
  double connect_timeout_s = 10;
  double timeout_s = 300;  // whole exchange
  double stall_s = 60;     // silence after the first byte for this long = stalled
  size_t max_body = size_t(256) << 20;
  /// Checked while waiting for bytes and while sleeping between retries; true = abort.
  const std::atomic<bool>* cancel = nullptr;
  /// Streaming: called with each piece of the body as it arrives (the body is still collected).
  /// Return false to stop the transfer (reported as NetError::Kind::Cancelled).
  std::function<bool(std::string_view)> on_data;
};

/// A transport failure: no complete HTTP response.
class NetError : public Error {
 public:
  enum class Kind { Connect, Timeout, Stall, Truncated, Cancelled, TooLarge, Other };
  NetError(Kind kind, const std::string& msg) : Error(msg), kind_(kind) {}
  Kind kind() const { return kind_; }
  /// Worth another attempt (not for cancellation or an over-large body).
  bool retryable() const { return kind_ != Kind::Cancelled && kind_ != Kind::TooLarge; }

 private:
  Kind kind_;
};

/// A complete response whose status says the request failed (after any retries).
class HttpStatusError : public Error {
 public:
  HttpStatusError(long status, const std::string& msg, std::string body)
      : Error(msg), status_(status), body_(std::move(body)) {}
  long status() const { return status_; }
  const std::string& body() const { return body_; }

 private:
  long status_;
  std::string body_;
};

/// One exchange. Throws NetError on transport failures; any HTTP status is returned.
HttpResponse http_send(const HttpRequest& req, const HttpLimits& limits = {});

struct RetryPolicy {
  int max_attempts = 5;      // including the first
  double base_delay_s = 0.5;  // doubles each attempt, with jitter
  double max_delay_s = 30;    // cap of one backoff delay
  /// A server asking to wait longer than this (retry-after, rate-limit reset) fails at once.
  double max_server_delay_s = 120;
  /// Statuses that are retried. Defaults: 408 409 425 429 500 502 503 504 529.
  std::vector<long> retry_statuses = {408, 409, 425, 429, 500, 502, 503, 504, 529};
  /// Sleeps between attempts; tests replace it to record delays. Default: a sleep that wakes
  /// early when limits.cancel is set.
  std::function<void(double seconds)> sleep;
};

/// Called before each retry: attempt number (1 = first retry), delay, and the reason.
using RetryObserver = std::function<void(int attempt, double delay_s, const std::string& why)>;

/// http_send with retries. Returns the first 2xx response. Throws HttpStatusError for a status
/// that is not retried or still fails after the last attempt, NetError for transport failures
/// after the last attempt. `what` names the service in error messages ("embedding server").
HttpResponse http_send_with_retry(const HttpRequest& req, const HttpLimits& limits,
                                  const RetryPolicy& policy, const std::string& what,
                                  const RetryObserver& observer = {});

/// Seconds the server asks us to wait: retry-after-ms, retry-after (seconds or HTTP date), or,
/// for 429, the x-ratelimit-reset-requests/-tokens header whose remaining count is 0 (else the
/// larger reset). nullopt when the response says nothing.
std::optional<double> server_retry_delay(const HttpResponse& resp);

/// Parses rate-limit durations as sent by OpenAI and Groq: "1m30.5s", "6ms", "2h", "0.5s", "17".
std::optional<double> parse_duration_s(std::string_view s);

/// Decodes %XX escapes and '+' (a space) in a URL fragment or query value.
std::string percent_decode(const std::string& s);

/// Splits "URL#k1=v1&k2=v2" (the options mmkg reads from a spec's fragment, never sent to a
/// server): `url` keeps the part before '#', the result is the (key, percent-decoded value)
/// pairs in order; a key without '=' has an empty value, empty items are skipped.
std::vector<std::pair<std::string, std::string>> split_fragment_options(std::string& url);

/// The URL without credentials: userinfo and key-like query parameters are replaced by "***".
std::string redact_url(const std::string& url);

/// A short, single-line excerpt of an error body: the "error.message" of an OpenAI-style JSON
/// error when there is one, else the first 200 characters with control characters removed.
std::string error_excerpt(const std::string& body);

}  // namespace mmkg
