#include "agents/quote.h"

#include <string>

#include "text/words.h"

namespace mmkg {

namespace {

// Where a wiki heading ("====== Title ======", DokuWiki and MediaWiki syntax, which a plain-text
// file keeps) that starts at `i` ends, past its closing '='s; npos when none starts there.
size_t wiki_heading_end(const std::string& s, size_t i) {
  if (s.compare(i, 2, "==") != 0) return std::string::npos;
  const size_t open_end = s.find_first_not_of('=', i);
  const size_t close = open_end == std::string::npos ? std::string::npos : s.find("==", open_end);
  if (close == std::string::npos || close - open_end >= 120) return std::string::npos;
  const size_t end = s.find_first_not_of('=', close);
  return end == std::string::npos ? s.size() : end;
}

// Drops the Markdown block markers a line starts with ("# ", "- ", "* ", code fences).
std::string strip_block_markers(const std::string& t) {
  const size_t i = t.find_first_not_of("#-*` ");
  return i == std::string::npos ? "" : t.substr(i);
}

// Drops markup that is not prose: wiki headings and bold markers ("**term**", "__term__").
std::string strip_inline_markup(const std::string& in) {
  std::string t;
  for (size_t i = 0; i < in.size();) {
    if (size_t end = wiki_heading_end(in, i); end != std::string::npos) {
      i = end;
      continue;
    }
    if (in.compare(i, 2, "**") == 0 || in.compare(i, 2, "__") == 0) {
      i += 2;
      continue;
    }
    t += in[i++];
  }
  return collapse_ws(t);
}

}  // namespace

// Dropping a prefix or a tail keeps it a substring of the chunk.
std::string verbatim_quote(std::string_view s) {
  std::string t = collapse_ws(s);
  if (size_t end = wiki_heading_end(t, 0); end != std::string::npos) t = t.substr(end);
  t = strip_block_markers(t);
  if (t.size() > 600) t = std::string(utf8_prefix(t, 600));
  return t;
}

std::string clean_sentence(std::string_view s) { return strip_block_markers(strip_inline_markup(collapse_ws(s))); }

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
