// mmkg keys add|list|revoke: the scoped API keys of `mmkg serve` (app/keys.h); this file only
// parses the options and prints.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "app/keys.h"
#include "cli/commands.h"
#include "core/error.h"

namespace mmkg::cli {

namespace {

struct KeysOptions {
  std::string file;  ///< --keys
  std::string name, scope = "read", target;
  std::vector<std::string> workspaces;
};

nlohmann::json listed(const ApiKey& k) {
  return {{"id", k.id}, {"name", k.name}, {"scope", key_scope_name(k.scope)}, {"workspaces", k.workspaces},
          {"created", k.created}};
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

int run_add(const std::string& path, const KeysOptions& o, bool json) {
  KeyFile f = KeyFile::load(path);
  const std::string key = f.add(o.name, parse_key_scope(o.scope), o.workspaces);
  const ApiKey& k = f.keys().back();
  if (json) {
    nlohmann::json j = listed(k);
    j["key"] = key;
    j["file"] = path;
    std::printf("%s\n", j.dump().c_str());
  } else {
    std::fprintf(stderr, "mmkg: key %s (%s): %s on %s, in %s; it is shown once, keep it now:\n", k.id.c_str(),
                 k.name.c_str(), key_scope_name(k.scope), joined(k.workspaces).c_str(), path.c_str());
    std::printf("%s\n", key.c_str());
  }
  return 0;
}

int run_list(const std::string& path, bool json) {
  KeyFile f = KeyFile::load(path);
  if (json) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& k : f.keys()) a.push_back(listed(k));
    std::printf("%s\n", nlohmann::json({{"file", path}, {"keys", a}}).dump().c_str());
    return 0;
  }
  if (f.keys().empty()) std::printf("no keys in %s (mmkg keys add)\n", path.c_str());
  for (const auto& k : f.keys())
    std::printf("%s  %-5s  %-20s  %s  %s\n", k.id.c_str(), key_scope_name(k.scope), joined(k.workspaces).c_str(),
                k.created.c_str(), k.name.c_str());
  return 0;
}

int run_revoke(const std::string& path, const std::string& target, bool json) {
  KeyFile f = KeyFile::load(path);
  const ApiKey gone = f.revoke(target);
  if (json) std::printf("%s\n", nlohmann::json({{"file", path}, {"revoked", listed(gone)}}).dump().c_str());
  else std::printf("revoked %s (%s)\n", gone.id.c_str(), gone.name.c_str());
  return 0;
}

}  // namespace

std::string keys_file(const std::string& option, const std::string& store) {
  if (!option.empty()) return option;
  if (const char* e = std::getenv("MMKG_KEYS"); e && *e) return e;
  if (store.find("://") != std::string::npos)
    throw UsageError("a shared store keeps no key file: name one with --keys FILE (or MMKG_KEYS)");
  return (std::filesystem::path(store) / "keys.json").string();
}

Command add_keys(CLI::App& app, Common& c) {
  auto* cmd = app.add_subcommand("keys", "manage the scoped API keys of mmkg serve (kept hashed in a key file)");
  add_common(cmd, c);
  cmd->require_subcommand(1);
  auto o = std::make_shared<KeysOptions>();
  cmd->add_option("--keys", o->file, "the key file (default: env MMKG_KEYS, else STORE/keys.json)");
  auto* add = cmd->add_subcommand("add", "make a key; it is printed once (the file keeps its hash)");
  add->add_option("--name", o->name, "what or whom the key is for")->required();
  add->add_option("--scope", o->scope, "read (search, ask, documents) or write (also uploads and deletes)")
      ->capture_default_str()->check(CLI::IsMember({"read", "write"}));
  add->add_option("--workspace", o->workspaces, "a workspace the key is for (repeat for several; '*': all)")
      ->required();
  auto* list = cmd->add_subcommand("list", "the keys: id, scope, workspaces, created, name (never the key)");
  auto* revoke = cmd->add_subcommand("revoke", "remove a key (a running server refuses it at once)");
  revoke->add_option("ID", o->target, "the key's id, id prefix (4+ digits) or name")->required();
  return {cmd, [&c, o, add, list, revoke]() {
            const std::string path = keys_file(o->file, c.store);
            if (*add) return run_add(path, *o, c.json);
            if (*list) return run_list(path, c.json);
            if (*revoke) return run_revoke(path, o->target, c.json);
            return 2;
          }};
}

}  // namespace mmkg::cli
