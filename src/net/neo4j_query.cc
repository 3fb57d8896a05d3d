#include "net/neo4j_query.h"

#include <chrono>
#include <optional>
#include <thread>

#include "core/ascii.h"
#include "core/base64.h"
#include "core/error.h"
#include "net/http.h"

namespace mmkg {

namespace {

// Unlike net/http.h's percent_decode, '+' stays a plus: in the user-info of a URL it is literal.
std::string userinfo_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && isxdigit((unsigned char)s[i + 1]) && isxdigit((unsigned char)s[i + 2])) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// "Neo.TransientError.Transaction.DeadlockDetected" and friends: safe to run again. So is a
// `CREATE ... IF NOT EXISTS` that lost a race with another process creating the same index or
// constraint (several mmkg processes opening a new store at once): run again, it finds it.
bool transient(const std::string& code) {
  return code.rfind("Neo.TransientError.", 0) == 0 || code == "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists";
}

struct Neo4jFailure {
  std::string code, message;
};

// The first entry of a Query API "errors" array, if any.
std::optional<Neo4jFailure> first_error(const nlohmann::json& body) {
  if (!body.is_object() || !body.contains("errors") || !body["errors"].is_array() || body["errors"].empty())
    return std::nullopt;
  const auto& e = body["errors"][0];
  Neo4jFailure f;
  if (e.is_object()) {
    f.code = e.value("code", std::string("(no code)"));
    f.message = e.value("message", std::string());
  }
  return f;
}

std::string one_line(std::string s, size_t max = 300) {
  for (auto& c : s)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  if (s.size() > max) s = s.substr(0, max) + "...";
  return s;
}

// The error for a request Neo4j refused (after the retries in send): what failed and what to do.
[[noreturn]] void throw_refused(const HttpStatusError& e, const std::optional<Neo4jFailure>& f, const std::string& where,
                                const std::string& db) {
  if (e.status() == 401 || e.status() == 403)
    throw Error(where + " refused the credentials (HTTP " + std::to_string(e.status()) + (f ? ", " + f->code : "") +
                "); check USER:PASS in the graph URL");
  if (f && f->code == "Neo.ClientError.Database.DatabaseNotFound")
    throw Error(where + ": database '" + db + "' does not exist; create it or name another one in the URL path");
  if (f)
    throw Error(where + ": " + f->code + ": " + one_line(f->message) + " (HTTP " + std::to_string(e.status()) +
                "); this is a bug in mmkg's Cypher or a server problem");
  throw Error(std::string(e.what()) + "; check that the URL points at Neo4j's HTTP port (7474)");
}

// The "data" member of a Query API answer as fields and rows.
Neo4jResult result_of(const nlohmann::json& j, const std::string& where) {
  Neo4jResult r;
  if (!j.contains("data") || !j["data"].is_object())
    throw Error(where + " answered without a \"data\" member; check that the URL points at Neo4j 5's Query API");
  const auto& d = j["data"];
  if (d.contains("fields") && d["fields"].is_array())
    for (const auto& f : d["fields"]) r.fields.push_back(f.is_string() ? f.get<std::string>() : f.dump());
  if (d.contains("values") && d["values"].is_array()) r.rows = d["values"];
  return r;
}

}  // namespace

