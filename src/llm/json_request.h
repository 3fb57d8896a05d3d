// The request the agents send most: deterministic (temperature 0), one system instruction and one
// user message, and an answer in JSON that must match a schema (the planner, the follow-up
// rewriter, the verifier's judge, the LLM reranker).
#pragma once

#include <string>

#include "llm/chat_model.h"

namespace mmkg {

/// A ChatRequest at temperature 0 for at most `max_tokens`, asking for JSON of `schema` (named
/// `schema_name`), with the messages [system, user].
ChatRequest json_request(std::string schema_name, nlohmann::ordered_json schema, std::string system, std::string user,
                         int max_tokens);

}  // namespace mmkg
