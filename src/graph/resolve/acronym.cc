#include "graph/resolve/acronym.h"

#include <cctype>
#include <vector>

#include "text/words.h"
#include "graph/model/graph_types.h"
#include "graph/resolve/resolve.h"

namespace mmkg::graph {
namespace {

bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_upper(c) || is_lower(c) || is_digit(c); }
char lower(char c) { return is_upper(c) ? static_cast<char>(c - 'A' + 'a') : c; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

/// Drops a plural "s" written after an upper-case letter or digit: "LLMs" → "LLM", "SSMs" → "SSM".
std::string_view strip_plural(std::string_view a) {
  if (a.size() >= 3 && a.back() == 's' && (is_upper(a[a.size() - 2]) || is_digit(a[a.size() - 2]))) a.remove_suffix(1);
  return a;
}

/// One unit of an acronym: a letter (keeping its case) or a run of digits ("GPT-4" → G P T "4").
struct Unit {
  std::string text;  // one lower-case letter, or digits
  bool digits = false;
  bool lower_case = false;  // written in lower case inside a mixed-case acronym ("o" of RoPE)
};

std::vector<Unit> units_of(std::string_view acronym) {
  acronym = strip_plural(trim(acronym));
  bool has_upper = false, has_lower = false;
  for (char c : acronym) has_upper |= is_upper(c), has_lower |= is_lower(c);
  const bool mixed = has_upper && has_lower;
  std::vector<Unit> out;
  for (size_t i = 0; i < acronym.size(); ++i) {
    char c = acronym[i];
    if (is_digit(c)) {
      if (!out.empty() && out.back().digits && i > 0 && is_digit(acronym[i - 1])) out.back().text += c;
      else out.push_back({std::string(1, c), true, false});
    } else if (is_upper(c) || is_lower(c)) {
      out.push_back({std::string(1, lower(c)), false, mixed && is_lower(c)});
    }
  }
  return out;
}

/// A word of the phrase: hyphenated words become parts; stop words and the non-first parts of a
/// hyphenated word ("Pre-trained" → "trained") may be skipped by the acronym.
struct Word {
  std::string text;
  bool optional = false;
  bool numeric = false;
};

std::vector<Word> words_of(std::string_view phrase) {
  std::vector<Word> out;
  std::string cur;
  int part = 0;
  auto flush = [&] {
    if (cur.empty()) return;
    bool numeric = true;
    for (char c : cur) numeric &= is_digit(c);
    out.push_back({cur, !numeric && (part > 0 || is_stopword(cur)), numeric});
    cur.clear();
    ++part;
  };
  for (char c : phrase) {
    if (is_alnum(c)) cur += lower(c);
    else if (c == '-' || c == '/' || c == '_') flush();
    else if (c == '\'' || static_cast<unsigned char>(c) >= 0x80) cur += c;  // keep inside the word
    else flush(), part = 0;
  }
  flush();
  return out;
}

/// Matches units[u..] against words[w..] starting at the start of word w. `used` counts the
/// words that gave a letter.
bool match_from(const std::vector<Unit>& units, size_t u, const std::vector<Word>& words, size_t w, int used);

/// Inside word w after its letter at `pos - 1` matched: either move on, or let the next
/// lower-case unit of a mixed-case acronym match a later letter of the same word ("Ro"tary).
bool match_inside(const std::vector<Unit>& units, size_t u, const std::vector<Word>& words, size_t w, size_t pos,
                  int used) {
  if (match_from(units, u, words, w + 1, used)) return true;
  if (u < units.size() && units[u].lower_case) {
    const std::string& t = words[w].text;
    for (size_t q = pos; q < t.size(); ++q)
      if (t[q] == units[u].text[0] && match_inside(units, u + 1, words, w, q + 1, used)) return true;
  }
  return false;
}

bool match_from(const std::vector<Unit>& units, size_t u, const std::vector<Word>& words, size_t w, int used) {
  if (w == words.size()) return u == units.size() && used >= 2;
  const Word& word = words[w];
  if (word.optional && match_from(units, u, words, w + 1, used)) return true;
  if (u == units.size()) return false;  // a required word is left without a letter
  const Unit& unit = units[u];
  if (unit.digits) return word.numeric && word.text == unit.text && match_from(units, u + 1, words, w + 1, used + 1);
  if (word.numeric || word.text[0] != unit.text[0]) return false;
  return match_inside(units, u + 1, words, w, 1, used + 1);
}

bool is_article(const std::string& w) { return w == "the" || w == "a" || w == "an"; }

}  // namespace

bool looks_like_acronym(std::string_view s) {
  s = trim(s);
  if (s.size() < 2 || s.size() > 12 || !is_alnum(s.front())) return false;
  int upper = 0;
  for (char c : strip_plural(s)) {
    if (std::isspace(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80) return false;
    upper += is_upper(c);
  }
  return upper >= 2;
}

bool is_acronym_of(const std::string& acronym, const std::string& phrase) {
  std::vector<Unit> units = units_of(acronym);
  if (units.size() < 2 || units.size() > 12) return false;
  std::vector<Word> words = words_of(phrase);
  // Leading articles are not part of the name; the first word left must give the first letter.
  while (!words.empty() && is_article(words.front().text)) words.erase(words.begin());
  if (words.size() < 2) return false;
  words.front().optional = false;
  return match_from(units, 0, words, 0, 0) && name_key(acronym) != name_key(phrase);
}

bool loosely_abbreviates(std::string_view acronym, std::string_view phrase) {
  std::string_view a = strip_plural(trim(acronym));
  std::string_view p = trim(phrase);
  if (a.empty() || p.size() <= a.size()) return false;
  long s = static_cast<long>(a.size()) - 1, l = static_cast<long>(p.size()) - 1;
  for (; s >= 0; --s) {
    if (!is_alnum(a[s])) continue;
    char c = lower(a[s]);
    bool first = true;
    for (long k = 0; k < s; ++k) first &= !is_alnum(a[k]);
    // The first letter of the acronym must start a word of the phrase.
    while (l >= 0 && (lower(p[l]) != c || (first && l > 0 && is_alnum(p[l - 1])))) --l;
    if (l < 0) return false;
    --l;
  }
  return true;
}

std::string trim_expansion(std::string_view acronym, std::string_view phrase) {
  std::vector<std::string_view> ws;
  std::string_view p = trim(phrase);
  size_t i = 0;
  while (i < p.size()) {
    size_t j = p.find(' ', i);
    if (j == std::string_view::npos) j = p.size();
    if (j > i) ws.push_back(p.substr(i, j - i));
    i = j + 1;
  }
  auto suffix = [&](size_t start) {
    return std::string(ws[start].data(), static_cast<size_t>(p.data() + p.size() - ws[start].data()));
  };
  auto drop_articles = [&](size_t start) {
    while (start + 1 < ws.size()) {
      std::string w(ws[start]);
      for (char& c : w) c = lower(c);
      if (!is_article(w)) break;
      ++start;
    }
    return start;
  };
  // Strict: the longest suffix (all its words abbreviated).
  for (size_t start = 0; start < ws.size(); ++start)
    if (is_acronym_of(std::string(acronym), suffix(start))) return suffix(drop_articles(start));
  // Loose: the shortest suffix, at most min(n + 5, 2n) words for n letters (Schwartz & Hearst).
  size_t n = units_of(acronym).size();
  size_t max_words = std::min(n + 5, 2 * n);
  for (size_t len = 1; len <= std::min(max_words, ws.size()); ++len) {
    size_t start = ws.size() - len;
    if (loosely_abbreviates(acronym, suffix(start))) return suffix(start);
  }
  return "";
}

}  // namespace mmkg::graph
