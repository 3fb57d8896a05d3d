// Helpers for the query-team tests only: ask() through a Searcher with a named embedder.
#pragma once

#include <string>

#include "agents/ask.h"
#include "agents/trace_json.h"
#include "embed/embedder.h"
#include "index/searcher.h"

namespace mmkg::testing {

/// ask() over `store` with the embedder `embedder` ("native" by default; "none": BM25 only).
inline AskResult ask_with(Store& store, const std::string& question, const AskOptions& opt,
                          const std::string& embedder = "native") {
  LazyEmbedder emb(EmbedderSpec::parse(embedder));
  Searcher searcher(store, emb);
  return ask(store, searcher, question, opt);
}

}  // namespace mmkg::testing
