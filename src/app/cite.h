// Where a cited or found passage is, rendered one way for every front door: the CLI's answers
// and search results, the MCP tools' text, the OpenAI- and Ollama-compatible chat answers, and
// the `where` field of the JSON (which the web UI shows).
#pragma once

#include <string>
#include <vector>

#include "agents/messages.h"
#include "app/session.h"
#include "index/search_hit.h"
#include "store/store.h"

namespace mmkg {

struct PassageLocation {
  std::string doc{};
  int page = 0, page_end = 0;  ///< 0: the document has no pages
  std::string chunk_id{};
  std::string figure_id{};     ///< set for a figure's or table's own passage
  std::string figure_label{};  ///< "Figure 2"; empty when uncaptioned
  FigureKind figure_kind = FigureKind::Figure;
};

PassageLocation location_of(const Citation& c);
PassageLocation location_of(const SearchHit& h);
PassageLocation location_of(const StoredChunk& c);
PassageLocation location_of(const StoredFigure& f);
PassageLocation location_of(const EntityNeighbor::Evidence& e);
PassageLocation location_of(const EntityFigure& f);

/// "report.pdf, page 10, Figure 2" for a figure's passage, "report.pdf, pages 3–4, chunk ID" for
/// text ("notes.md, chunk ID" without pages; an uncaptioned figure: "figure ID").
std::string location_text(const PassageLocation& where);

/// `answer` followed by its sources, a line each: "\n\nSources:\n[1] report.pdf, page 3, chunk ID —
/// Methods" (the heading path after the dash when there is one). No citations: `answer` alone.
std::string answer_with_sources(const std::string& answer, const std::vector<Citation>& citations);

}  // namespace mmkg
