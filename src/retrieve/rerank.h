// Rerankers: a second, closer look at the fused candidates before the context budget packs them.
// One small interface; one backend per file:
//   rerank_lexical.cc  "lexical": IDF-weighted coverage of the question's terms within a window
//                      of two sentences, plus its word pairs as phrases (proximity BM25 lacks)
//   rerank_embed.cc    "embed": sentence-level late interaction with the bi-encoder (the best
//                      sentence's cosine to the question; sentence vectors cached)
//   rerank_llm.cc      "llm": the chat model ranks the passages (listwise, JSON schema output);
//                      a failed or unusable answer keeps the fused order
//   rerank.cc          the factory, "A+B" (reciprocal-rank fusion of several rerankers) and
//                      rerank(), which blends a reranker's order with the fused one
// No cross-encoder: no package on PyPI ships cross-encoder weights usable offline (docs/EVAL.md).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "retrieve/retrieval.h"

namespace mmkg {

class ChatModel;
class Embedder;
class TermStats;

class Reranker {
 public:
  virtual ~Reranker() = default;
  /// The spec that builds it (RerankSpec::text()): "lexical", "embed", "llm", "lexical+embed".
  virtual std::string name() const = 0;
  /// Relevance of each passage to `question`, higher is better, one score per passage. Empty
  /// when it cannot judge them (the fused order then stands); `why` then says why. Never throws
  /// for a model's failure.
  virtual std::vector<double> score(const std::string& question, const std::vector<const SearchHit*>& passages,
                                    std::string& why) = 0;
  /// True when its scores include each passage's proximity to the question (text/proximity.h),
  /// which z-score fusion would otherwise count a second time.
  virtual bool scores_proximity() const { return false; }
};

/// What a reranker may use; each backend needs one of these (make_reranker says which).
struct RerankDeps {
  TermStats* stats = nullptr;    ///< lexical: IDF of the question's words
  Embedder* embedder = nullptr;  ///< embed: the bi-encoder (the Searcher's)
  ChatModel* chat = nullptr;     ///< llm: the chat model (--llm)
};

enum class RerankerKind { Lexical, Embed, Llm };

/// Which rerankers run: none, one, or several whose orders are fused by reciprocal rank. Parsed
/// once from its text ("none", "lexical", "embed", "llm", or several joined by '+':
/// "lexical+embed"). The default is lexical, which needs no model (docs/EVAL.md, "Reranking").
struct RerankSpec {
  std::vector<RerankerKind> parts = {RerankerKind::Lexical};

  /// UsageError for an unknown name (naming the ones there are).
  static RerankSpec parse(const std::string& text);
  static RerankSpec none() { return RerankSpec{{}}; }
  bool uses(RerankerKind k) const;
  /// The text it parses from: "none", "lexical", "lexical+embed".
  std::string text() const;
};

/// The rerankers of `spec` (nullptr for none); several are fused by reciprocal rank. Throws
/// UsageError for a missing dependency (what to pass instead).
std::unique_ptr<Reranker> make_reranker(const RerankSpec& spec, const RerankDeps& deps);
/// The names make_reranker accepts, for --help and errors.
const char* reranker_names();

/// Scores the first `top_n` candidates with `r` and reorders them by a blend of the reranker's
/// order and the fused order (reciprocal rank, `weight` on the reranker's side; 1: its order
/// alone), stable on ties. The others keep their order after them. Sets each candidate's
/// `rerank` score. On a reranker failure the order is unchanged and report.fallback says why.
RerankReport rerank(Reranker& r, const std::string& question, std::vector<Candidate>& cands, size_t top_n,
                    double weight = 0.5);

/// Backends (rerank_*.cc); make_reranker is the usual way in.
std::unique_ptr<Reranker> make_lexical_reranker(TermStats& stats);
std::unique_ptr<Reranker> make_embed_reranker(Embedder& embedder);
std::unique_ptr<Reranker> make_llm_reranker(ChatModel& chat);

}  // namespace mmkg
