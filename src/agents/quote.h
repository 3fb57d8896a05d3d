// A citation's quote: the sentences of the cited chunk that the answer used, verbatim.
#pragma once

#include <string>
#include <string_view>

#include "agents/messages.h"

namespace mmkg {

/// Adds `sentence` (text of `c.text`, whitespace possibly collapsed) to `c.quote`. Sentences that
/// follow each other in the chunk are joined with a space, so the quote stays one verbatim span;
/// sentences apart in the chunk are joined with " … ", so every part between the ellipses is
/// verbatim (whitespace collapsed). A sentence the quote already holds is not added again.
void add_quote(Citation& c, std::string_view sentence);

/// A sentence as the citation quotes it: verbatim chunk text (whitespace collapsed), without a
/// leading wiki heading ("====== Title ======") or Markdown block marker, at most 600 bytes.
std::string verbatim_quote(std::string_view s);

/// The sentence as the answer says it: Markdown block markers, wiki headings and bold markers
/// ("**term**", "__term__") dropped, whitespace collapsed.
std::string clean_sentence(std::string_view s);

}  // namespace mmkg
