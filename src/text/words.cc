#include "text/words.h"

#include <libstemmer.h>

#include <algorithm>
#include <memory>
#include <unordered_set>

namespace mmkg {

static bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string collapse_ws(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool pending = false;
  for (unsigned char c : s) {
    if (is_space(c)) {
      pending = !out.empty();
    } else {
      if (pending) out.push_back(' ');
      pending = false;
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

std::string_view utf8_prefix(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t n = max_bytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    bool word = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
    // Typographic punctuation in UTF-8 (U+2000..U+206F: dashes, quotes, bullets) separates words.
    if (c == 0xE2 && i + 1 < s.size() && (static_cast<unsigned char>(s[i + 1]) == 0x80 ||
                                           static_cast<unsigned char>(s[i + 1]) == 0x81)) {
      if (!cur.empty()) out.push_back(std::move(cur)), cur.clear();
      i += 2;
      continue;
    }
    if (word) {
      cur.push_back(static_cast<char>((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c));
    } else if (!cur.empty()) {
      out.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

bool is_stopword(std::string_view w) {
  static const std::unordered_set<std::string_view> kStop = {
      "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
      "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
      "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few",
      "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers",
      "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its",
      "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of",
      "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own",
      "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs",
      "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to",
      "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which",
      "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself",
      "yourselves", "s", "t", "don", "according", "say", "says", "said", "tell", "give", "describe",
      "explain", "much", "many", "may", "might", "must", "shall", "there's", "it's", "whose", "use",
      "used", "using", "via", "per", "e", "g", "eg", "ie", "etc", "one", "two", "like", "get", "make"};
  return kStop.count(w) > 0;
}

namespace {
struct StemmerDeleter {
  void operator()(sb_stemmer* s) const { sb_stemmer_delete(s); }
};
}  // namespace

std::string stem(std::string_view w) {
  // sb_stemmer objects are not thread-safe: one per thread.
  thread_local std::unique_ptr<sb_stemmer, StemmerDeleter> st(sb_stemmer_new("english", "UTF_8"));
  if (!st || w.empty()) return std::string(w);
  const sb_symbol* r = sb_stemmer_stem(st.get(), reinterpret_cast<const sb_symbol*>(w.data()),
                                       static_cast<int>(w.size()));
  if (!r) return std::string(w);
  return std::string(reinterpret_cast<const char*>(r), sb_stemmer_length(st.get()));
}

std::vector<std::string> content_stems(std::string_view s) {
  std::vector<std::string> out;
  for (auto& w : words(s))
    if (!is_stopword(w)) out.push_back(stem(w));
  return out;
}

}  // namespace mmkg
