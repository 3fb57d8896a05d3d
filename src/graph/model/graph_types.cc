#include "graph/model/graph_types.h"

#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include "text/lexicon.h"
#include "text/words.h"
#include "text/unicode.h"

namespace mmkg::graph {

std::string name_key(std::string_view name) {
  // Fold case and accents with ICU: NFD, drop nonspacing marks, lower-case.
  const icu::UnicodeString d =
      nfd(icu::UnicodeString::fromUTF8(icu::StringPiece(name.data(), static_cast<int32_t>(name.size()))));
  icu::UnicodeString folded;
  for (int32_t i = 0; i < d.length();) {
    UChar32 c = d.char32At(i);
    i += U16_LENGTH(c);
    if (u_charType(c) == U_NON_SPACING_MARK) continue;
    if (c == 0x2019) c = '\'';  // typographic apostrophe
    folded.append(static_cast<UChar32>(u_tolower(c)));
  }
  std::string s;
  folded.toUTF8String(s);
  // Possessive 's, then everything that is not a letter or digit becomes a separator.
  std::string out;
  std::string word;
  std::vector<std::string> ws;
  auto flush = [&] {
    if (!word.empty()) ws.push_back(std::move(word)), word.clear();
  };
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\'' && i + 1 < s.size() && s[i + 1] == 's' && (i + 2 == s.size() || !std::isalnum(static_cast<unsigned char>(s[i + 2])))) {
      ++i;  // drop 's
      continue;
    }
    if (std::isalnum(c) || c >= 0x80) word += static_cast<char>(c);
    else flush();
  }
  flush();
  if (ws.empty()) return "";
  ws.back() = Lexicon::get().singular(ws.back());
  for (size_t i = 0; i < ws.size(); ++i) {
    if (i) out += ' ';
    out += ws[i];
  }
  return out;
}

std::string section_heading(const std::string& heading_path) {
  const size_t cut = heading_path.rfind(" > ");
  std::string h = collapse_ws(cut == std::string::npos ? heading_path : heading_path.substr(cut + 3));
  size_t k = 0;
  bool dot = false;
  for (; k < h.size() && ((h[k] >= '0' && h[k] <= '9') || h[k] == '.'); ++k)
    if (h[k] == '.') dot = true;
  // A number without a dot heads a section only below the top ("Options > 3 set terminal"); at
  // the top it is part of the title ("3 Dots", "45 Fathers").
  const bool numbered = dot || cut != std::string::npos;
  if (numbered && k > 0 && k < h.size() && h[k] == ' ') h = h.substr(k + 1);
  return h;
}

std::vector<std::string> key_words(const std::string& key) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= key.size()) {
    size_t j = key.find(' ', i);
    if (j == std::string::npos) j = key.size();
    if (j > i) out.push_back(key.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::string key_compact(const std::string& key) {
  std::string out;
  for (char c : key)
    if (c != ' ') out += c;
  return out;
}

}  // namespace mmkg::graph
