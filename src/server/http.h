// The one small wrapper around cpp-httplib (Debian's libcpp-httplib-dev) that every route goes
// through: handlers never throw past it (errors become JSON with the right status), writes and
// (with --auth all) reads need the API key, every request is counted and timed for /metrics, and
// one log line per request names the method, route, status and time, never a key, a query string
// or a document's text. (Admission of heavy work, 429 when full, is the session pool's: pool.h.)
#pragma once

#include <httplib.h>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "server/metrics.h"

namespace mmkg::server {

/// A handler's error with its HTTP status and code ("not_found", ...): the body is
/// {"error":{"code":CODE,"message":MESSAGE}}.
struct HttpError : std::runtime_error {
  HttpError(int status, std::string code, const std::string& message)
      : std::runtime_error(message), status(status), code(std::move(code)) {}
  int status;
  std::string code;
};

enum class Auth { Writes, All, None };
/// "writes" | "all" | "none"; UsageError otherwise.
Auth parse_auth(const std::string& s);

class KeyRing;

/// Who may do what. The key is compared in constant time.
struct AccessPolicy {
  Auth auth = Auth::Writes;
  std::string api_key;  ///< MMKG_API_KEY (every workspace, reads and writes); empty: none
  /// Scoped keys (mmkg keys; server/keyring.h); nullptr: none. With neither key, writes are
  /// refused (403) unless auth is None.
  std::shared_ptr<KeyRing> keys;
  /// Throws HttpError 401/403 when `req` may not run a route of this kind in `workspace`. With
  /// `any_workspace` (a route that shows no workspace's data: /metrics, /api/workspaces), any
  /// valid key will do.
  void check(const httplib::Request& req, bool write, const std::string& workspace, bool any_workspace = false) const;
  /// Whether `req` may read `workspace` (check() without the error).
  bool may_read(const httplib::Request& req, const std::string& workspace) const;
};

/// The workspace a request works in (server/workspaces.h): NAME from a path that starts with
/// /w/NAME/, else the X-MMKG-Workspace header, else "default". HttpError 400 for a name that is
/// not 1-64 of [A-Za-z0-9_-], or a prefix and a header that name different workspaces.
std::string request_workspace(const httplib::Request& req);
/// The optional path prefix every route takes, as a regex group that captures nothing (so a
/// route's own groups keep their numbers in req.matches).
extern const char* const kWorkspacePrefix;

struct RouteOptions {
  bool write = false;  ///< needs the key whatever --auth says
  bool open = false;   ///< needs no key in the default workspace (/health, /openapi.json)
  bool any_workspace = false;  ///< shows no workspace's data: any valid key (/metrics, /api/workspaces)
};

using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;

class Http {
 public:
  Http(AccessPolicy policy, Metrics& metrics, bool log);

  void get(const std::string& pattern, const std::string& route, Handler h, RouteOptions o = {});
  void post(const std::string& pattern, const std::string& route, Handler h, RouteOptions o = {});
  void del(const std::string& pattern, const std::string& route, Handler h, RouteOptions o = {});

  httplib::Server& raw() { return srv_; }
  const AccessPolicy& policy() const { return policy_; }

 private:
  Handler wrap(const std::string& method, const std::string& route, Handler h, RouteOptions o);
  httplib::Server srv_;
  AccessPolicy policy_;
  Metrics& metrics_;
  bool log_;
};

/// JSON body helpers.
void send_json(httplib::Response& res, const nlohmann::json& body, int status = 200);
void send_error(httplib::Response& res, int status, const std::string& code, const std::string& message);
/// The request's JSON body (400 when it is not an object).
nlohmann::json body_json(const httplib::Request& req);
/// A query parameter or `fallback`.
std::string param(const httplib::Request& req, const std::string& name, const std::string& fallback = "");
/// An integer parameter within [lo, hi] (400 otherwise).
int int_param(const httplib::Request& req, const std::string& name, int fallback, int lo, int hi);
/// The request asks for Server-Sent Events (Accept: text/event-stream).
bool wants_sse(const httplib::Request& req);
/// One SSE event ("event: NAME\ndata: JSON\n\n").
std::string sse_event(const std::string& name, const nlohmann::json& data);

}  // namespace mmkg::server
