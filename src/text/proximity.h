// How completely and how closely a passage states a question. BM25 scores a chunk's words
// wherever they are; here the question's IDF-weighted terms must come together in a window of
// two consecutive sentences (the passage's document name and heading count for every window, as
// a passage's place is context for all its sentences), and the question's adjacent content-word
// pairs found as phrases add a bonus. The lexical reranker (retrieve/rerank_lexical.cc) and
// hybrid search's z-score fusion (index/fusion.h) both score passages with it.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text/query_terms.h"

namespace mmkg {

class TermWeights;

class ProximityScorer {
 public:
  /// `weights`: IDF of the question's words (used here only, not kept).
  ProximityScorer(std::string_view question, TermWeights& weights);
  /// Best window's IDF-weighted term coverage (0..1) plus 0.25 × the share of the question's
  /// word pairs found in it as phrases. `doc` (file name) and `heading_path` count for every window.
  double score(std::string_view text, std::string_view doc, std::string_view heading_path) const;
  /// IDF-weighted share (0..1) of the question's terms among the words of `words` (a heading,
  /// a file name): the fitted ranker's title and heading features (index/ranker.h).
  double coverage(std::string_view words) const;

 private:
  std::vector<QueryTerm> terms_;
  std::set<std::pair<std::string, std::string>> pairs_;
};

}  // namespace mmkg
