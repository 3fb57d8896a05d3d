// The query team's common shape: every agent (planner, graph retriever, RAG retriever,
// synthesizer, verifier) takes one input and gives one output, and runs through run_agent(),
// the one wrapper that times it, logs it (-v), records it in the trace (--json) with what the
// agent reported, and records a failure before passing it on.
#pragma once

#include <string>

#include "agents/trace.h"

namespace mmkg {

/// What an agent sees of the run besides its input: the typed report it fills (counts, sizes,
/// model calls; see trace.h) and the step log.
struct AgentStep {
  StepDetail& detail;
  Trace& trace;
};

template <typename In, typename Out>
class Agent {
 public:
  using Input = In;
  using Output = Out;
  virtual ~Agent() = default;
  /// The step's name in the trace and the log ("plan", "retrieve", ...).
  virtual std::string name() const = 0;
  virtual Out run(const In& input, AgentStep& step) = 0;
};

/// Runs `agent` on `input` as one traced step.
template <typename In, typename Out>
Out run_agent(Agent<In, Out>& agent, const In& input, Trace& trace) {
  return trace.step(agent.name(), [&](StepDetail& detail) {
    AgentStep step{detail, trace};
    return agent.run(input, step);
  });
}

}  // namespace mmkg
