// Where a passage is (document, pages, chunk, figure) and its one rendering as text, used by
// every front door: the CLI's answers and search results, the MCP tools' text, the OpenAI- and
// Ollama-compatible chat answers, the trace, and the `where` field of the JSON (which the web UI
// shows). app/cite.h makes one from each kind of result.
#pragma once

#include <string>

#include "core/types.h"

namespace mmkg {

struct PassageLocation {
  std::string doc{};
  int page = 0, page_end = 0;  ///< 0: the document has no pages
  std::string chunk_id{};
  std::string figure_id{};     ///< set for a figure's or table's own passage
  std::string figure_label{};  ///< "Figure 2"; empty when uncaptioned
  FigureKind figure_kind = FigureKind::Figure;
};

/// "report.pdf, page 10, Figure 2" for a figure's passage, "report.pdf, pages 3–4, chunk ID" for
/// text ("notes.md, chunk ID" without pages; an uncaptioned figure: "figure ID").
std::string location_text(const PassageLocation& where);

}  // namespace mmkg
