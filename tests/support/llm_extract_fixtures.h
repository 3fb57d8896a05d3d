// Scripted answers of an OpenAI-compatible server for the LLM extractor's tests (graph/extract)
// and the graph sync's (graph/build) (header-only; not part of the library).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "llm/llm_config.h"
#include "net/http.h"
#include "support/scripted_http_server.h"

namespace mmkg::graph::llm_extract_fixture {

using json = nlohmann::json;
using mmkg::testing::ScriptedHttpServer;

inline const std::string kText =
    "The Transformer uses multi-head attention. BERT is a language model pre-trained on BooksCorpus. "
    "It reaches 80.5 on GLUE.";

// An OpenAI chat completion whose content is `graph` as JSON text.
inline std::string answer(const json& graph) {
  json msg = {{"role", "assistant"}, {"content", graph.dump()}};
  return json{{"id", "x"},
              {"model", "m"},
              {"choices", {{{"index", 0}, {"message", msg}, {"finish_reason", "stop"}}}},
              {"usage", {{"prompt_tokens", 100}, {"completion_tokens", 20}, {"total_tokens", 120}}}}
      .dump();
}

inline std::string raw_answer(const std::string& content) {
  json msg = {{"role", "assistant"}, {"content", content}};
  return json{{"choices", {{{"index", 0}, {"message", msg}, {"finish_reason", "stop"}}}}}.dump();
}

inline json ent(const std::string& name, const std::string& type, const std::string& desc = "") {
  return {{"name", name}, {"type", type}, {"description", desc}};
}

inline json rel(const std::string& s, const std::string& t, const std::string& type, const std::string& desc = "") {
  return {{"source", s}, {"target", t}, {"type", type}, {"description", desc}};
}

inline json graph(json entities, json relations = json::array()) {
  return {{"entities", std::move(entities)}, {"relations", std::move(relations)}};
}

inline LlmConfig config(const ScriptedHttpServer& s, int concurrency = 4) {
  LlmConfig c;
  c.base_url = s.url("/v1");
  c.model = "test-model";
  c.timeout_s = 10;
  c.max_retries = 1;
  c.concurrency = concurrency;
  return c;
}

inline RetryPolicy no_sleep() {
  RetryPolicy p;
  p.sleep = [](double) {};
  return p;
}

}  // namespace mmkg::graph::llm_extract_fixture
