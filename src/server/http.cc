#include "server/http.h"

#include <chrono>
#include <cstdio>

#include "app/keys.h"
#include "core/error.h"
#include "core/secret.h"
#include "server/keyring.h"

namespace mmkg::server {

using nlohmann::json;

Auth parse_auth(const std::string& s) {
  if (s == "writes") return Auth::Writes;
  if (s == "all") return Auth::All;
  if (s == "none") return Auth::None;
  throw UsageError("--auth " + s + " is not known; give writes (the key for uploads and deletes), all, or none");
}

namespace {

// The key a request presents: "Authorization: Bearer KEY" or "X-API-Key: KEY"; empty if none.
std::string presented_key(const httplib::Request& req) {
  std::string a = req.get_header_value("Authorization");
  const std::string bearer = "Bearer ";
  if (a.size() > bearer.size() && a.compare(0, bearer.size(), bearer) == 0) return a.substr(bearer.size());
  return req.get_header_value("X-API-Key");
}

}  // namespace

void AccessPolicy::check(const httplib::Request& req, bool write, const std::string& workspace, bool any_workspace) const {
  if (auth == Auth::None) return;
  if (!write && auth != Auth::All) return;
  if (api_key.empty() && !keys)
    throw HttpError(403, "forbidden",
                    "this server has no API key: start it with MMKG_API_KEY set, or with a key file (mmkg keys "
                    "add), to allow this request");
  const std::string k = presented_key(req);
  if (k.empty()) throw HttpError(401, "unauthorized", "an API key is needed: send Authorization: Bearer KEY or X-API-Key: KEY");
  if (!api_key.empty() && same_secret(k, api_key)) return;
  std::optional<ApiKey> scoped;
  try {
    if (keys) scoped = keys->verify(k);
  } catch (const std::exception& e) {
    throw HttpError(500, "internal", std::string("the key file cannot be read (") + e.what() + "); no key is accepted");
  }
  if (!scoped) throw HttpError(401, "unauthorized", "the API key is not valid");
  if (any_workspace && !write) return;
  if (!scoped->allows(workspace, false))
    throw HttpError(403, "forbidden", "this key (" + scoped->id + ") is not for the workspace '" + workspace + "'");
  if (write && !scoped->allows(workspace, true))
    throw HttpError(403, "forbidden", "this key (" + scoped->id + ") may read only; writes need a write key");
}

bool AccessPolicy::may_read(const httplib::Request& req, const std::string& workspace) const {
  try {
    check(req, false, workspace);
    return true;
  } catch (const HttpError&) {
    return false;
  }
}

const char* const kWorkspacePrefix = "(?:/w/[^/]+)?";

std::string request_workspace(const httplib::Request& req) {
  std::string from_path;
  if (req.path.rfind("/w/", 0) == 0) {
    const size_t end = req.path.find('/', 3);
    from_path = req.path.substr(3, end == std::string::npos ? std::string::npos : end - 3);
  }
  const std::string from_header = req.get_header_value("X-MMKG-Workspace");
  if (!from_path.empty() && !from_header.empty() && from_path != from_header)
    throw HttpError(400, "bad_request", "the path names the workspace '" + from_path + "' and X-MMKG-Workspace names '" +
                                            from_header + "': give one, or the same in both");
  const std::string ws = !from_path.empty() ? from_path : from_header.empty() ? "default" : from_header;
  if (!valid_workspace_name(ws))
    throw HttpError(400, "bad_request", "a workspace name is 1 to 64 of A-Z a-z 0-9 _ - (GET /api/workspaces lists them)");
  return ws;
}

Http::Http(AccessPolicy policy, Metrics& metrics, bool log) : policy_(std::move(policy)), metrics_(metrics), log_(log) {
  srv_.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    // httplib's own errors (no route, 413 from the payload limit, ...): a JSON body for each.
    if (!res.body.empty()) return;
    std::string code = "bad_request";
    std::string msg = "the request could not be served";
    if (res.status == 404) code = "not_found", msg = "no such route: " + req.method + " " + req.path;
    if (res.status == 413) code = "payload_too_large", msg = "the request body is larger than the server accepts (--max-upload-mb)";
    if (res.status == 405) code = "method_not_allowed", msg = "this route does not take " + req.method;
    if (res.status >= 500) code = "internal", msg = "internal error";
    send_error(res, res.status, code, msg);
  });
}

