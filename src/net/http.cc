#include "net/http.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <mutex>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/ascii.h"

namespace mmkg {
namespace {

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// One easy handle per thread, reset between requests, so connections are kept alive.
struct Handle {
  CURL* h = nullptr;
  Handle() {
    global_init();
    h = curl_easy_init();
  }
  ~Handle() {
    if (h) curl_easy_cleanup(h);
  }
};

struct Transfer {
  HttpResponse* resp;
  const HttpLimits* limits;
  bool too_large = false;
  bool stopped_by_consumer = false;
  bool stalled = false;
  // Time of the last byte received; the stall clock starts with the first byte, so a server
  // that thinks long before answering (a non-streaming LLM) is bounded by timeout_s only.
  std::chrono::steady_clock::time_point last_byte{};
  bool got_bytes = false;
  void touch() {
    last_byte = std::chrono::steady_clock::now();
    got_bytes = true;
  }
};

size_t on_body(char* ptr, size_t size, size_t n, void* ud) {
  auto* t = static_cast<Transfer*>(ud);
  const size_t len = size * n;
  t->touch();
  if (t->resp->body.size() + len > t->limits->max_body) {
    t->too_large = true;
    return 0;  // makes curl fail with CURLE_WRITE_ERROR
  }
  t->resp->body.append(ptr, len);
  if (t->limits->on_data && !t->limits->on_data(std::string_view(ptr, len))) {
    t->stopped_by_consumer = true;
    return 0;
  }
  return len;
}

size_t on_header(char* ptr, size_t size, size_t n, void* ud) {
  auto* t = static_cast<Transfer*>(ud);
  const size_t len = size * n;
  t->touch();
  std::string_view line(ptr, len);
  if (line.rfind("HTTP/", 0) == 0) {
    t->resp->headers.clear();  // a new response (after 100-continue or a redirect)
  } else if (auto colon = line.find(':'); colon != std::string_view::npos) {
    t->resp->headers[lower_ascii(trim(line.substr(0, colon)))] = trim(line.substr(colon + 1));
  }
  return len;
}

int on_progress(void* ud, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(ud);
  if (t->limits->cancel && t->limits->cancel->load()) return 1;
  if (t->got_bytes && std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                    t->last_byte).count() > t->limits->stall_s) {
    t->stalled = true;
    return 1;
  }
  return 0;
}

}  // namespace

std::string HttpResponse::header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? std::string() : it->second;
}

HttpResponse http_send(const HttpRequest& req, const HttpLimits& limits) {
  thread_local Handle handle;
  CURL* h = handle.h;
  if (!h) throw NetError(NetError::Kind::Other, "cannot initialise libcurl");
  curl_easy_reset(h);

  HttpResponse resp;
  Transfer t{&resp, &limits};
  curl_slist* headers = nullptr;
  for (const auto& hd : req.headers) headers = curl_slist_append(headers, hd.c_str());
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip

  curl_easy_setopt(h, CURLOPT_URL, req.url.c_str());
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  if (req.get) {
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.body.data());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
  }
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(limits.connect_timeout_s * 1000));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(limits.timeout_s * 1000));
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(h, CURLOPT_XFERINFODATA, &t);
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // any encoding curl can decode
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);

  const auto t0 = std::chrono::steady_clock::now();
  const CURLcode rc = curl_easy_perform(h);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  curl_slist_free_all(headers);

  if (rc != CURLE_OK) {
    const std::string where = redact_url(req.url);
    using K = NetError::Kind;
    if (t.too_large) {
      throw NetError(K::TooLarge, where + ": the response is larger than " +
                                      std::to_string(limits.max_body >> 20) + " MiB");
    }
    if (t.stalled) {
      throw NetError(K::Stall, where + ": the server stopped sending for " +
                                   std::to_string(static_cast<int>(limits.stall_s)) + " s");
    }
    if (t.stopped_by_consumer || rc == CURLE_ABORTED_BY_CALLBACK) {
      throw NetError(K::Cancelled, where + ": cancelled");
    }
    switch (rc) {
      case CURLE_COULDNT_CONNECT:
      case CURLE_COULDNT_RESOLVE_HOST:
      case CURLE_COULDNT_RESOLVE_PROXY:
        throw NetError(K::Connect, where + ": cannot connect (" + curl_easy_strerror(rc) + ")");
      case CURLE_OPERATION_TIMEDOUT: {
        if (elapsed + 0.5 < limits.timeout_s) {  // the connect timeout
          throw NetError(K::Connect, where + ": cannot connect within " +
                                         std::to_string(static_cast<int>(limits.connect_timeout_s)) + " s");
        }
        throw NetError(K::Timeout, where + ": no complete answer within " +
                                       std::to_string(static_cast<int>(limits.timeout_s)) + " s");
      }
      case CURLE_PARTIAL_FILE:
      case CURLE_RECV_ERROR:
      case CURLE_GOT_NOTHING:
      case CURLE_SEND_ERROR:
        throw NetError(K::Truncated, where + ": the connection closed before the response was "
                                             "complete (" + curl_easy_strerror(rc) + ")");
      default:
        throw NetError(K::Other, where + ": " + curl_easy_strerror(rc));
    }
  }
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &resp.status);
  return resp;
}

