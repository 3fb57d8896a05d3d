// Lexical retrieval: BM25 over the FTS5 index of chunks (heading path weighted above body text).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "index/search_hit.h"
#include "text/term_weights.h"

namespace mmkg {

class Store;
class XapianLexical;

struct LexicalOptions {
  int k = 10;                    ///< number of hits
  double heading_weight = 2.0;   ///< BM25 column weight of the heading path
  double text_weight = 1.0;      ///< BM25 column weight of the chunk text
  double context_weight = 1.0;   ///< BM25 column weight of the document's file name and title
  /// The store's Xapian index (xapian_lexical.h), if it has one: it answers instead of FTS5 when
  /// it reflects the store's current generation, the weights are the defaults (it was built with
  /// them) and the expression is one it takes; otherwise FTS5 does. Not owned.
  XapianLexical* index = nullptr;
  /// With the Xapian index: leave each hit's FTS5 snippet to fill_snippets() (snippet_pending),
  /// for candidate lists most of which the fusion drops (an FTS5 snippet costs ~0.2 ms a row).
  bool defer_snippets = false;
};

/// FTS5 MATCH expression for a free-text query: its content words (all words when every word
/// is a stop word), each quoted, OR-ed, plus adjacent content-word pairs as phrases so that
/// chunks containing the query's multi-word terms rank higher. Empty when the query has no words.
std::string fts_query(std::string_view query);

/// BM25 search. Returns at most opt.k hits, best first.
std::vector<SearchHit> bm25_search(Store& store, std::string_view query, const LexicalOptions& opt = {});
/// BM25 search with a ready FTS5 MATCH expression (callers must build it from quoted terms).
/// `served_by`, when given, receives "xapian" or "fts5".
std::vector<SearchHit> bm25_match(Store& store, const std::string& match, const LexicalOptions& opt = {},
                                  std::string* served_by = nullptr);

/// Makes the FTS5 snippets of the hits marked snippet_pending (for the expression `match`).
void fill_snippets(Store& store, const std::string& match, std::vector<SearchHit>& hits);

/// Collection statistics used to weight query terms.
class TermStats final : public TermWeights {
 public:
  /// Reads document frequencies from the store's Xapian index when it has a fresh one (`index`,
  /// else one it opens itself): O(1) a word, where FTS5 counts every matching row (tens of ms
  /// for a common word at 1M chunks); from FTS5 otherwise.
  explicit TermStats(Store& store, XapianLexical* index = nullptr);
  ~TermStats() override;
  /// Smoothed inverse document frequency (over chunks) of a word, using the index's own
  /// tokenizer and stemmer: log(1 + (N - df + 0.5) / (df + 0.5)).
  double idf(const std::string& word) override;
  /// The idf of a word no chunk holds (df 0), the largest idf() gives: log(1 + (N + 0.5) / 0.5).
  double absent_idf() const;
  int64_t chunks() const { return n_; }

 private:
  Store& store_;
  int64_t n_ = 0;
  std::unique_ptr<XapianLexical> own_;  ///< an index opened here when none was given
  XapianLexical* index_ = nullptr;      ///< the fresh index used, or nullptr (FTS5)
};

}  // namespace mmkg
