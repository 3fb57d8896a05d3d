// The options of a search and of an ask, declared once, in the manner of DuckDB's settings: each
// has a name, a type, a range or its choices, a default (read off a default-made request), a help
// line and the front doors that take it. The CLI flags (mmkg search, ask, eval), the JSON fields
// of POST /api/search and /api/ask (and GET /api/search's query parameters), the MCP tools' input
// schemas and the defaults `mmkg serve` and `mmkg mcp` give their requests are all made from these
// tables, and every value any door is given is checked and applied here. A unit test checks
// openapi.json against them.
#pragma once

#include <functional>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/session.h"

namespace mmkg {

enum class OptionType { Integer, Number, Boolean, Choice, Text };

/// Where an option may be given.
enum Door : unsigned {
  kDoorCli = 1u << 0,    ///< the command's flags (mmkg search, mmkg ask)
  kDoorEval = 1u << 1,   ///< mmkg eval's flags (the ask options it answers with)
  kDoorHttp = 1u << 2,   ///< the JSON body of POST /api/search and /api/ask; GET /api/search's parameters
  kDoorMcp = 1u << 3,    ///< the MCP tool's arguments
  kDoorServe = 1u << 4,  ///< a default for every request of mmkg serve and mmkg mcp (their flags)
};

struct OptionSpec {
  std::string name;  ///< the JSON field and argument; the flag is --name with '-' for '_' ("-k" for k)
  OptionType type = OptionType::Integer;
  double min = 0, max = 0;            ///< Integer and Number: the range, both ends included
  std::vector<std::string> choices;   ///< Choice
  std::string help;
  unsigned doors = 0;
  nlohmann::json fallback;  ///< the default: the value of a default-made request

  bool at(Door d) const { return (doors & d) != 0; }
  std::string flag() const;
  /// Its JSON Schema: type, minimum and maximum or enum, default, description.
  nlohmann::json schema() const;
  /// The value of a flag or query parameter ("3", "on", "hybrid") as this option's JSON value;
  /// UsageError naming the option (as `door` spells it) and what it takes.
  nlohmann::json parse_text(const std::string& text, Door door) const;
  /// `value` checked against the type and range: UsageError naming the option and what it takes.
  void check(const nlohmann::json& value, Door door) const;
  /// The option as `door` spells it: "--max-rounds" for the CLI and serve, "max_rounds" else.
  std::string spelled(Door door) const;
};

/// One option of a request: its spec and how it reads and writes the request.
template <class Request>
struct RequestOption {
  OptionSpec spec;
  std::function<nlohmann::json(const Request&)> get;
  /// Writes a checked value (UsageError for one the type cannot say is wrong: an unknown reranker).
  std::function<void(Request&, const nlohmann::json&)> set;
};

const std::vector<RequestOption<SearchRequest>>& search_options();
const std::vector<RequestOption<AskRequest>>& ask_options();

/// Applies `given` (option name -> JSON value) to `r`: every name must be an option `door` takes
/// and every value within its range (UsageError naming it, with what it takes). Options not given
/// keep r's values.
void apply_options(const nlohmann::json& given, SearchRequest& r, Door door);
/// As above for an ask. Giving context_tokens or context_chunks sizes the context by hand
/// (AskRequest::fit_context false).
void apply_options(const nlohmann::json& given, AskRequest& r, Door door);

/// The fields of a request body or tool call that are options: all but the request's `own`
/// ("question", "history", ...), to give to apply_options.
nlohmann::json options_in(nlohmann::json fields, std::initializer_list<const char*> own);

/// The specs of the options `door` takes, in table order.
std::vector<OptionSpec> door_options(const std::vector<RequestOption<SearchRequest>>& table, Door door);
std::vector<OptionSpec> door_options(const std::vector<RequestOption<AskRequest>>& table, Door door);

}  // namespace mmkg
