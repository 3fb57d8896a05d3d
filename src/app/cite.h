// The location (core/location.h) of each kind of cited or found passage, and an answer with its
// sources written out, for every front door.
#pragma once

#include <string>
#include <vector>

#include "agents/messages.h"
#include "app/session.h"
#include "core/location.h"
#include "index/search_hit.h"
#include "store/store.h"

namespace mmkg {

PassageLocation location_of(const Citation& c);
PassageLocation location_of(const SearchHit& h);
PassageLocation location_of(const StoredChunk& c);
PassageLocation location_of(const StoredFigure& f);
PassageLocation location_of(const EntityNeighbor::Evidence& e);
PassageLocation location_of(const EntityFigure& f);

/// `answer` followed by its sources, a line each: "\n\nSources:\n[1] report.pdf, page 3, chunk ID —
/// Methods" (the heading path after the dash when there is one). No citations: `answer` alone.
std::string answer_with_sources(const std::string& answer, const std::vector<Citation>& citations);

}  // namespace mmkg