Handler Http::wrap(const std::string& method, const std::string& route, Handler h, RouteOptions o) {
  return [this, method, route, h = std::move(h), o](const httplib::Request& req, httplib::Response& res) {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      const std::string ws = request_workspace(req);
      if (!o.open || ws != "default") policy_.check(req, o.write, ws, o.any_workspace);
      h(req, res);
    } catch (const HttpError& e) {
      send_error(res, e.status, e.code, e.what());
      if (e.status == 429) res.set_header("Retry-After", "1");
    } catch (const Cancelled& e) {
      send_error(res, 499, "cancelled", e.what());  // the client closed the request (nginx's code)
    } catch (const NotFoundError& e) {
      send_error(res, 404, "not_found", e.what());
    } catch (const UsageError& e) {
      send_error(res, 400, "bad_request", e.what());
    } catch (const InputError& e) {
      send_error(res, 400, "bad_request", e.what());
    } catch (const nlohmann::json::exception& e) {
      // A field of the body with the wrong type ({"k": "ten"}): the client's mistake.
      send_error(res, 400, "bad_request", std::string("a field of the request has the wrong type: ") + e.what());
    } catch (const std::exception& e) {
      send_error(res, 500, "internal", e.what());
    } catch (...) {
      send_error(res, 500, "internal", "internal error");
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // A streamed response (status not set: 200) runs after this returns: its time here is the
    // time until its stream starts.
    if (res.status == -1) res.status = 200;
    metrics_.request(method + " " + route, res.status, s);
    if (log_) std::fprintf(stderr, "mmkg: http: %s %s %d %.1f ms\n", method.c_str(), route.c_str(), res.status, s * 1000);
  };
}

void Http::get(const std::string& pattern, const std::string& route, Handler h, RouteOptions o) {
  srv_.Get(kWorkspacePrefix + pattern, wrap("GET", route, std::move(h), o));
}
void Http::post(const std::string& pattern, const std::string& route, Handler h, RouteOptions o) {
  srv_.Post(kWorkspacePrefix + pattern, wrap("POST", route, std::move(h), o));
}
void Http::del(const std::string& pattern, const std::string& route, Handler h, RouteOptions o) {
  srv_.Delete(kWorkspacePrefix + pattern, wrap("DELETE", route, std::move(h), o));
}

void send_json(httplib::Response& res, const json& body, int status) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& code, const std::string& message) {
  send_json(res, {{"error", {{"code", code}, {"message", message}}}}, status);
}

json body_json(const httplib::Request& req) {
  json j = json::parse(req.body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw HttpError(400, "bad_request", "the body must be a JSON object");
  return j;
}

std::string param(const httplib::Request& req, const std::string& name, const std::string& fallback) {
  return req.has_param(name) ? req.get_param_value(name) : fallback;
}

int int_param(const httplib::Request& req, const std::string& name, int fallback, int lo, int hi) {
  if (!req.has_param(name)) return fallback;
  const std::string v = req.get_param_value(name);
  try {
    size_t used = 0;
    const int n = std::stoi(v, &used);
    if (used == v.size() && n >= lo && n <= hi) return n;
  } catch (const std::exception&) {
  }
  throw HttpError(400, "bad_request", name + " must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
}

bool wants_sse(const httplib::Request& req) {
  return req.get_header_value("Accept").find("text/event-stream") != std::string::npos;
}

std::string sse_event(const std::string& name, const json& data) {
  return "event: " + name + "\ndata: " + data.dump(-1, ' ', false, json::error_handler_t::replace) + "\n\n";
}

}  // namespace mmkg::server
