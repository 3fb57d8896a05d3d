// mask_markup (terms.h): the markup and debris of a chunk's text that carry no terms, blanked
// before sentence and token analysis. Split from terms.cc, which analyses what is left.
#include <algorithm>
#include <string>
#include <string_view>

#include "graph/extract/chars.h"
#include "graph/extract/code_lines.h"
#include "graph/extract/terms.h"
#include "text/captions.h"

namespace mmkg::graph::rules {
namespace {

void blank(std::string& m, size_t b, size_t e, bool hard) {
  e = std::min(e, m.size());
  for (size_t i = b; i < e; ++i) m[i] = ' ';
  if (hard && b < e) m[b] = '\x01';
}

size_t find_close(std::string_view t, size_t from, std::string_view close, size_t limit) {
  size_t end = std::min(t.size(), from + limit);
  size_t p = t.substr(0, end).find(close, from);
  return p == std::string_view::npos ? std::string_view::npos : p;
}

bool citation_content(std::string_view c) {
  if (c.empty() || c.size() > 80) return false;
  bool digits_only = true;
  for (char ch : c)
    if (!(is_digit(ch) || ch == ',' || ch == ' ' || ch == '-' || ch == ';')) digits_only = false;
  if (digits_only) return std::any_of(c.begin(), c.end(), is_digit);
  if (c.find("et al") != std::string_view::npos) return true;
  // "Vaswani, 2017", "Smith and Lee 2019a"
  for (size_t i = 0; i + 4 <= c.size(); ++i)
    if ((c[i] == '1' || c[i] == '2') && is_digit(c[i + 1]) && is_digit(c[i + 2]) && is_digit(c[i + 3]) &&
        (i == 0 || !is_alnum(c[i - 1])) && c.find('|') == std::string_view::npos)
      return c.size() < 60;
  return false;
}


// DokuWiki footnotes (( ... )) and wiki links [[target|label]]. Each mask_* below blanks the
// construct that starts at t[i] in m and moves i past it (true), or leaves both (false).
bool mask_wiki(std::string_view t, std::string& m, size_t& i) {
  const size_t n = t.size();
  const char c = t[i];
  // DokuWiki footnote (( ... )) : citations, removed entirely.
  if (c == '(' && i + 1 < n && t[i + 1] == '(') {
    size_t e = find_close(t, i + 2, "))", 3000);
    if (e != std::string_view::npos) {
      blank(m, i, e + 2, true);
      i = e + 2;
      return true;
    }
  }
  // Wiki links [[target|label]] keep the label; [[page]] keeps the page name.
  if (c == '[' && i + 1 < n && t[i + 1] == '[') {
    size_t e = find_close(t, i + 2, "]]", 500);
    if (e != std::string_view::npos) {
      std::string_view in = t.substr(i + 2, e - i - 2);
      size_t bar = in.find('|');
      if (bar != std::string_view::npos) {
        blank(m, i, i + 2 + bar + 1, false);
        blank(m, e, e + 2, false);
        i = i + 2 + bar + 1;  // the label is scanned normally
      } else if (in.find("://") != std::string_view::npos) {
        blank(m, i, e + 2, true);
        i = e + 2;
      } else {
        blank(m, i, i + 2, false);
        blank(m, e, e + 2, false);
        for (size_t k = i + 2; k < e; ++k)
          if (m[k] == '_' || m[k] == ':') m[k] = ' ';
        i = e + 2;
      }
      return true;
    }
  }
  return false;
}

// URLs and e-mail-like tokens.
bool mask_url(std::string_view t, std::string& m, size_t& i) {
  const size_t n = t.size();
  const char c = t[i];
  // URLs and e-mail-like tokens.
  if ((c == 'h' && (t.substr(i, 7) == "http://" || t.substr(i, 8) == "https://")) ||
      (c == 'w' && t.substr(i, 4) == "www." && (i == 0 || !is_alnum(t[i - 1])))) {
    size_t e = i;
    while (e < n && !is_space(t[e]) && t[e] != '|' && t[e] != ']' && t[e] != '>' && t[e] != '"' && t[e] != ')') ++e;
    blank(m, i, e, true);
    i = e;
    return true;
  }
  return false;
}

// Citation markers and the bracket and target of markdown links.
bool mask_brackets(std::string_view t, std::string& m, size_t& i) {
  const size_t n = t.size();
  const char c = t[i];
  // Citation markers [12], [3, 5-7], [Vaswani et al., 2017]; markdown links [label](url).
  if (c == '[') {
    size_t e = find_close(t, i + 1, "]", 120);
    if (e != std::string_view::npos) {
      std::string_view in = t.substr(i + 1, e - i - 1);
      if (in.find('[') == std::string_view::npos && citation_content(in)) {
        blank(m, i, e + 1, true);
        i = e + 1;
        return true;
      }
      if (e + 1 < n && t[e + 1] == '(') {
        size_t pe = find_close(t, e + 2, ")", 500);
        if (pe != std::string_view::npos) {
          blank(m, i, i + 1, false);
          blank(m, e, pe + 1, false);
          i = i + 1;
          return true;
        }
      }
    }
  }
  return false;
}

// LaTeX math, commands and sub/superscripts.
bool mask_math(std::string_view t, std::string& m, size_t& i) {
  const size_t n = t.size();
  const char c = t[i];
  // LaTeX math: $$...$$, $...$, \( \), \[ \], commands and their {arguments}, sub/superscripts.
  if (c == '$') {
    bool dbl = i + 1 < n && t[i + 1] == '$';
    size_t e = find_close(t, i + (dbl ? 2 : 1), dbl ? "$$" : "$", dbl ? 5000 : 400);
    if (e != std::string_view::npos && (dbl || t.substr(i, e - i).find("\n\n") == std::string_view::npos)) {
      size_t end = e + (dbl ? 2 : 1);
      blank(m, i, end, true);
      i = end;
      return true;
    }
    blank(m, i, i + 1, true);
    ++i;
    return true;
  }
  if (c == '\\') {
    size_t e = i + 1;
    while (e < n && is_alpha(t[e])) ++e;
    if (e == i + 1 && e < n) ++e;  // \( \[ \\ etc.
    while (e < n && t[e] == '{') {
      int depth = 0;
      size_t k = e;
      for (; k < n && k < e + 300; ++k) {
        if (t[k] == '{') ++depth;
        else if (t[k] == '}' && --depth == 0) break;
      }
      if (k >= n || t[k] != '}') break;
      e = k + 1;
    }
    blank(m, i, e, true);
    i = e;
    return true;
  }
  if ((c == '_' || c == '^') && i > 0 && !is_space(t[i - 1]) && i + 1 < n && !is_space(t[i + 1]) &&
      !(c == '_' && t[i + 1] == '_')) {
    size_t e = i + 1;
    if (t[e] == '{') {
      size_t k = find_close(t, e, "}", 200);
      e = k == std::string_view::npos ? e + 1 : k + 1;
    } else {
      while (e < n && is_alnum(t[e])) ++e;
    }
    // the base symbol (x in x_i) goes too when it is a short run
    size_t b = i;
    while (b > 0 && is_alnum(t[b - 1]) && i - b < 3) --b;
    if (b > 0 && is_alnum(t[b - 1])) b = i;
    blank(m, b, e, true);
    i = e;
    return true;
  }
  return false;
}

// Code fences and inline code.
bool mask_code(std::string_view t, std::string& m, size_t& i) {
  const size_t n = t.size();
  const char c = t[i];
  // Code: ``` fences and `inline` spans.
  if (c == '`') {
    if (t.substr(i, 3) == "```") {
      size_t e = find_close(t, i + 3, "```", 20000);
      size_t end = e == std::string_view::npos ? n : e + 3;
      blank(m, i, end, true);
      i = end;
      return true;
    }
    size_t e = find_close(t, i + 1, "`", 200);
    if (e != std::string_view::npos && t.substr(i, e - i).find('\n') == std::string_view::npos) {
      blank(m, i, e + 1, true);
      i = e + 1;
      return true;
    }
  }
  return false;
}

// Emphasis and wiki formatting marks, HTML tags, heading marks.
bool mask_marks(std::string_view t, std::string& m, size_t& i, bool at_line_start) {
  const size_t n = t.size();
  const char c = t[i];
  // Emphasis and wiki formatting marks: **, __, //, '' (not inside URLs, handled above).
  if ((c == '*' || c == '_' || c == '\'' || c == '/') && i + 1 < n && t[i + 1] == c) {
    blank(m, i, i + 2, false);
    i += 2;
    return true;
  }
  // HTML tags.
  if (c == '<' && i + 1 < n && (is_alpha(t[i + 1]) || t[i + 1] == '/' || t[i + 1] == '!')) {
    size_t e = find_close(t, i + 1, ">", 200);
    if (e != std::string_view::npos && t.substr(i, e - i).find('\n') == std::string_view::npos) {
      blank(m, i, e + 1, true);
      i = e + 1;
      return true;
    }
  }
  // Heading marks: markdown "#", DokuWiki "==" runs.
  if ((c == '#' && at_line_start) || (c == '=' && i + 1 < n && t[i + 1] == '=')) {
    size_t e = i;
    while (e < n && t[e] == c) ++e;
    blank(m, i, e, true);
    i = e;
    return true;
  }
  return false;
}

}  // namespace

std::string mask_markup(std::string_view t) {
  std::string m(t);
  size_t n = t.size();
  for (size_t b = 0; b < n;) {
    size_t e = t.find('\n', b);
    if (e == std::string_view::npos) e = n;
    // Code lines, and the labels read off a figure or a table: neither has the syntax that
    // tells where a phrase ends, so their "phrases" would be debris ("Male Female Sex").
    const std::string_view line = t.substr(b, e - b);
    if (code_line(line) || label_text_line(line)) blank(m, b, e, true);
    b = e + 1;
  }
  bool line_start = true;
  for (size_t i = 0; i < n;) {
    char c = t[i];
    bool at_line_start = line_start;
    line_start = (c == '\n') || (line_start && (c == ' ' || c == '\t'));
    if (mask_wiki(t, m, i) || mask_url(t, m, i) || mask_brackets(t, m, i) || mask_math(t, m, i) ||
        mask_code(t, m, i) || mask_marks(t, m, i, at_line_start))
      continue;
    ++i;
  }
  return m;
}

}  // namespace mmkg::graph::rules
