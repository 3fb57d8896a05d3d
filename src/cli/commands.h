// The mmkg subcommands. Each add_* declares a command's options on `app` and returns what runs
// it: the command's exit code (0 ok, 1 some inputs failed, 2 usage or configuration error).
// Commands only parse arguments, call the Session (app/session.h) and print.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>

#include "app/config.h"
#include "app/request_options.h"
#include "app/session.h"

namespace mmkg::cli {

/// Options every command shares (accepted before or after the subcommand).
struct Common {
  std::string store;                ///< --store / MMKG_STORE
  bool json = false;                ///< --json: one JSON object on stdout
  bool verbose = false;             ///< -v: step log on stderr
  std::string embedder = "native";  ///< --embedder / MMKG_EMBEDDER
  std::string fusion = "auto";      ///< --fusion ("auto": Config::fusion unset)
  std::string ranker;               ///< --ranker FILE (Config::ranker)
  std::string answerable;           ///< --answerable FILE (Config::answerable)
  std::string selector;             ///< --selector FILE (Config::selector)
  std::string graph;                ///< --graph / MMKG_GRAPH (empty: sqlite, or a shared store's database)
  std::string cache;                ///< --cache / MMKG_CACHE_DIR
  std::string llm;                  ///< --llm of the commands that take one (empty: config file, environment)

  /// The environment's defaults (MMKG_STORE, MMKG_EMBEDDER, MMKG_GRAPH, MMKG_CACHE_DIR).
  static Common from_env();
  /// The typed Config (UsageError for a bad value).
  Config config() const;
};

/// Declares the shared options on `a` (every command lists them in its --help).
void add_common(CLI::App* a, Common& c);

/// Declares a flag on `a` for each option of `specs` (app/request_options.h), with its help, range
/// and default; a flag given is written to `given` by option name, its text parsed and checked by
/// the table (a bad value is a usage error naming the flag and what it takes).
/// `group`: the heading they are listed under in --help (empty: CLI11's "OPTIONS").
void add_request_flags(CLI::App* a, const std::vector<OptionSpec>& specs, Door door,
                       const std::shared_ptr<nlohmann::json>& given, const std::string& group = "");

using Run = std::function<int()>;
struct Command {
  CLI::App* app = nullptr;
  Run run;
};

Command add_ingest(CLI::App& app, Common& c);
Command add_delete(CLI::App& app, Common& c);
Command add_stats(CLI::App& app, Common& c);
Command add_check(CLI::App& app, Common& c);
Command add_search(CLI::App& app, Common& c);
Command add_ask(CLI::App& app, Common& c);
Command add_eval(CLI::App& app, Common& c);
Command add_graph(CLI::App& app, Common& c);
Command add_figure(CLI::App& app, Common& c);
Command add_export(CLI::App& app, Common& c);
Command add_serve(CLI::App& app, Common& c);
Command add_mcp(CLI::App& app, Common& c);
Command add_keys(CLI::App& app, Common& c);

/// The key file of `mmkg keys` and `mmkg serve`: `option` (--keys), else MMKG_KEYS, else
/// STORE/keys.json (UsageError for a shared store, which has no folder).
std::string keys_file(const std::string& option, const std::string& store);

/// Opens the session for `c` (the store created when `create`).
std::unique_ptr<Session> open_session(const Common& c, bool create = false);

/// Prints `mmkg: error: <subject>: <message>` (or without subject) on stderr.
void print_error(const std::string& subject, const std::string& message);

}  // namespace mmkg::cli
