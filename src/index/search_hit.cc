#include "index/search_hit.h"

#include "store/store.h"
#include "text/words.h"

namespace mmkg {

SearchHit hit_from_chunk(const StoredChunk& c, double score) {
  SearchHit h;
  h.chunk_id = c.chunk.id;
  h.doc_id = c.chunk.doc_id;
  h.doc = c.doc_name;
  h.page_start = c.chunk.page_start;
  h.page_end = c.chunk.page_end;
  h.heading_path = c.chunk.heading_path;
  h.start = c.chunk.start;
  h.end = c.chunk.end;
  h.text = c.chunk.text;
  h.score = score;
  h.rowid = c.rowid;
  h.figure_id = c.chunk.figure_id;
  h.figure_label = c.figure_label;
  h.figure_kind = c.figure_kind;
  std::string_view pre = utf8_prefix(c.chunk.text, 200);
  h.snippet = collapse_ws(pre) + (pre.size() < c.chunk.text.size() ? "…" : "");
  return h;
}

}  // namespace mmkg
