#include "agents/quote.h"

#include <string>

#include "text/words.h"

namespace mmkg {

void add_quote(Citation& c, std::string_view sentence) {
  const std::string s = collapse_ws(sentence);
  if (s.empty() || c.quote.find(s) != std::string::npos) return;
  if (c.quote.empty()) {
    c.quote = s;
    return;
  }
  // Joined by a space only when the two are one span of the chunk: a reader (or a test) finds
  // each part of the quote in the passage.
  const std::string joined = c.quote + " " + s;
  const size_t last = c.quote.rfind(" … ");
  const std::string tail = last == std::string::npos ? joined : joined.substr(last + 5);
  if (collapse_ws(c.text).find(tail) != std::string::npos) c.quote = joined;
  else c.quote += " … " + s;
}

}  // namespace mmkg