std::optional<double> parse_duration_s(std::string_view s) {
  std::string str = trim(s);
  if (str.empty()) return std::nullopt;
  double total = 0;
  size_t i = 0;
  bool any = false;
  while (i < str.size()) {
    size_t j = i;
    while (j < str.size() && (std::isdigit(static_cast<unsigned char>(str[j])) || str[j] == '.')) ++j;
    if (j == i) return std::nullopt;
    double v = 0;
    try {
      v = std::stod(str.substr(i, j - i));
    } catch (...) {
      return std::nullopt;
    }
    size_t k = j;
    while (k < str.size() && std::isalpha(static_cast<unsigned char>(str[k]))) ++k;
    const std::string unit = str.substr(j, k - j);
    if (unit.empty() || unit == "s") total += v;
    else if (unit == "ms") total += v / 1000;
    else if (unit == "m") total += v * 60;
    else if (unit == "h") total += v * 3600;
    else return std::nullopt;
    any = true;
    i = k;
  }
  return any ? std::optional<double>(total) : std::nullopt;
}

std::optional<double> server_retry_delay(const HttpResponse& resp) {
  if (auto ms = resp.header("retry-after-ms"); !ms.empty()) {
    if (auto v = parse_duration_s(ms)) return *v / 1000;
  }
  if (auto ra = resp.header("retry-after"); !ra.empty()) {
    if (auto v = parse_duration_s(ra)) return *v;
    std::tm tm{};  // HTTP date: "Wed, 21 Oct 2015 07:28:00 GMT"
    if (strptime(ra.c_str(), "%a, %d %b %Y %H:%M:%S", &tm)) {
      const double d = std::difftime(timegm(&tm), std::time(nullptr));
      return std::max(0.0, d);
    }
  }
  if (resp.status == 429) {
    std::optional<double> best;
    for (const char* kind : {"requests", "tokens"}) {
      const std::string reset = resp.header(std::string("x-ratelimit-reset-") + kind);
      const std::string remaining = resp.header(std::string("x-ratelimit-remaining-") + kind);
      auto d = parse_duration_s(reset);
      if (!d) continue;
      if (remaining == "0") return d;  // the exhausted budget decides
      best = std::max(best.value_or(0.0), *d);
    }
    return best;
  }
  return std::nullopt;
}

std::string redact_url(const std::string& url) {
  std::string out = url;
  const size_t scheme = out.find("://");
  const size_t host_start = scheme == std::string::npos ? 0 : scheme + 3;
  const size_t path_start = out.find_first_of("/?#", host_start);
  const size_t at = out.rfind('@', path_start == std::string::npos ? out.size() : path_start);
  if (at != std::string::npos && at >= host_start) {
    out = out.substr(0, host_start) + "***@" + out.substr(at + 1);
  }
  const size_t q = out.find('?');
  if (q != std::string::npos) {
    std::string res = out.substr(0, q + 1);
    size_t i = q + 1;
    while (i <= out.size()) {
      size_t amp = out.find_first_of("&#", i);
      if (amp == std::string::npos) amp = out.size();
      std::string kv = out.substr(i, amp - i);
      const size_t eq = kv.find('=');
      const std::string key = lower_ascii(kv.substr(0, eq));
      if (eq != std::string::npos &&
          (key.find("key") != std::string::npos || key.find("token") != std::string::npos ||
           key.find("secret") != std::string::npos || key.find("password") != std::string::npos ||
           key == "sig")) {
        kv = kv.substr(0, eq + 1) + "***";
      }
      res += kv;
      if (amp >= out.size()) break;
      res += out[amp];
      if (out[amp] == '#') {
        res += out.substr(amp + 1);
        break;
      }
      i = amp + 1;
    }
    out = res;
  }
  return out;
}

