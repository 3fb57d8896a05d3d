// API keys with scopes, kept hashed in a key file (`mmkg keys add|list|revoke`, `mmkg serve
// --keys FILE`). A key grants `read` (search, ask, documents, figures, graph) or `write` (also
// uploads and deletes) on some workspaces or on all ("*"). The file holds each key's SHA-256
// with a salt, never the key: the key is printed once, when it is made. Keys are 256 random
// bits, so a plain salted hash is enough (no slow password hash is needed to resist guessing).
//
// Key file (JSON, written atomically with mode 0600):
//   {"format": "mmkg-keys", "version": 1, "keys": [{"id", "name", "scope", "workspaces",
//    "created", "salt", "sha256"}]}
// A key reads "mmkg_<id>_<secret>": the id finds its entry, the secret is checked in constant time.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mmkg {

enum class KeyScope { Read, Write };
/// "read" | "write"; UsageError otherwise.
KeyScope parse_key_scope(const std::string& s);
const char* key_scope_name(KeyScope s);

struct ApiKey {
  std::string id;    ///< 12 hex digits, public (listed, revoked by)
  std::string name;  ///< what the key is for ("team-a reader")
  KeyScope scope = KeyScope::Read;
  std::vector<std::string> workspaces;  ///< names, or "*" (all)
  std::string created;                  ///< UTC, ISO 8601
  std::string salt, sha256;             ///< hex

  /// Whether the key may do a read (or a write) in `workspace`.
  bool allows(const std::string& workspace, bool write) const;
};

class KeyFile {
 public:
  /// Reads `path`; a missing file is an empty key file (Error for one that is not a key file).
  static KeyFile load(const std::string& path);

  /// Makes a key, saves the file and returns the key (shown once: it is not stored).
  /// UsageError for an empty name, no workspace, or a workspace name that is not [A-Za-z0-9_-]+ or "*".
  std::string add(const std::string& name, KeyScope scope, std::vector<std::string> workspaces);
  /// Removes the key with this id (or id prefix of 4+ digits, or name); saves. UsageError when
  /// none or several match.
  ApiKey revoke(const std::string& id_or_name);

  /// The key a request presents, if it is in the file.
  std::optional<ApiKey> verify(const std::string& presented) const;

  const std::vector<ApiKey>& keys() const { return keys_; }
  const std::string& path() const { return path_; }

 private:
  void save() const;
  std::string path_;
  std::vector<ApiKey> keys_;
};

/// Whether `name` is a valid workspace name: 1-64 of [A-Za-z0-9_-].
bool valid_workspace_name(const std::string& name);

}  // namespace mmkg
