// FTS5 MATCH expressions (what mmkg's lexical search is written in, index/lexical.h) translated
// into Lucene query syntax, for Neo4j's full-text index (db.index.fulltext.queryNodes), so that the
// same query runs against either index. The expression is parsed by text/fts5_query.h, as for
// the Xapian index; this file only writes Lucene.
//
// The subset translated, with what it becomes:
//   "multi head" or bareword       "multi head"        a phrase (every term is quoted, so that
//   "a" + "b" (FTS5 phrase join)   "a b"               Lucene's operators and special characters
//                                                      in it are text; `"` and `\` are escaped)
//   A OR B, A AND B, A B           (A OR B), (A AND B) FTS5's implicit AND included
//   A NOT B                        (A AND NOT B)
//   ( ... )                        kept as grouping
//   NEAR("x" "is", 2)              ("x is"~2 OR "is x"~2)   both orders, as FTS5's NEAR; NEAR of
//                                  more than two phrases: their terms in the order given, with a
//                                  slop of N for each gap (an approximation: FTS5 takes any order);
//                                  a phrase of several words inside NEAR loses its adjacency
// Column filters (`col:`), prefix queries (`*`) and initial-token queries (`^`) are refused with
// UsageError: mmkg's own queries never use them, and a silent fallback would hide that a result
// came from the other index.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mmkg::graph {

/// One property of a full-text index and its weight: every phrase is searched in each field,
/// as `field:"..."^boost` (a boost of 1 is left out), so that FTS5's bm25 column weights carry
/// over and a conjunction still spans the fields (A in the heading, B in the text).
struct LuceneField {
  std::string name;
  double boost = 1.0;
};

/// The Lucene query for an FTS5 MATCH expression (see above). With no `fields`, phrases carry no
/// field name (Neo4j searches all the index's properties alike). Empty for an empty expression.
/// `max_clauses` (0: no limit) caps the field phrases written (Lucene refuses a query of more
/// than its maxClauseCount, 1024 by default): a disjunction that would pass it loses its last
/// operands (of fts_query's, the word pairs, which follow the words), unless it is negated; a
/// query still over the cap is refused. Throws UsageError naming the expression for syntax
/// outside the subset, malformed input, or a query over the cap that cannot be cut.
std::string fts5_to_lucene(std::string_view match, const std::vector<LuceneField>& fields = {},
                           size_t max_clauses = 0);

}  // namespace mmkg::graph