Neo4jTarget parse_neo4j_url(const std::string& url) {
  Neo4jTarget t;
  t.shown = redact_url(url);
  const auto bad = [&](const std::string& why) {
    return UsageError("graph store URL " + t.shown + ": " + why +
                      "; use neo4j://USER:PASS@HOST:7474[/DB] or http(s)://USER:PASS@HOST:PORT[/DB]");
  };
  const size_t sep = url.find("://");
  if (sep == std::string::npos) throw bad("no scheme");
  const std::string scheme = lower_ascii(url.substr(0, sep));
  std::string http_scheme;
  if (scheme == "neo4j" || scheme == "http") http_scheme = "http";
  else if (scheme == "https" || scheme == "neo4j+s") http_scheme = "https";
  else throw bad("unsupported scheme '" + scheme + "'");
  std::string rest = url.substr(sep + 3);
  std::string query;
  if (size_t q = rest.find('?'); q != std::string::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  std::string path;
  if (size_t slash = rest.find('/'); slash != std::string::npos) {
    path = rest.substr(slash + 1);
    rest = rest.substr(0, slash);
  }
  if (size_t at = rest.rfind('@'); at != std::string::npos) {
    std::string userinfo = rest.substr(0, at);
    rest = rest.substr(at + 1);
    size_t colon = userinfo.find(':');
    std::string user = userinfo_decode(userinfo.substr(0, colon));
    std::string pass = colon == std::string::npos ? "" : userinfo_decode(userinfo.substr(colon + 1));
    t.authorization = "Authorization: Basic " + base64_encode(user + ":" + pass);
  }
  if (rest.empty()) throw bad("no host");
  const size_t bracket = rest.rfind(']');  // IPv6 literal: the port colon comes after it
  const bool has_port = rest.find(':', bracket == std::string::npos ? 0 : bracket) != std::string::npos;
  if (!has_port && scheme == "neo4j") rest += ":7474";
  t.base = http_scheme + "://" + rest;
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (!path.empty()) {
    if (path.find('/') != std::string::npos) throw bad("the path must be just a database name");
    t.db = userinfo_decode(path);
  }
  for (size_t i = 0; i < query.size();) {
    size_t amp = query.find('&', i);
    if (amp == std::string::npos) amp = query.size();
    std::string kv = query.substr(i, amp - i);
    if (kv.rfind("batch=", 0) == 0) {
      try {
        t.batch = std::stoi(kv.substr(6));
      } catch (...) {
        t.batch = 0;
      }
      if (t.batch < 1) throw bad("batch must be a positive number");
    } else if (!kv.empty()) {
      throw bad("unknown option '" + kv.substr(0, kv.find('=')) + "'");
    }
    i = amp + 1;
  }
  return t;
}

Neo4jClient::Neo4jClient(Neo4jTarget target) : t_(std::move(target)) {
  // The database name goes into the path: escape what is not a plain name character.
  std::string db;
  for (unsigned char c : t_.db) {
    if (isalnum(c) || c == '-' || c == '_' || c == '.') db += static_cast<char>(c);
    else {
      char buf[4];
      snprintf(buf, sizeof buf, "%%%02X", c);
      db += buf;
    }
  }
  endpoint_ = t_.base + "/db/" + db + "/query/v2";
}

Neo4jResult Neo4jClient::run(const std::string& statement, const nlohmann::json& parameters) {
  return send(statement, parameters, false);
}

Neo4jResult Neo4jClient::read(const std::string& statement, const nlohmann::json& parameters) {
  return send(statement, parameters, true);
}

std::vector<std::string> Neo4jClient::bookmarks() const {
  std::lock_guard<std::mutex> lock(bookmarks_mu_);
  return bookmarks_;
}

void Neo4jClient::set_bookmarks(std::vector<std::string> marks) {
  std::lock_guard<std::mutex> lock(bookmarks_mu_);
  bookmarks_ = std::move(marks);
}

Neo4jResult Neo4jClient::send(const std::string& statement, const nlohmann::json& parameters, bool read_only) {
  HttpRequest req;
  req.url = endpoint_;
  auto make_body = [&] {
    nlohmann::json body = {{"statement", statement}, {"parameters", parameters}};
    if (read_only) body["accessMode"] = "Read";
    std::vector<std::string> marks = bookmarks();
    if (!marks.empty()) body["bookmarks"] = marks;
    req.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  make_body();
  req.headers = {"Content-Type: application/json", "Accept: application/json"};
  if (!t_.authorization.empty()) req.headers.push_back(t_.authorization);
  HttpLimits limits;
  limits.connect_timeout_s = 10;
  limits.timeout_s = 600;
  limits.stall_s = 300;  // a large UNWIND or DETACH DELETE can think for a while before answering
  RetryPolicy policy;
  policy.max_attempts = 4;
  policy.retry_statuses = {408, 429, 502, 503, 504};
  const std::string where = "Neo4j at " + t_.shown;

  for (int attempt = 1;; ++attempt) {
    HttpResponse resp;
    ++requests_;
    try {
      resp = http_send_with_retry(req, limits, policy, "Neo4j");
    } catch (const HttpStatusError& e) {
      nlohmann::json j = nlohmann::json::parse(e.body(), nullptr, false);
      auto f = first_error(j);
      // A bookmark the server cannot honour (it was wiped and remade, or the database was
      // replaced): the client forgets it and asks again without.
      if (f && f->code.rfind("Neo.ClientError.Transaction.InvalidBookmark", 0) == 0 && attempt < 4) {
        set_bookmarks({});
        make_body();
        continue;
      }
      if (f && transient(f->code) && attempt < 4) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200 * attempt));
        continue;
      }
      throw_refused(e, f, where, t_.db);
    } catch (const NetError& e) {
      throw Error(std::string(e.what()) + "; start Neo4j or check the URL of --store or --graph (the HTTP port, usually 7474)");
    }
    nlohmann::json j = nlohmann::json::parse(resp.body, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      throw Error(where + " answered HTTP " + std::to_string(resp.status) + " with a body that is not JSON (" +
                  one_line(resp.body, 120) + "); check that the URL points at Neo4j 5's HTTP port");
    // The Query API may answer 202 with both data and errors (a failure after the first rows).
    if (auto f = first_error(j)) {
      if (transient(f->code) && attempt < 4) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200 * attempt));
        continue;
      }
      throw Error(where + ": " + f->code + ": " + one_line(f->message) +
                  "; this is a bug in mmkg's Cypher or a server problem");
    }
    if (j.contains("bookmarks") && j["bookmarks"].is_array() && !j["bookmarks"].empty()) {
      std::vector<std::string> marks;
      for (const auto& b : j["bookmarks"])
        if (b.is_string()) marks.push_back(b.get<std::string>());
      set_bookmarks(std::move(marks));
    }
    return result_of(j, where);
  }
}

}  // namespace mmkg
