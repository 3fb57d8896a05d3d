#include "app/keys.h"

#include <openssl/evp.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/clock.h"
#include "core/error.h"
#include "core/secret.h"
#include "store/atomic_file.h"

namespace mmkg {

namespace {

using nlohmann::json;

constexpr int kVersion = 1;
constexpr const char* kFormat = "mmkg-keys";
constexpr const char* kPrefix = "mmkg_";

std::string sha256_hex(const std::string& s) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(s.data(), s.size(), md, &n, EVP_sha256(), nullptr) != 1) throw Error("SHA-256 failed (OpenSSL)");
  return to_hex(md, n);
}

json key_json(const ApiKey& k) {
  return {{"id", k.id},           {"name", k.name},       {"scope", key_scope_name(k.scope)},
          {"workspaces", k.workspaces}, {"created", k.created}, {"salt", k.salt}, {"sha256", k.sha256}};
}

ApiKey key_from(const json& j, const std::string& path) {
  auto bad = [&](const std::string& why) { return Error(path + ": " + why + "; fix or remove the entry with mmkg keys"); };
  if (!j.is_object()) throw bad("a key entry is not an object");
  ApiKey k;
  for (const char* f : {"id", "name", "scope", "created", "salt", "sha256"})
    if (!j.contains(f) || !j[f].is_string()) throw bad(std::string("a key entry lacks \"") + f + "\"");
  k.id = j["id"], k.name = j["name"], k.created = j["created"], k.salt = j["salt"], k.sha256 = j["sha256"];
  const std::string scope = j["scope"];
  if (scope != "read" && scope != "write") throw bad("key " + k.id + " has scope \"" + scope + "\"");
  k.scope = scope == "write" ? KeyScope::Write : KeyScope::Read;
  if (!j.contains("workspaces") || !j["workspaces"].is_array()) throw bad("key " + k.id + " lacks its workspaces");
  for (const auto& w : j["workspaces"])
    if (w.is_string()) k.workspaces.push_back(w);
  return k;
}

}  // namespace

KeyScope parse_key_scope(const std::string& s) {
  if (s == "read") return KeyScope::Read;
  if (s == "write") return KeyScope::Write;
  throw UsageError("a key's scope is read or write, not '" + s + "'");
}

const char* key_scope_name(KeyScope s) { return s == KeyScope::Write ? "write" : "read"; }

bool valid_workspace_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; });
}

bool ApiKey::allows(const std::string& workspace, bool write) const {
  if (write && scope != KeyScope::Write) return false;
  return std::any_of(workspaces.begin(), workspaces.end(), [&](const std::string& w) { return w == "*" || w == workspace; });
}

KeyFile KeyFile::load(const std::string& path) {
  KeyFile f;
  f.path_ = path;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return f;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read the key file " + path + ": " + std::strerror(errno) + "; check its permissions");
  std::stringstream ss;
  ss << in.rdbuf();
  json j = json::parse(ss.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != kFormat)
    throw Error(path + " is not an mmkg key file (made by mmkg keys add); name another file with --keys");
  if (j.value("version", 0) > kVersion)
    throw Error(path + " was written by a newer mmkg (key file version " + std::to_string(j.value("version", 0)) +
                "); upgrade mmkg");
  if (j.contains("keys") && j["keys"].is_array())
    for (const auto& k : j["keys"]) f.keys_.push_back(key_from(k, path));
  return f;
}

void KeyFile::save() const {
  json keys = json::array();
  for (const auto& k : keys_) keys.push_back(key_json(k));
  const std::string body = json{{"format", kFormat}, {"version", kVersion}, {"keys", keys}}.dump(2) + "\n";
  const std::filesystem::path parent = std::filesystem::path(path_).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);  // with the usual mode
  const mode_t old = ::umask(077);  // the file is created 0600: hashes are not secrets, but no one else needs them
  try {
    write_file_atomically(path_, body, "the key file");
  } catch (...) {
    ::umask(old);
    throw;
  }
  ::umask(old);
}

std::string KeyFile::add(const std::string& name, KeyScope scope, std::vector<std::string> workspaces) {
  if (name.empty()) throw UsageError("a key needs a name (--name): what or whom it is for");
  if (workspaces.empty()) throw UsageError("a key needs at least one workspace (--workspace NAME, or '*' for all)");
  for (const auto& w : workspaces)
    if (w != "*" && !valid_workspace_name(w))
      throw UsageError("'" + w + "' is not a workspace name (1-64 letters, digits, '_' or '-'; '*' for all)");
  ApiKey k;
  do k.id = random_hex(6);
  while (std::any_of(keys_.begin(), keys_.end(), [&](const ApiKey& o) { return o.id == k.id; }));
  k.name = name;
  k.scope = scope;
  k.workspaces = std::move(workspaces);
  k.created = utc_now_iso();
  k.salt = random_hex(16);
  const std::string secret = random_hex(32);
  k.sha256 = sha256_hex(k.salt + secret);
  keys_.push_back(k);
  save();
  return kPrefix + k.id + "_" + secret;
}

ApiKey KeyFile::revoke(const std::string& id_or_name) {
  std::vector<size_t> hits;
  for (size_t i = 0; i < keys_.size(); ++i)
    if (keys_[i].name == id_or_name || keys_[i].id == id_or_name ||
        (id_or_name.size() >= 4 && keys_[i].id.rfind(id_or_name, 0) == 0))
      hits.push_back(i);
  if (hits.empty()) throw UsageError("no key with id or name '" + id_or_name + "' in " + path_ + " (mmkg keys list)");
  if (hits.size() > 1) throw UsageError("'" + id_or_name + "' names " + std::to_string(hits.size()) + " keys; give the id");
  ApiKey gone = keys_[hits[0]];
  keys_.erase(keys_.begin() + static_cast<long>(hits[0]));
  save();
  return gone;
}

std::optional<ApiKey> KeyFile::verify(const std::string& presented) const {
  // mmkg_<12 hex>_<64 hex>
  const size_t idlen = 12, secretlen = 64, prefix = std::strlen(kPrefix);
  if (presented.size() != prefix + idlen + 1 + secretlen || presented.rfind(kPrefix, 0) != 0 ||
      presented[prefix + idlen] != '_')
    return std::nullopt;
  const std::string id = presented.substr(prefix, idlen), secret = presented.substr(prefix + idlen + 1);
  for (const auto& k : keys_)
    if (k.id == id) return same_secret(sha256_hex(k.salt + secret), k.sha256) ? std::optional<ApiKey>(k) : std::nullopt;
  return std::nullopt;
}

}  // namespace mmkg
