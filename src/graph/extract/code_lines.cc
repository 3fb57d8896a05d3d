#include "graph/extract/code_lines.h"

#include "graph/extract/chars.h"

namespace mmkg::graph::rules {

// A line of program code or console output as printed in manuals and vignettes: a prompt at
// its start ("R> ", "> ", "+ ", ">>> ", "$ ") or an assignment arrow, a namespace operator or a
// call with named arguments. Its identifiers (variable names, function names) are not terms, and
// a phrase must not run from it into the prose around.
bool code_line(std::string_view l) {
  size_t i = 0;
  while (i < l.size() && (l[i] == ' ' || l[i] == '\t')) ++i;
  std::string_view r = l.substr(i);
  if (r.empty()) return false;
  for (std::string_view p : {"R> ", ">>> ", "$ ", "In [", "Out["})
    if (starts_with(r, p)) return true;
  if (r.find("<-") != std::string_view::npos || r.find("::") != std::string_view::npos) return true;
  // list access "fit$coef" between identifiers
  for (size_t k = 1; k + 1 < r.size(); ++k)
    if (r[k] == '$' && is_alnum(r[k - 1]) && is_alpha(r[k + 1])) return true;
  // a row of printed output or a table: six or more fields, two in five of them numbers
  int fields = 0, numbers = 0;
  for (size_t k = 0; k < r.size();) {
    while (k < r.size() && (r[k] == ' ' || r[k] == '\t')) ++k;
    if (k >= r.size()) break;
    size_t e = k;
    while (e < r.size() && r[e] != ' ' && r[e] != '\t') ++e;
    ++fields;
    size_t d = k + ((r[k] == '-' || r[k] == '<') ? 1 : 0);
    if (d < e && is_digit(r[d])) ++numbers;
    k = e;
  }
  if (fields >= 6 && numbers * 5 >= fields * 2) return true;
  // Two or more named arguments written without spaces ("col=c(1,2), lwd=2", "xscale=12"):
  // prose puts spaces around '=' when it writes one at all, code that is printed inline (or a
  // console line the PDF ran into the prose) does not. A line with a sentence break is a
  // paragraph that mentions arguments ("the ctype=1 and ctype=2 arguments. The ..."): kept.
  int named = 0;
  for (size_t k = 1; k + 1 < r.size(); ++k)
    if (r[k] == '=' && is_alnum(r[k - 1]) && r[k + 1] != '=' && r[k + 1] != ' ') ++named;
  if (named >= 2 && r.find(". ") == std::string_view::npos) return true;  // not a paragraph of prose
  size_t paren = r.find('(');
  return paren != std::string_view::npos && paren > 0 && is_alnum(r[paren - 1]) &&
         r.find(" = ", paren) != std::string_view::npos && r.find(')', paren) != std::string_view::npos &&
         r.find(". ") == std::string_view::npos;
}

// A token of a formula extracted from PDF: a modifier letter or combining mark (ˆ, ˜, ¯ over a
// symbol), or at most three characters with a Greek letter (σ, ûi, βj). Such a token is a
// variable, never a term.
bool math_debris(std::string_view w) {
  int chars = 0;
  bool greek = false;
  for (size_t i = 0; i < w.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(w[i]);
    if ((c & 0xC0) != 0x80) ++chars;
    if (c == 0xCB || c == 0xCC || c == 0xCD) return true;  // U+02C0–U+036F
    if (c == 0xCE || c == 0xCF) greek = true;
  }
  return chars <= 2 || (greek && chars <= 3);
}

}  // namespace mmkg::graph::rules
