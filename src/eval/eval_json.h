// `mmkg eval --json`: the EvalReport rendered as the README's JSON contract.
#pragma once

#include <nlohmann/json.hpp>

#include "eval/eval.h"

namespace mmkg {

nlohmann::json eval_json(const EvalReport& r);

}  // namespace mmkg
