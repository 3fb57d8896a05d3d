// The option tables (app/request_options.h) against the command line: mmkg search, ask and eval
// take their options as flags, and mmkg serve and mcp take the ask options as the defaults of
// their requests, each with the table's default, taking the ends of its range and refusing what
// lies beyond.
#include <gtest/gtest.h>

#include "cli/commands.h"
#include "app/request_option_samples.h"

namespace mmkg::cli {
namespace {

using nlohmann::json;
using mmkg::testing::option_samples;

struct Cli {
  CLI::App app{"mmkg"};
  Common common;
  std::vector<Command> commands;  ///< kept: they hold what the flags write to
  Cli() {
    commands = {add_search(app, common), add_ask(app, common), add_eval(app, common), add_serve(app, common),
                add_mcp(app, common)};
  }
  CLI::App* command(const std::string& name) { return app.get_subcommand(name); }
};

std::string text_of(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

/// The arguments that make `command` parse: its positional.
std::vector<std::string> base(const std::string& command) {
  if (command == "search" || command == "ask") return {command, "a question"};
  if (command == "eval") return {command, __FILE__};  // an existing file
  return {command};
}

void parses(const std::string& command, const std::string& flag, const std::string& value, bool ok) {
  Cli cli;
  std::vector<std::string> args = base(command);
  args.push_back(flag);
  args.push_back(value);
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  if (ok)
    EXPECT_NO_THROW(cli.app.parse(args)) << command << " " << flag << " " << value;
  else
    EXPECT_THROW(cli.app.parse(args), CLI::ParseError) << command << " " << flag << " " << value;
}

void check_door(const std::string& command, const std::vector<OptionSpec>& specs) {
  Cli cli;
  for (const OptionSpec& o : specs) {
    const CLI::Option* f = cli.command(command)->get_option_no_throw(o.flag());
    ASSERT_NE(f, nullptr) << "mmkg " << command << " lacks " << o.flag();
    EXPECT_EQ(f->get_default_str(), text_of(o.fallback)) << command << " " << o.flag();
    const auto s = option_samples(o);
    for (const json& v : s.good) parses(command, o.flag(), text_of(v), true);
    for (const json& v : s.bad)
      if (!(o.type == OptionType::Text && !v.is_string())) parses(command, o.flag(), text_of(v), false);
  }
}

TEST(RequestFlags, EveryCommandTakesTheOptionsTheTableGivesItsDoor) {
  check_door("search", door_options(search_options(), kDoorCli));
  check_door("ask", door_options(ask_options(), kDoorCli));
  check_door("eval", door_options(ask_options(), kDoorEval));
  check_door("serve", door_options(ask_options(), kDoorServe));
  check_door("mcp", door_options(ask_options(), kDoorServe));
}

TEST(RequestFlags, EvalKeepsItsOwnModeAndNoPerQuestionK) {
  Cli cli;
  EXPECT_EQ(cli.command("eval")->get_option_no_throw("-k"), nullptr);
  parses("eval", "--mode", "all", true);
  parses("ask", "--mode", "all", false);
}

}  // namespace
}  // namespace mmkg::cli
