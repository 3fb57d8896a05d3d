// The LLM extractor (`mmkg ingest --extract llm`): a chat model reads each chunk and lists typed
// entities and relations with descriptions, as JSON matching a schema (temperature 0), then one
// gleaning pass in the same conversation adds what it missed. Its answer is grounded in the text
// before anything is kept:
//   - an entity is kept only when its name occurs in the chunk (word by word, case, plural and
//     hyphenation aside, i.e. name_key-equivalent); its surface is the chunk's own spelling;
//   - a relation is kept only when both ends are kept (an end the model did not list as an entity
//     is grounded the same way); its evidence is a verbatim sentence of the chunk: the one holding
//     both ends, else one holding either;
//   - types outside the documented sets become "other" (entities) and "related_to" (relations).
// A chunk whose model output is unusable after the client's own repair (not JSON, no entity list,
// nothing grounded) or that the server refuses as a bad request (400/413/422: too long for the
// context window) falls back to the rule extractor's result; that result is cached like any
// other, so a rerun makes no model call. Transport failures (server down, timeouts after the
// client's retries, 5xx) propagate: nothing is cached and the next ingest resumes.
//
// The extractor id, under which graph_builder caches extractions per chunk text, is
// "llm-v1:<model>:<prompt version>": changing the model or any part of the prompt, schema or
// options invalidates the cache.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graph/model/extractor.h"

namespace mmkg {
class ChatModel;
}

namespace mmkg::graph {

/// Entity types the schema allows: concept, method, model, dataset, metric, task, person,
/// organization, artifact, other.
const std::vector<std::string>& llm_entity_types();
/// Relation types the schema allows: uses, part_of, is_a, extends, proposes, compared_with,
/// evaluated_on, related_to.
const std::vector<std::string>& llm_relation_types();

struct LlmExtractOptions {
  /// Names the model in the extractor id ("SmolLM2-135M-Instruct.Q4_1", "gpt-4o-mini"); empty =
  /// the chat model's id(). Must not hold secrets (it is stored).
  std::string model;
  /// Chunks extracted at once; set it to the client's concurrency (LlmConfig::concurrency).
  int parallelism = 4;
  /// One more request per chunk, in the same conversation, for entities and relations missed.
  bool gleaning = true;
  /// Tokens per answer.
  int max_tokens = 1536;
  /// Per answer (the schema's maxItems) and per chunk after merging the two passes.
  int max_entities = 8;
  int max_relations = 8;
};

/// An extractor calling `chat` (thread-safe, outlives the extractor).
std::unique_ptr<Extractor> make_llm_extractor(ChatModel& chat, LlmExtractOptions options = {});

/// 8 hex digits identifying the prompt: instructions, schema, gleaning prompt and the options that
/// change the answer. Part of the extractor id.
std::string llm_extract_prompt_version(const LlmExtractOptions& options);

}  // namespace mmkg::graph