std::string percent_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
               std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> split_fragment_options(std::string& url) {
  std::vector<std::pair<std::string, std::string>> out;
  const size_t h = url.find('#');
  if (h == std::string::npos) return out;
  const std::string frag = url.substr(h + 1);
  url.resize(h);
  size_t i = 0;
  while (i < frag.size()) {
    size_t amp = frag.find('&', i);
    if (amp == std::string::npos) amp = frag.size();
    const std::string kv = frag.substr(i, amp - i);
    i = amp + 1;
    if (kv.empty()) continue;
    const size_t eq = kv.find('=');
    out.emplace_back(kv.substr(0, eq), eq == std::string::npos ? "" : percent_decode(kv.substr(eq + 1)));
  }
  return out;
}

std::string error_excerpt(const std::string& body) {
  std::string msg;
  try {
    auto j = nlohmann::json::parse(body);
    if (j.is_object() && j.contains("error")) {
      const auto& e = j["error"];
      if (e.is_string()) msg = e.get<std::string>();
      else if (e.is_object() && e.contains("message") && e["message"].is_string())
        msg = e["message"].get<std::string>();
    } else if (j.is_object() && j.contains("detail") && j["detail"].is_string()) {
      msg = j["detail"].get<std::string>();
    } else if (j.is_object() && j.contains("message") && j["message"].is_string()) {
      msg = j["message"].get<std::string>();
    }
  } catch (...) {
  }
  if (msg.empty()) msg = body;
  std::string out;
  for (char c : msg) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    out += c;
    if (out.size() >= 200) {
      out += "...";
      break;
    }
  }
  return trim(out);
}

namespace {

void cancellable_sleep(double seconds, const std::atomic<bool>* cancel) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (cancel && cancel->load()) return;
    std::this_thread::sleep_for(std::min<std::chrono::duration<double>>(
        std::chrono::milliseconds(50), end - std::chrono::steady_clock::now()));
  }
}

double backoff(int attempt, const RetryPolicy& p) {
  // "Equal jitter": half the exponential delay plus a random part of the other half, so
  // concurrent clients spread out without ever retrying immediately.
  thread_local std::mt19937_64 rng{std::random_device{}()};
  const double d = std::min(p.max_delay_s, p.base_delay_s * std::pow(2.0, attempt - 1));
  std::uniform_real_distribution<double> u(0.0, d / 2);
  return d / 2 + u(rng);
}

}  // namespace

HttpResponse http_send_with_retry(const HttpRequest& req, const HttpLimits& limits,
                                  const RetryPolicy& policy, const std::string& what,
                                  const RetryObserver& observer) {
  const std::string where = what + " at " + redact_url(req.url);
  for (int attempt = 1;; ++attempt) {
    const bool last = attempt >= policy.max_attempts;
    std::string why;
    double delay = 0;
    try {
      HttpResponse resp = http_send(req, limits);
      if (resp.status >= 200 && resp.status < 300) return resp;
      const bool retry = std::find(policy.retry_statuses.begin(), policy.retry_statuses.end(),
                                   resp.status) != policy.retry_statuses.end();
      const std::string detail = error_excerpt(resp.body);
      std::string msg = where + " answered HTTP " + std::to_string(resp.status) +
                        (detail.empty() ? "" : " (" + detail + ")");
      if (!retry) {
        std::string hint = resp.status == 401 || resp.status == 403
                               ? "; check the API key"
                               : resp.status == 404 ? "; check the URL and the model name" : "";
        throw HttpStatusError(resp.status, msg + hint, std::move(resp.body));
      }
      const auto asked = server_retry_delay(resp);
      if (asked && *asked > policy.max_server_delay_s) {
        throw HttpStatusError(resp.status,
                              msg + "; the server asks to wait " +
                                  std::to_string(static_cast<long>(std::ceil(*asked))) +
                                  " s, longer than the " +
                                  std::to_string(static_cast<long>(policy.max_server_delay_s)) +
                                  " s allowed; try again later",
                              std::move(resp.body));
      }
      if (last) {
        throw HttpStatusError(resp.status,
                              msg + "; gave up after " + std::to_string(attempt) + " attempts",
                              std::move(resp.body));
      }
      delay = asked ? *asked : backoff(attempt, policy);
      why = "HTTP " + std::to_string(resp.status);
    } catch (const NetError& e) {
      if (!e.retryable()) throw;
      if (last) {
        throw NetError(e.kind(), what + " at " + e.what() + "; gave up after " +
                                     std::to_string(attempt) + " attempts");
      }
      delay = backoff(attempt, policy);
      why = e.what();
    }
    if (observer) observer(attempt, delay, why);
    if (policy.sleep) policy.sleep(delay);
    else cancellable_sleep(delay, limits.cancel);
    if (limits.cancel && limits.cancel->load()) {
      throw NetError(NetError::Kind::Cancelled, where + ": cancelled");
    }
  }
}

}  // namespace mmkg
