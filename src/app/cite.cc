#include "app/cite.h"

namespace mmkg {

PassageLocation location_of(const Citation& c) {
  return {c.doc, c.page, c.page_end, c.chunk_id, c.figure_id, c.figure_label, c.figure_kind};
}

PassageLocation location_of(const SearchHit& h) {
  return {h.doc, h.page_start, h.page_end, h.chunk_id, h.figure_id, h.figure_label, h.figure_kind};
}

PassageLocation location_of(const StoredChunk& c) {
  const Chunk& k = c.chunk;
  return {c.doc_name, k.page_start, k.page_end, k.id, k.figure_id, c.figure_label, c.figure_kind};
}

PassageLocation location_of(const StoredFigure& f) {
  const Figure& g = f.figure;
  return {.doc = f.doc_name, .page = g.page, .figure_id = g.id, .figure_label = g.label, .figure_kind = g.kind()};
}

PassageLocation location_of(const EntityNeighbor::Evidence& e) {
  return {.doc = e.doc, .page = e.page, .chunk_id = e.chunk_id};
}

PassageLocation location_of(const EntityFigure& f) {
  return {.doc = f.doc, .page = f.page, .figure_id = f.id, .figure_label = f.label, .figure_kind = f.kind};
}

std::string answer_with_sources(const std::string& answer, const std::vector<Citation>& citations) {
  if (citations.empty()) return answer;
  std::string t = answer + "\n\nSources:";
  for (const Citation& c : citations) {
    t += "\n[" + std::to_string(c.n) + "] " + location_text(location_of(c));
    if (!c.heading_path.empty()) t += " \u2014 " + c.heading_path;
  }
  return t;
}

}  // namespace mmkg
