// mmkg serve: the HTTP server (server/server.h); this file only parses its options.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/install_paths.h"
#include "server/server.h"
#include "server/workspaces.h"

namespace mmkg::cli {

namespace {

// The built web UI: MMKG_UI_DIR, else ui/ beside the binary (build/ui after `make build`), else
// share/mmkg/ui of an installed mmkg (<prefix>/bin/mmkg: docs/INSTALL.md).
std::string default_ui_dir() {
  if (const char* e = std::getenv("MMKG_UI_DIR")) return e;
  const std::string exe_dir = executable_dir();
  if (exe_dir.empty()) return "";
  const std::string beside = (std::filesystem::path(exe_dir) / "ui").string();
  if (std::filesystem::is_directory(beside)) return beside;
  const std::string installed = installed_data_path("ui", exe_dir);
  return installed.empty() ? beside : installed;
}

}  // namespace

Command add_serve(CLI::App& app, Common& c) {
  auto* cmd = app.add_subcommand("serve", "serve the store over HTTP: JSON API, OpenAI- and Ollama-compatible chat, web UI");
  add_common(cmd, c);
  auto o = std::make_shared<server::ServeOptions>();
  cmd->add_option("--host", o->host, "address to listen on (loopback unless told otherwise)")->capture_default_str();
  cmd->add_option("--port", o->port, "port (0: any free port)")->capture_default_str()->check(CLI::Range(0, 65535));
  auto* auth = cmd->add_option("--auth", o->auth,
                  "who needs the API key (env MMKG_API_KEY): writes (uploads, deletes), all (every route but "
                  "/health and /openapi.json) or none (loopback only); with --workspace or --workspaces-dir the default is all")
      ->capture_default_str()->check(CLI::IsMember({"writes", "all", "none"}));
  cmd->add_option("--workspace", o->workspaces,
                  "another workspace, NAME=STORE (a folder, created when missing, or neo4j://...); repeat for "
                  "more. Requests choose one with the path prefix /w/NAME or the header X-MMKG-Workspace; "
                  "--store is the workspace \"default\"")
      ->type_name("NAME=STORE");
  cmd->add_option("--workspaces-dir", o->workspaces_dir,
                  "a folder whose every subfolder is a workspace of its name (created when missing); a new "
                  "subfolder is found at the first request that names it")
      ->type_name("DIR");
  cmd->add_option("--workers", o->workers, "requests answered at once (0: one per core, at least 2)")
      ->capture_default_str()->check(CLI::Range(0, 256));
  cmd->add_option("--max-queue", o->max_queue, "requests that may wait for a worker before the next gets 429")
      ->capture_default_str()->check(CLI::Range(0, 100000));
  cmd->add_option("--max-upload-mb", o->max_upload_mb, "largest request body, in MiB")->capture_default_str()
      ->check(CLI::Range(1, 65536));
  cmd->add_option("--ui", o->ui_dir, "folder of the built web UI (default: env MMKG_UI_DIR, else ui/ beside the binary, else "
                  "../share/mmkg/ui from it)");
  cmd->add_option("--keys", o->keys_file,
                  "key file of scoped keys (mmkg keys add); default: env MMKG_KEYS, else STORE/keys.json when it exists");
  cmd->add_flag("--quiet", [o](int64_t) { o->log_requests = false; }, "no log line per request");
  cmd->add_option("--llm", c.llm,
                  "language model: none (extractive), local (one llama-cpp-python server for all requests), "
                  "or an OpenAI-compatible URL http(s)://HOST/v1#model=NAME")
      ->capture_default_str();
  auto defaults = std::make_shared<nlohmann::json>(nlohmann::json::object());
  add_request_flags(cmd, door_options(ask_options(), kDoorServe), kDoorServe, defaults,
                    "Ask defaults (every ask starts from them; a request's own options override them)");
  return {cmd, [&c, o, auth, defaults]() {
            server::ServeOptions opt = *o;
            opt.ask_defaults = *defaults;
            AskRequest checked;  // a bad default fails now (exit 2), not at every ask
            apply_options(*defaults, checked, kDoorServe);
            // Keys keep workspaces apart only if reads need one too.
            if ((!opt.workspaces.empty() || !opt.workspaces_dir.empty()) && auth->count() == 0) opt.auth = "all";
            if (opt.ui_dir.empty()) opt.ui_dir = default_ui_dir();
            if (const char* k = std::getenv("MMKG_API_KEY")) opt.api_key = k;
            Config cfg = c.config();
            if (opt.keys_file.empty() && (std::getenv("MMKG_KEYS") || cfg.store.find("://") == std::string::npos)) {
              const std::string f = keys_file("", cfg.store);
              if (std::filesystem::exists(f)) opt.keys_file = f;
            }
            const std::string store = cfg.store;
            const bool json = c.json;
            std::vector<std::string> names = {"default"};
            for (const auto& w : opt.workspaces) names.push_back(server::WorkspaceSpec::parse(w).name);
            opt.on_ready = [store, json, names](const std::string& url) {
              if (json)
                std::printf("%s\n", nlohmann::json({{"url", url}, {"store", store}, {"workspaces", names}}).dump().c_str());
              else
                std::printf("mmkg: serving %s on %s\n", store.c_str(), url.c_str());
              std::fflush(stdout);
            };
            return server::serve(cfg, opt);
          }};
}

}  // namespace mmkg::cli
