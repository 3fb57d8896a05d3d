// Extraction: chunk text → candidate terms and relations (surface forms, before resolution).
// The rule-based extractor (extract_rules.cc) is the default and the fallback; the LLM extractor
// (extract_llm.h) implements the same interface.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace mmkg::graph {

struct ExtractInput {
  std::string chunk_id;
  std::string doc_id;
  std::string doc_title;     ///< may be empty
  std::string heading_path;  ///< "Intro > Background"
  std::string text;
};

struct TermCandidate {
  std::string surface;     ///< as written: "Multi-Head Attention", "MHA", "attention sink"
  std::string kind;        ///< noun_phrase | capitalised | acronym | heading | technical | llm
  std::string expansion;   ///< for an acronym defined in the text: "Multi-Head Attention"
  std::string definition;  ///< a sentence defining the term ("X is a ..."), if the chunk has one
  std::string type;        ///< entity type when known (LLM extraction, or "acronym"); else empty
  int count = 1;           ///< occurrences in the chunk
  double score = 0;        ///< termhood, set by rank_terms
};

/// Relation between two terms of the same chunk, by surface form (must equal a term's surface).
struct RelationCandidate {
  std::string src;
  std::string dst;
  std::string type;      ///< co_occurs | is_a | part_of | uses | extends | proposes | compared_with | ...
  std::string sentence;  ///< the evidence sentence, verbatim from the chunk
  double weight = 1;
  std::string description{};  ///< what the relation says, in words (LLM extraction); else empty
};

struct ChunkExtraction {
  std::string chunk_id;
  std::vector<TermCandidate> terms;
  std::vector<RelationCandidate> relations;
};

/// What an extractor that calls a model spent (all zero for the rule extractor).
struct ExtractorCounters {
  long long model_calls = 0;    ///< model calls not served by a cache (gleaning passes included)
  long long model_requests = 0; ///< HTTP requests those took (retries, JSON repairs, format probes)
  long long model_cached = 0;   ///< answers served by the LLM response cache without a request
  long long fallbacks = 0;      ///< chunks whose model output was unusable: rule extraction instead
  long long prompt_tokens = 0;
  long long completion_tokens = 0;
  std::string first_fallback;   ///< why the first fallback happened ("" when none)
};

class Extractor {
 public:
  virtual ~Extractor() = default;
  /// Names the method and its version ("rules-v4"); extractions are cached under it.
  virtual std::string id() const = 0;
  /// Thread-safe. Throws Error when the chunk cannot be extracted now (a model server that is
  /// down): nothing is cached then, and the next run tries again.
  virtual ChunkExtraction extract(const ExtractInput& input) = 0;
  /// How many chunks to extract at once: the cores for CPU-bound extractors, the model client's
  /// concurrency for model-bound ones.
  virtual int parallelism() const { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }
  /// Totals since construction.
  virtual ExtractorCounters counters() const { return {}; }
};

}  // namespace mmkg::graph
