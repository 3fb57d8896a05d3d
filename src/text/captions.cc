#include "text/captions.h"

#include <cctype>
#include <cstring>

namespace mmkg {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }

struct Word {
  const char* text;
  bool table;
};
// Spellings of the two labels. "Fig" needs its period or a number right after it.
constexpr Word kWords[] = {{"Figure", false}, {"FIGURE", false}, {"Fig.", false}, {"FIG.", false},
                           {"Fig", false},    {"Table", true},   {"TABLE", true}};

/// Reads a figure number at s[i]: "3", "2.1", "A.3", "4b", "IV"-free (roman numerals are not
/// taken: "Table IV" is rare in the documents we see and ambiguous with words). Returns the
/// end offset, or i when there is none.
size_t read_number(std::string_view s, size_t i) {
  size_t j = i;
  if (j < s.size() && is_upper(s[j]) && j + 1 < s.size() && s[j + 1] == '.' && j + 2 < s.size() && is_digit(s[j + 2]))
    j += 2;  // "A.3"
  const size_t digits = j;
  while (j < s.size() && is_digit(s[j])) ++j;
  if (j == digits) return i;
  // "2.1", "3.4.2": a period followed by a digit continues the number.
  while (j + 1 < s.size() && s[j] == '.' && is_digit(s[j + 1])) {
    ++j;
    while (j < s.size() && is_digit(s[j])) ++j;
  }
  if (j < s.size() && is_lower(s[j]) && (j + 1 >= s.size() || !std::isalpha(static_cast<unsigned char>(s[j + 1]))))
    ++j;  // "4b" (but not "4 in" — no space was skipped)
  return j;
}

/// Matches a label word at s[i] (case as listed). Returns the offset past it (and past
/// the spaces that follow), or npos.
size_t match_word(std::string_view s, size_t i, const Word& w, bool plural_ok, bool* plural) {
  const size_t n = std::strlen(w.text);
  if (s.compare(i, n, w.text) != 0) return std::string_view::npos;
  size_t j = i + n;
  if (plural) *plural = false;
  if (plural_ok && j < s.size() && (s[j] == 's' || s[j] == 'S') && w.text[n - 1] != '.') {
    if (j + 1 < s.size() && s[j + 1] == '.') {  // "Figs."
      j += 2;
      if (plural) *plural = true;
    } else if (j + 1 >= s.size() || s[j + 1] == ' ') {
      ++j;
      if (plural) *plural = true;
    }
  }
  if (j < s.size() && std::isalpha(static_cast<unsigned char>(s[j]))) return std::string_view::npos;  // "Figures"/"Tablet"
  while (j < s.size() && (s[j] == ' ' || s[j] == '\t' || static_cast<unsigned char>(s[j]) == 0xC2)) {
    if (static_cast<unsigned char>(s[j]) == 0xC2) {  // U+00A0 no-break space
      if (j + 1 < s.size() && static_cast<unsigned char>(s[j + 1]) == 0xA0) { j += 2; continue; }
      break;
    }
    ++j;
  }
  return j;
}

/// The first letters after a label read like a title (capital, or a digit/quote/paren) rather
/// than a verb continuing a sentence ("Figure 2 shows").
bool title_like(std::string_view rest) {
  if (rest.empty()) return false;
  const unsigned char c = static_cast<unsigned char>(rest[0]);
  return is_upper(static_cast<char>(c)) || c == '(' || c == '"' || c >= 0x80;
}

}  // namespace

std::optional<CaptionLabel> caption_label(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  for (const Word& w : kWords) {
    size_t j = match_word(line, i, w, false, nullptr);
    if (j == std::string_view::npos) continue;
    const size_t num_start = j;
    const size_t num_end = read_number(line, j);
    if (num_end == num_start) return std::nullopt;
    CaptionLabel out;
    out.table = w.table;
    out.number = std::string(line.substr(num_start, num_end - num_start));
    size_t k = num_end;
    // Delimiters: "Figure 3:", "Figure 3.", "Table 2 |", "Figure 3 —", "Figure 3 -".
    size_t p = k;
    while (p < line.size() && line[p] == ' ') ++p;
    if (p < line.size() && (line[p] == ':' || line[p] == '.' || line[p] == '|')) {
      out.delimited = true;
      out.end = p + 1;
    } else if (line.compare(p, 3, "\xE2\x80\x94") == 0 || line.compare(p, 3, "\xE2\x80\x93") == 0) {
      out.delimited = true;
      out.end = p + 3;
    } else if (p < line.size() && line[p] == '-' && p + 1 < line.size() && line[p + 1] == ' ') {
      out.delimited = true;
      out.end = p + 1;
    } else {
      // No delimiter: a caption only if a title follows ("Figure 2 Attention maps") or the
      // label stands alone on its line.
      std::string_view rest = line.substr(p);
      if (!rest.empty() && !title_like(rest)) return std::nullopt;
      if (k == p && !rest.empty()) return std::nullopt;  // "Figure 2Attention": not a label
      out.end = p;
    }
    while (out.end < line.size() && line[out.end] == ' ') ++out.end;
    return out;
  }
  return std::nullopt;
}

std::vector<std::string> figure_references(std::string_view s) {
  std::vector<std::string> out;
  auto add = [&](bool table, const std::string& num) {
    std::string key = (table ? "t:" : "f:") + num;
    for (auto& k : out)
      if (k == key) return;
    out.push_back(std::move(key));
  };
  for (size_t i = 0; i < s.size(); ++i) {
    if (i > 0 && std::isalnum(static_cast<unsigned char>(s[i - 1]))) continue;
    for (const Word& w : kWords) {
      bool plural = false;
      size_t j = match_word(s, i, w, true, &plural);
      if (j == std::string_view::npos) continue;
      size_t e = read_number(s, j);
      if (e == j) break;
      std::string first(s.substr(j, e - j));
      add(w.table, first);
      // "Figures 2 and 3", "Figs. 2, 3 and 5", "Figures 2-4", "Figure 2(a)".
      size_t k = e;
      for (int guard = 0; guard < 20 && k < s.size(); ++guard) {
        size_t p = k;
        bool range = false;
        if (s.compare(p, 6, ", and ") == 0) p += 6;
        else if (s.compare(p, 2, ", ") == 0) p += 2;
        else if (s.compare(p, 5, " and ") == 0) p += 5;
        else if (s.compare(p, 4, " or ") == 0) p += 4;
        else if (p < s.size() && s[p] == '-') { p += 1; range = true; }
        else if (s.compare(p, 3, "\xE2\x80\x93") == 0) { p += 3; range = true; }
        else break;
        size_t q = read_number(s, p);
        if (q == p) break;
        std::string num(s.substr(p, q - p));
        bool digits_only = num.find_first_not_of("0123456789") == std::string::npos &&
                           first.find_first_not_of("0123456789") == std::string::npos;
        if (range && digits_only && num.size() < 4) {
          int a = std::stoi(first), b = std::stoi(num);
          for (int x = a + 1; x <= b && x - a <= 20; ++x) add(w.table, std::to_string(x));
        } else {
          add(w.table, num);
        }
        if (!plural && !range) break;  // "Figure 2 and 3" is rare; "Figure 2, the model" is common
        first = num;
        k = q;
      }
      i = e - 1;
      break;
    }
  }
  return out;
}

}  // namespace mmkg
