// One retrieved chunk: the result of every search mode (BM25, dense, hybrid) and of the graph's
// chunk lists.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/types.h"

namespace mmkg {

struct StoredChunk;

/// One retrieved chunk.
struct SearchHit {
  std::string chunk_id;
  std::string doc_id;
  std::string doc;           ///< document file name
  int page_start = 0;        ///< 0 when the document has no pages
  int page_end = 0;
  std::string heading_path;
  int64_t start = 0, end = 0;  ///< byte offsets in the document's rendered text
  double score = 0;          ///< higher is better (negated FTS5 bm25)
  std::string text;          ///< the chunk's full text
  std::string snippet;       ///< matching excerpt with «highlighted» terms
  int64_t rowid = 0;         ///< the chunk's row id (its id in the vector index)
  std::string figure_id;     ///< a figure's or table's own chunk: its id; empty for text
  std::string figure_label;  ///< "Figure 2" (empty when uncaptioned)
  FigureKind figure_kind = FigureKind::Figure;  ///< figure or table (text chunks: unused)
  /// A hit of the Xapian lexical index whose FTS5 snippet is still to be made (a candidate of a
  /// fused list gets it only if it is kept: fill_snippets in index/lexical.h).
  bool snippet_pending = false;
  /// Where the chunk lies on its PDF pages (Chunk::boxes); filled by Session::search only.
  std::vector<PageBox> boxes;
  /// What the hit is: "text", "figure" or "table".
  const char* kind() const { return figure_id.empty() ? "text" : figure_kind_name(figure_kind); }
};

/// A hit for a stored chunk (from the vector index or the graph), with a 200-byte snippet.
SearchHit hit_from_chunk(const StoredChunk& c, double score);

}  // namespace mmkg
