// The lexical index of large stores: a Xapian database (lexical.xapian/ in the store folder)
// that answers top-k BM25 at a cost that follows k, not the number of matching chunks.
//
// Why a second index: FTS5's `ORDER BY bm25() LIMIT k` scores every row that matches any query
// word through SQLite's virtual-table interface (~3 us a row), so at 1M chunks a query of common
// words costs 0.4-1.5 s (docs/BENCHMARKS.md). Xapian (Debian's libxapian-dev, a well-kept engine)
// walks posting lists in C++ and prunes with per-term weight bounds (its matcher turns OR into
// AND_MAYBE once the k-th score is out of reach of the remaining terms). FTS5 stays the store's
// own, transactional index: it serves small stores, the expressions Xapian is not given (see
// lexical_query.h), and every query while this index is stale or missing, so search is never
// wrong, only slower, after a kill.
//
// Terms: words() of the heading path (weight 2), the text and the document context (weight 1),
// stemmed with the same Snowball stemmer as queries (text/words.h); and each pair of adjacent
// content words as one term ("B" + stem + " " + stem), so the two-word phrases fts_query() writes
// cost one posting list. No positions: they would double the index (measured: 4.9 KB a chunk
// with them), and the expressions that need them (longer phrases, phrases with stop words, NEAR:
// the planner's definition pattern) are rare and restrictive, so FTS5 answers them quickly.
// Document id = the chunk's row id; value slot 0 = the chunk's id (a reused row id is told
// apart). Metadata "generation" = the store generation it reflects.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "index/lexical_query.h"

namespace mmkg {

class Store;

/// Where the index lives in a store folder.
std::string lexical_index_path(const std::string& store_dir);
/// Chunks from which a store gets the index: MMKG_LEXICAL_THRESHOLD, else 5,000. The index answers
/// faster at every size measured (2k-1M); below ~5k FTS5's hybrid queries are still under ~25 ms
/// p50 and the index would add ~3.3 KB a chunk on disk for a few ms (bench/results/history/BENCHMARKS-journal-to-20261128.md, "Where
/// the lexical index starts").
int64_t lexical_index_threshold();

/// A reader. Not thread-safe: one per thread.
class XapianLexical {
 public:
  /// nullptr when the store has no index (or it cannot be opened: `why` says why).
  static std::unique_ptr<XapianLexical> open(const std::string& store_dir, std::string* why = nullptr);
  ~XapianLexical();
  /// Re-reads the latest committed revision and returns the store generation it reflects (-1:
  /// unreadable).
  int64_t generation();
  /// The top-k (row id, chunk id, BM25 score) for `q`, best first. Returns false, with no hits,
  /// for an expression the index cannot answer exactly (phrases of more than two words or with
  /// a stop word, NEAR): the caller asks FTS5.
  struct Hit {
    int64_t rowid;
    std::string chunk_id;
    double score;
  };
  bool search(const LexNode& q, int k, std::vector<Hit>& out);
  /// Number of chunks indexed.
  int64_t size();
  /// Chunks holding an index term (a stemmed word, stem() of words()).
  int64_t term_freq(const std::string& term);
  /// (row id, chunk id) of every chunk indexed, by row id.
  std::vector<std::pair<int64_t, std::string>> entries();

 private:
  struct Impl;
  explicit XapianLexical(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// (row id, chunk id) of every chunk of the store, by row id: what a fresh index holds (entries()).
std::vector<std::pair<int64_t, std::string>> chunk_entries(Store& store);

struct LexicalIndexStatus {
  std::string action;  ///< "" (none: store below the threshold), "built", "updated", "synced"
  std::string reason;  ///< why it was built or synced
  int64_t chunks = 0;  ///< chunks in the index afterwards
};

/// Brings the index up to date after a write that moved the store from generation `gen_before`
/// and added / removed these chunk row ids: applies them when the index reflects `gen_before`,
/// else compares it with the chunks table and applies the difference ("synced"), and builds it
/// when the store has reached lexical_index_threshold() chunks and has none ("built"). Call with
/// the store's write lock held. Throws IOError when the index cannot be written; the store stays
/// correct (search uses FTS5 while the index is stale). A build runs on `threads` threads (0: one
/// per 2,500 chunks, at most one per core), each writing a shard; the shards are then merged.
LexicalIndexStatus update_lexical_index(Store& store, int64_t gen_before, const std::vector<int64_t>& added,
                                        const std::vector<int64_t>& removed, int threads = 0);

}  // namespace mmkg
