#include "graph/resolve/acronym_expand.h"

#include <algorithm>
#include <set>
#include <utility>

#include "graph/resolve/acronym.h"
#include "graph/resolve/resolve.h"
#include "text/words.h"

namespace mmkg::graph {
namespace {

bool ascii_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
bool word_byte(char c) { return ascii_alnum(c) || static_cast<unsigned char>(c) >= 0x80; }

char fold_ascii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string fold_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = fold_ascii(c);
  return out;
}

/// A plural "s" after an upper-case letter: "LLMs" → "LLM".
std::string strip_upper_plural(std::string_view a) {
  if (a.size() >= 3 && a.back() == 's' && a[a.size() - 2] >= 'A' && a[a.size() - 2] <= 'Z') a.remove_suffix(1);
  return std::string(a);
}

bool letters_and_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), ascii_alnum);
}

bool all_upper_letters(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

/// The question's words: runs of letters and digits (hyphens and slashes split them, as name_key
/// does), each with where it ends and where its whitespace-delimited word ends (a note goes there,
/// before any closing punctuation: "cumulative-sum (CUSUM) tests", "least squares (OLS)?").
struct Token {
  std::string text;  // as written
  std::string key;   // lower case, possessive 's dropped
  size_t note_at = 0;
};

std::vector<Token> tokens_of(std::string_view q) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < q.size()) {
    if (!word_byte(q[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < q.size() && (word_byte(q[j]) || (q[j] == '\'' && j + 1 < q.size() && word_byte(q[j + 1])))) ++j;
    Token t;
    t.text = std::string(q.substr(i, j - i));
    t.key = fold_ascii(t.text);
    if (t.key.size() > 2 && t.key.compare(t.key.size() - 2, 2, "'s") == 0) t.key.resize(t.key.size() - 2);
    size_t k = j;
    while (k < q.size() && (word_byte(q[k]) || q[k] == '-' || q[k] == '/' || q[k] == '\'')) ++k;
    t.note_at = k;
    out.push_back(std::move(t));
    i = j;
  }
  return out;
}

bool prefixes_from(std::string_view a, size_t ai, const std::vector<std::string>& ws, size_t wi) {
  if (wi == ws.size()) return ai == a.size();
  if (ai == a.size()) return false;  // a word left without a letter
  const std::string& w = ws[wi];
  // Word wi gives a[ai .. ai + n), a prefix of itself of n >= 1 letters.
  for (size_t n = 1; n <= w.size() && ai + n <= a.size(); ++n) {
    if (fold_ascii(a[ai + n - 1]) != w[n - 1]) break;
    if (prefixes_from(a, ai + n, ws, wi + 1)) return true;
  }
  return false;
}

}  // namespace

bool spelled_by_prefixes(std::string_view acronym, const std::vector<std::string>& lower_words) {
  if (lower_words.size() < 2 || acronym.size() < lower_words.size()) return false;
  // The phrase is a name: it neither opens nor ends with a function word ("the US a" is not USA).
  if (is_stopword(lower_words.front()) || is_stopword(lower_words.back())) return false;
  // Longer prefixes than one letter only for acronyms of five letters or more: two or three
  // short prefixes spell too many short acronyms by chance ("sandwich standard" = SAS,
  // "maximum-statistic shading" = MASS), while CUSUM, MOSUM and ANOVA are spelled so.
  if (acronym.size() < 5 && acronym.size() != lower_words.size()) return false;
  return prefixes_from(acronym, 0, lower_words, 0);
}

AcronymExpander::AcronymExpander(const std::vector<Entity>& entities) {
  std::set<std::string> defined, seen;
  for (const Entity& e : entities) {
    std::vector<std::string> acronyms, phrases;
    for (const std::string& a : e.aliases) {
      if (looks_like_acronym(a) && letters_and_digits(a)) acronyms.push_back(strip_upper_plural(a));
      else if (!looks_like_acronym(a) && a.find_first_of(" -") != std::string::npos) phrases.push_back(a);
    }
    for (const std::string& a : acronyms) {
      seen.insert(a);
      for (const std::string& p : phrases)
        if (is_acronym_of(a, p) || loosely_abbreviates(a, p)) defined.insert(a);
    }
  }
  for (const std::string& a : seen)
    if (!defined.count(a) && all_upper_letters(a) && a.size() >= 4) undefined_.push_back(a);
}

std::string AcronymExpander::expand(std::string_view question) const {
  if (undefined_.empty()) return std::string(question);
  const std::vector<Token> ts = tokens_of(question);
  std::set<std::string> written;  // the question's words as written
  for (const Token& t : ts) written.insert(strip_upper_plural(t.text));
  std::vector<std::pair<size_t, std::string>> notes;  // (where, text)
  std::set<size_t> noted;                             // tokens that got a note
  for (const std::string& acronym : undefined_) {
    if (written.count(acronym)) continue;
    for (size_t i = 0; i < ts.size(); ++i) {
      std::vector<std::string> ws;
      for (size_t j = i; j < ts.size() && ws.size() < acronym.size(); ++j) {
        ws.push_back(ts[j].key);  // a prefix need not be the whole word: "sums" gives "sum"
        if (spelled_by_prefixes(acronym, ws)) {
          if (noted.insert(j).second) notes.emplace_back(ts[j].note_at, " (" + acronym + ")");
          break;
        }
      }
    }
  }
  if (notes.empty()) return std::string(question);
  std::stable_sort(notes.begin(), notes.end(), [](auto& a, auto& b) { return a.first > b.first; });
  std::string out(question);
  for (const auto& [where, text] : notes) out.insert(where, text);
  return out;
}

}  // namespace mmkg::graph
