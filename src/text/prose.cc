#include "text/prose.h"

#include <cctype>
#include <string>

#include "text/words.h"

namespace mmkg {

bool looks_like_code(std::string_view sentence) {
  std::string s = collapse_ws(sentence);
  if (s.empty()) return false;
  // Console prompts of shells and interpreters.
  for (std::string_view p : {"R> ", "> ", "$ ", ">>> ", "+ ", "% ", "In [", "#> "})
    if (s.rfind(p, 0) == 0) return true;
  if (s.find(" <- ") != std::string::npos || s.find("<-") != std::string::npos) return true;
  // Symbol density: code is mostly punctuation and identifiers, prose mostly words and spaces.
  size_t sym = 0, letters = 0;
  for (unsigned char c : s) {
    if (std::string_view("{}[]();=<>~$_\\|&^@").find(static_cast<char>(c)) != std::string_view::npos) ++sym;
    if (std::isalpha(c)) ++letters;
  }
  if (letters == 0) return true;
  return static_cast<double>(sym) / static_cast<double>(letters) > 0.12;
}

bool not_a_statement(std::string_view sentence) {
  std::string s = collapse_ws(sentence);
  // LaTeX left in the text: "\\mathbf{S}", "\\frac".
  for (size_t i = 0; i + 1 < s.size(); ++i)
    if (s[i] == '\\' && std::isalpha(static_cast<unsigned char>(s[i + 1]))) return true;
  auto ws = words(s);
  if (!ws.empty() && ws[0] == "where" && std::islower(static_cast<unsigned char>(s[0]))) return true;
  size_t function_words = 0;
  for (auto& w : ws) function_words += is_stopword(w);
  return function_words < 2;
}

}  // namespace mmkg
