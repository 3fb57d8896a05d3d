// mmkg: the command-line entry point. Declares the commands (cli/cmd_*.cc), parses the arguments
// (CLI11), runs the chosen command and maps errors to exit codes.
#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "core/error.h"

using namespace mmkg;

int main(int argc, char** argv) {
  CLI::App app{"mmkg: documents in, cited answers out (multimodal knowledge graph + agents)", "mmkg"};
  app.require_subcommand(1);
  app.fallthrough();
  app.set_version_flag("--version", std::string("mmkg ") + MMKG_VERSION);

  cli::Common common = cli::Common::from_env();
  cli::add_common(&app, common);
  const std::vector<cli::Command> commands = {
      cli::add_ingest(app, common), cli::add_search(app, common), cli::add_ask(app, common),
      cli::add_delete(app, common), cli::add_stats(app, common),  cli::add_check(app, common),
      cli::add_graph(app, common),  cli::add_eval(app, common),   cli::add_figure(app, common),
      cli::add_export(app, common), cli::add_serve(app, common), cli::add_mcp(app, common),
      cli::add_keys(app, common)};

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    cli::print_error("", std::string(e.what()) + "; see mmkg --help");
    return 2;
  }

  try {
    for (const auto& c : commands)
      if (*c.app) return c.run();
  } catch (const UsageError& e) {
    cli::print_error("", e.what());
    return 2;
  } catch (const Error& e) {
    cli::print_error("", e.what());
    return 1;
  } catch (const std::exception& e) {
    cli::print_error("", std::string("internal error: ") + e.what() + "; please report it");
    return 1;
  }
  return 2;
}
