// `ask --json`'s "trace": the typed step records (trace.h) rendered as the JSON contract of the
// README. Rendering only: nothing reads this JSON back.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "agents/trace.h"

namespace mmkg {

nlohmann::json step_json(const StepRecord& step);
/// [{"step", "ms", "round" (follow-up rounds), "error" (a failed step), ...the step's detail}]
nlohmann::json trace_json(const std::vector<StepRecord>& steps);
nlohmann::json entity_link_json(const graph::EntityLink& e);

}  // namespace mmkg
