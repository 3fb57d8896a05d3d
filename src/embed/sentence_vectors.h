// Sentence-level late interaction with the bi-encoder: a passage scored by its best sentence's
// cosine to a query. A chunk vector averages everything the chunk says, so the sentence that
// answers a question is diluted by the rest. Sentence vectors are cached by the sentence's hash
// across queries (a chunk seen before costs nothing). Used by the "embed" reranker
// (retrieve/rerank_embed.cc) and the fitted ranker's sentence features (index/ranker.h).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace mmkg {

class Embedder;

class SentenceVectors {
 public:
  explicit SentenceVectors(Embedder& embedder) : emb_(embedder) {}
  /// Each text's best sentence cosine to `query` (a query vector of the same embedder), -1 for
  /// an empty text. Sentences shorter than 20 bytes (headings, labels) are skipped unless a text
  /// has nothing else. Thread-safe. Throws the embedder's Error.
  std::vector<double> best_cosines(const std::vector<float>& query, const std::vector<const std::string*>& texts);
  Embedder& embedder() { return emb_; }

 private:
  Embedder& emb_;
  std::mutex mu_;
  std::unordered_map<uint64_t, std::vector<float>> cache_;
};

}  // namespace mmkg
