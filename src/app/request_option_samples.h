// Values an option of app/request_options.h must take and must refuse, read off its spec: the ends
// of its range and each of its choices; one past each end, a value of the wrong type, an unknown
// choice. The front-door tests (cli/request_flags_test.cc, server/request_doors_test.cc) give them to
// every door the option has; a header of the tests, kept beside the table they read.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "app/request_options.h"

namespace mmkg::testing {

struct OptionSamples {
  std::vector<nlohmann::json> good, bad;
};

inline OptionSamples option_samples(const OptionSpec& o) {
  using nlohmann::json;
  OptionSamples s;
  switch (o.type) {
    case OptionType::Integer: {
      const auto lo = static_cast<long long>(o.min), hi = static_cast<long long>(o.max);
      s.good = {json(lo), json(hi)};
      s.bad = {json(lo - 1), json(hi + 1), json("many")};
      break;
    }
    case OptionType::Number:
      s.good = {json(o.min), json(o.max)};
      s.bad = {json(o.min - 0.5), json(o.max + 0.5), json("half")};
      break;
    case OptionType::Boolean:
      s.good = {json(true), json(false)};
      s.bad = {json("maybe"), json(2)};
      break;
    case OptionType::Choice:
      for (const auto& c : o.choices) s.good.push_back(c);
      s.bad = {json("none of them"), json(3)};
      break;
    case OptionType::Text:
      s.good = {o.fallback};
      s.bad = {json(""), json(3)};
      break;
  }
  return s;
}

}  // namespace mmkg::testing
