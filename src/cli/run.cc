// mmkg's command line: declares the commands (cli/cmd_*.cc), parses the arguments (CLI11), runs
// the chosen command and maps errors to exit codes. main.cc only calls it, so that CLI11's inline
// code is compiled once, with the commands, not again for the executable.
#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/run.h"
#include "core/error.h"

namespace mmkg::cli {

int run(int argc, char** argv) {
  CLI::App app{"mmkg: documents in, cited answers out (multimodal knowledge graph + agents)", "mmkg"};
  app.require_subcommand(1);
  app.fallthrough();
  app.set_version_flag("--version", std::string("mmkg ") + MMKG_VERSION);

  Common common = Common::from_env();
  add_common(&app, common);
  const std::vector<Command> commands = {
      add_ingest(app, common), add_search(app, common), add_ask(app, common),
      add_delete(app, common), add_stats(app, common),  add_check(app, common),
      add_graph(app, common),  add_eval(app, common),   add_figure(app, common),
      add_export(app, common), add_serve(app, common), add_mcp(app, common),
      add_keys(app, common)};

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    print_error("", std::string(e.what()) + "; see mmkg --help");
    return 2;
  }

  try {
    for (const auto& c : commands)
      if (*c.app) return c.run();
  } catch (const UsageError& e) {
    print_error("", e.what());
    return 2;
  } catch (const Error& e) {
    print_error("", e.what());
    return 1;
  } catch (const std::exception& e) {
    print_error("", std::string("internal error: ") + e.what() + "; please report it");
    return 1;
  }
  return 2;
}

}  // namespace mmkg::cli
