#include "text/fact_spans.h"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <functional>

#include "core/ascii.h"
#include "text/countries.h"
#include "text/fact_spans_detail.h"
#include "text/sentences.h"
#include "text/words.h"

namespace mmkg {

namespace {

using fact_detail::is_space;

UChar32 first_cp(std::string_view w) {
  if (w.empty()) return 0;
  int32_t i = 0;
  UChar32 c = 0;
  U8_NEXT(reinterpret_cast<const uint8_t*>(w.data()), i, static_cast<int32_t>(w.size()), c);
  return c;
}

bool capitalised(std::string_view w) {
  UChar32 c = first_cp(w);
  return c > 0 && u_isupper(c);
}

bool lower_word(std::string_view w) {
  UChar32 c = first_cp(w);
  return c > 0 && u_islower(c);
}

// A word of running text: the bytes between spaces, with the punctuation that closes it apart.
struct Word {
  std::string_view core;  // the word without closing punctuation
  size_t pos = 0, end = 0;  // of the whole word in the text
  char close = 0;           // ',' ';' ':' ')' '.' ... that ends it, or 0
  bool opens_paren = false;
};

Word word_at(std::string_view s, size_t& i) {
  while (i < s.size() && is_space(s[i])) ++i;
  Word w;
  w.pos = i;
  while (i < s.size() && !is_space(s[i])) ++i;
  w.end = i;
  std::string_view t = s.substr(w.pos, w.end - w.pos);
  if (!t.empty() && (t[0] == '(' || t[0] == '[' || t[0] == '"')) w.opens_paren = t[0] == '(' || t[0] == '[';
  while (!t.empty() && std::strchr(",;:)].!?\"-", t.back())) {
    if (!w.close || t.back() != '"') w.close = t.back();
    t.remove_suffix(1);
  }
  w.core = t;
  return w;
}

bool is_particle(std::string_view w) {
  static const std::array<const char*, 20> k = {"of", "de", "da", "del", "della", "der", "den", "di", "du", "la",
                                               "le", "van", "von", "y", "mac", "bin", "ibn", "al", "el", "the"};
  for (const char* p : k)
    if (w == p) return true;
  return false;
}

bool is_initial(std::string_view core, char close) {
  return close == '.' && ((core.size() == 1 && capitalised(core)) || core == "St" || core == "Jr" || core == "Sr" ||
                          core == "Dr" || core == "Mt");
}

// A capitalised run from `i`: its end in the text (exclusive) and its words; stops at closing
// punctuation, an opening parenthesis or a lower-case word that is no particle before a capital.
struct Run {
  size_t pos = 0, end = 0;
  int words = 0;
  char close = 0;
};

Run capital_run(std::string_view s, size_t i) {
  Run r;
  size_t j = i;
  bool first = true;
  while (j < s.size()) {
    size_t k = j;
    Word w = word_at(s, k);
    if (w.core.empty() || w.opens_paren) break;
    const bool cap = capitalised(w.core) || (!first && std::isdigit(static_cast<unsigned char>(w.core[0])) &&
                                             w.core.size() <= 2 && !w.close);
    if (!cap) {
      if (first || !is_particle(w.core) || w.close) break;
      // "de la Cruz": particles up to a capitalised word.
      size_t k2 = k;
      Word nx = word_at(s, k2);
      while (is_particle(nx.core) && !nx.close) nx = word_at(s, k2);
      if (!capitalised(nx.core) || nx.opens_paren) break;
      j = k;
      continue;
    }
    if (first) r.pos = w.pos;
    first = false;
    r.end = w.pos + w.core.size();
    ++r.words;
    j = k;
    if (w.close && !is_initial(w.core, w.close)) {
      r.close = w.close;
      break;
    }
    if (w.close == '.') r.end = w.pos + w.core.size() + 1;
  }
  return r;
}

const char* const kMonths[] = {"january", "february", "march",     "april",   "may",      "june",
                               "july",    "august",   "september", "october", "november", "december"};

// The month a word names: its full name or a three-letter abbreviation ("Sept." too), written
// with a capital ("may" is a verb).
int month_of(std::string_view w) {
  if (!capitalised(w)) return 0;
  std::string l = lower_ascii(w);
  while (!l.empty() && l.back() == '.') l.pop_back();
  if (l == "sept") return 9;
  for (int m = 0; m < 12; ++m)
    if (l == kMonths[m] || (l.size() == 3 && std::string_view(kMonths[m]).substr(0, 3) == l)) return m + 1;
  return 0;
}

// A word without the brackets and punctuation around it ("(March" -> "March", "1851," -> "1851").
std::string_view word_core_of(std::string_view w) {
  while (!w.empty() && std::strchr("([\"'", w.front())) w.remove_prefix(1);
  while (!w.empty() && std::strchr(",;:)].!?\"'", w.back())) w.remove_suffix(1);
  return w;
}

bool all_digits(std::string_view w) {
  return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

int to_int(std::string_view w) {
  int v = 0;
  for (char c : w) v = v * 10 + (c - '0');
  return v;
}

// Digits of a word with the punctuation that may follow a date part ("20", "1851,", "851)").
std::string_view digits_core(std::string_view w) {
  size_t b = 0;
  while (b < w.size() && (w[b] == '(' || w[b] == '[')) ++b;
  size_t e = b;
  while (e < w.size() && std::isdigit(static_cast<unsigned char>(w[e]))) ++e;
  return w.substr(b, e - b);
}

struct Tok {
  std::string_view raw;
  size_t pos;
};

std::vector<Tok> tokens(std::string_view s) {
  std::vector<Tok> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    size_t b = i;
    while (i < s.size() && !is_space(s[i])) ++i;
    if (i > b) out.push_back({s.substr(b, i - b), b});
  }
  return out;
}

// Splits "1950–2000" style tokens at the dash so that each side reads as a year.
std::vector<Tok> date_tokens(std::string_view s) {
  std::vector<Tok> out;
  for (const Tok& t : tokens(s)) {
    size_t p = t.raw.find("\xE2\x80\x93");
    if (p == std::string_view::npos) p = t.raw.find('-');
    if (p != std::string_view::npos && p > 0 && p + 1 < t.raw.size()) {
      size_t q = t.raw.compare(p, 3, "\xE2\x80\x93") == 0 ? p + 3 : p + 1;
      out.push_back({t.raw.substr(0, p), t.pos});
      if (q < t.raw.size()) out.push_back({t.raw.substr(q), t.pos + q});
    } else {
      out.push_back(t);
    }
  }
  return out;
}

bool plausible_year(std::string_view d, std::string_view raw, bool short_ok) {
  if (d.size() > 4 || d.size() < (short_ok ? 1u : 4u)) return false;
  const int y = to_int(d);
  if (y < 1 || y > 2100) return false;
  // "1,456", "1961%", "5.2": part of a longer number or a measure.
  const size_t after = raw.find(d) + d.size();
  if (after < raw.size() && std::strchr("%.,", raw[after]) && after + 1 < raw.size() &&
      std::isdigit(static_cast<unsigned char>(raw[after + 1])))
    return false;
  if (after < raw.size() && raw[after] == '%') return false;
  return true;
}

std::vector<FactDate> dates_in(std::string_view s, bool short_years) {
  std::vector<FactDate> out;
  const std::vector<Tok> t = date_tokens(s);
  for (size_t i = 0; i < t.size(); ++i) {
    FactDate d;
    std::string_view di = digits_core(t[i].raw);
    const int mi = month_of(word_core_of(t[i].raw));
    if (!di.empty() && di.size() <= 2 && i + 2 < t.size() && month_of(word_core_of(t[i + 1].raw)) &&
        plausible_year(digits_core(t[i + 2].raw), t[i + 2].raw, true) && !digits_core(t[i + 2].raw).empty()) {
      d.year = to_int(digits_core(t[i + 2].raw)), d.month = month_of(word_core_of(t[i + 1].raw)), d.day = to_int(di);
      d.pos = t[i].pos + (t[i].raw.size() - t[i].raw.substr(t[i].raw.find(di)).size());
      d.end = t[i + 2].pos + t[i + 2].raw.find(digits_core(t[i + 2].raw)) + digits_core(t[i + 2].raw).size();
      i += 2;
    } else if (mi && i + 1 < t.size()) {
      std::string_view a = digits_core(t[i + 1].raw);
      std::string_view y = i + 2 < t.size() ? digits_core(t[i + 2].raw) : std::string_view{};
      if (!a.empty() && a.size() <= 2 && t[i + 1].raw.back() == ',' && !y.empty() && plausible_year(y, t[i + 2].raw, true)) {
        d.year = to_int(y), d.month = mi, d.day = to_int(a);
        d.end = t[i + 2].pos + t[i + 2].raw.find(y) + y.size();
        i += 2;
      } else if (!a.empty() && a.size() >= 3 && plausible_year(a, t[i + 1].raw, true)) {
        d.year = to_int(a), d.month = mi;
        d.end = t[i + 1].pos + t[i + 1].raw.find(a) + a.size();
        i += 1;
      } else {
        continue;
      }
      const Tok& m = t[i - (d.day ? 2 : 1)];
      d.pos = m.pos + static_cast<size_t>(word_core_of(m.raw).data() - m.raw.data());
    } else if (!di.empty() && plausible_year(di, t[i].raw, short_years) && di.size() >= (short_years ? 3u : 4u)) {
      d.year = to_int(di);
      d.pos = t[i].pos + t[i].raw.find(di);
      d.end = d.pos + di.size();
    } else {
      continue;
    }
    d.text = std::string(s.substr(d.pos, d.end - d.pos));
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

namespace fact_detail {

// True when a sentence break after `t` cut a name at an initial or an abbreviation ("Robert A.",
// "St."): the sentence goes on.
bool ends_in_initial(std::string_view t) {
  if (t.size() < 2 || t.back() != '.') return false;
  size_t b = t.size() - 1;
  while (b > 0 && !std::isspace(static_cast<unsigned char>(t[b - 1])) && t[b - 1] != '(') --b;
  std::string_view w = t.substr(b, t.size() - 1 - b);
  // A capital initial ("Robert A."), or "d." / "b." / "c." (died, born, circa) before a date.
  return (w.size() == 1 && std::isalpha(static_cast<unsigned char>(w[0]))) || w == "St" || w == "Mt" || w == "Dr" ||
         w == "Jr" || w == "Sr";
}

std::vector<std::string_view> sentences_of(std::string_view p) {
  std::vector<std::string_view> out;
  std::vector<std::pair<size_t, size_t>> spans;
  for (auto [b, e] : split_sentences(p)) {
    if (!spans.empty() && ends_in_initial(p.substr(spans.back().first, spans.back().second - spans.back().first)))
      spans.back().second = e;
    else
      spans.push_back({b, e});
  }
  for (auto [b, e] : spans) {
    std::string_view t = p.substr(b, e - b);
    if (!t.empty() && t[0] == '#') {  // a markdown heading line opens the chunk: the rest follows it
      size_t nl = t.find('\n');
      if (nl == std::string_view::npos) continue;
      t.remove_prefix(nl + 1);
    }
    while (!t.empty() && is_space(t.front())) t.remove_prefix(1);
    if (!t.empty()) out.push_back(t);
  }
  return out;
}

bool alpha_at(std::string_view s, size_t i) {
  return i < s.size() && (std::isalpha(static_cast<unsigned char>(s[i])) || static_cast<unsigned char>(s[i]) >= 0x80);
}

// `w` as whole words in `s` from `from` (ASCII case folded); npos when absent.
size_t find_words(std::string_view s, std::string_view w, size_t from) {
  const std::string ls = lower_ascii(s);
  for (size_t i = ls.find(w, from); i != std::string::npos; i = ls.find(w, i + 1))
    if ((i == 0 || !alpha_at(s, i - 1)) && !alpha_at(s, i + w.size())) return i;
  return std::string_view::npos;
}

}  // namespace fact_detail

using fact_detail::find_words;
using fact_detail::sentences_of;

int compare_dates(const FactDate& a, const FactDate& b) {
  if (a.year != b.year) return a.year < b.year ? -1 : 1;
  if (a.month && b.month && a.month != b.month) return a.month < b.month ? -1 : 1;
  if (a.day && b.day && a.day != b.day) return a.day < b.day ? -1 : 1;
  return 0;
}

std::vector<FactDate> find_dates(std::string_view s) {
  return dates_in(s, false);
}

namespace {

// A word that describes the name after it: a lower-case content word ("singer", "former") or the
// "and" between two ("rapper and singer").
bool descriptor_word(const Word& w) {
  return lower_word(w.core) && !w.close && !is_particle(w.core) && (w.core == "and" || !is_stopword(lower_ascii(w.core)));
}

// A capitalised run that reads as a nationality modifying a noun after it ("American singer",
// "Puerto Rican actress", "Trinidadian-American rapper"): its last word ends as demonyms do.
bool demonym_run(std::string_view s, const Run& r) {
  std::string_view t = s.substr(r.pos, r.end - r.pos);
  if (t.find('-') != std::string_view::npos) return true;
  for (std::string_view suf : {"an", "ese", "ish", "ch", "ic", "i"})
    if (t.size() > suf.size() + 2 && t.substr(t.size() - suf.size()) == suf) return true;
  return false;
}

}  // namespace

std::string name_at(std::string_view s, size_t pos) {
  // "American singer-songwriter Kris Kristofferson", "solo artist and former band member Ryan
  // Adams": descriptive words, then the name.
  size_t j = pos;
  for (int n = 0; n < 10 && j < s.size(); ++n) {
    size_t k = j;
    Word w = word_at(s, k);
    if (w.core.empty() || w.opens_paren) return {};
    if (capitalised(w.core)) {
      Run r = capital_run(s, j);
      if (r.words == 0) return {};
      size_t k2 = r.end;
      Word next = word_at(s, k2);
      if (!r.close && descriptor_word(next) && next.core != "and" && demonym_run(s, r)) {
        j = r.end;
        continue;
      }
      return std::string(s.substr(r.pos, r.end - r.pos));
    }
    if (!descriptor_word(w) || (n == 0 && w.core == "and")) return {};
    j = k;
  }
  return {};
}

std::string place_at(std::string_view s, size_t pos, int parts) {
  std::string out;
  size_t i = pos;
  for (int p = 0; p < parts; ++p) {
    Run r = capital_run(s, i);
    if (r.words == 0) break;
    if (!out.empty()) out += ", ";
    out += std::string(s.substr(r.pos, r.end - r.pos));
    if (r.close != ',') break;
    i = r.end + 1;
  }
  return out;
}

namespace {

// The text of the first parenthesis of `passage` that holds a date, within its first sentence's
// reach (the opening 400 bytes); empty when there is none.
std::string_view dated_paren(std::string_view passage) {
  const size_t limit = std::min<size_t>(passage.size(), 400);
  size_t i = 0;
  while ((i = passage.find('(', i)) != std::string_view::npos && i < limit) {
    size_t e = passage.find(')', i);
    if (e == std::string_view::npos) return {};
    std::string_view in = passage.substr(i + 1, e - i - 1);
    if (!dates_in(in, true).empty()) return in;
    i = e;
  }
  return {};
}

bool starts_with_word(std::string_view s, std::string_view w) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s.substr(0, w.size()) == w && (s.size() == w.size() || !std::isalpha(static_cast<unsigned char>(s[w.size()])));
}

void paren_dates(std::string_view in, LifeDates& out) {
  // "Arabic: ...; born 1950": each ';' piece on its own; the dated one wins.
  size_t b = 0;
  while (b <= in.size()) {
    size_t e = in.find(';', b);
    if (e == std::string_view::npos) e = in.size();
    std::string_view piece = in.substr(b, e - b);
    b = e + 1;
    std::vector<FactDate> ds = dates_in(piece, true);
    if (ds.empty()) continue;
    size_t dash = piece.find("\xE2\x80\x93");
    if (dash == std::string_view::npos) dash = piece.find(" - ");
    if (dash == std::string_view::npos) dash = piece.find('-');
    const bool died_word = starts_with_word(piece, "d.") || starts_with_word(piece, "died");
    if (dash == std::string_view::npos) {
      (died_word ? out.died : out.born) = ds.front();
    } else {
      for (const auto& d : ds) {
        std::optional<FactDate>& slot = d.pos < dash ? out.born : out.died;
        if (!slot) slot = d;
      }
      if (died_word && !out.died) out.died = out.born, out.born.reset();
    }
    return;
  }
}

// The first date after word `w` in one of `sentences` within `window` bytes of it.
std::optional<FactDate> date_after(std::string_view text, const std::vector<std::pair<size_t, size_t>>& sentences,
                                   std::string_view w, size_t window) {
  for (auto [b, e] : sentences) {
    std::string_view s = text.substr(b, e - b);
    size_t i = s.find(w);
    if (i == std::string_view::npos) continue;
    std::string_view after = s.substr(i + w.size(), std::min(window, s.size() - i - w.size()));
    std::vector<FactDate> ds = dates_in(after, true);
    if (!ds.empty()) return ds.front();
  }
  return std::nullopt;
}

}  // namespace

LifeDates life_dates(std::string_view passage) {
  LifeDates out;
  paren_dates(dated_paren(passage), out);
  const auto sents = split_sentences(passage);
  if (!out.born) out.born = date_after(passage, sents, "born", 40);
  if (!out.died) out.died = date_after(passage, sents, "died", 60);
  return out;
}

const char* fact_property_name(FactProperty p) {
  switch (p) {
    case FactProperty::None: return "none";
    case FactProperty::Identity: return "identity";
    case FactProperty::BirthDate: return "birth_date";
    case FactProperty::DeathDate: return "death_date";
    case FactProperty::BirthPlace: return "birth_place";
    case FactProperty::DeathPlace: return "death_place";
    case FactProperty::Nationality: return "nationality";
    case FactProperty::Released: return "released";
    case FactProperty::Lifespan: return "lifespan";
    case FactProperty::CauseOfDeath: return "cause_of_death";
    case FactProperty::Education: return "education";
    case FactProperty::Employer: return "employer";
  }
  return "none";
}

std::string fold_name(std::string_view name) {
  std::string out;
  bool space = false;
  for (char c : name) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x80 || std::isalnum(u) || c == '(' || c == ')') {
      if (space && !out.empty()) out += ' ';
      space = false;
      out += static_cast<char>(std::tolower(u));
    } else {
      space = true;
    }
  }
  return out;
}

std::string fold_name_base(std::string_view name) {
  std::string f = fold_name(name);
  size_t p = f.find('(');
  if (p != std::string::npos) f = f.substr(0, p);
  while (!f.empty() && f.back() == ' ') f.pop_back();
  f.erase(std::remove(f.begin(), f.end(), ')'), f.end());
  return f;
}

int passage_gender(std::string_view passage) {
  int he = 0, she = 0;
  for (const Tok& t : tokens(passage)) {
    std::string w = lower_ascii(word_core_of(t.raw));
    if (w == "he" || w == "his" || w == "him" || w == "himself") ++he;
    if (w == "she" || w == "her" || w == "hers" || w == "herself") ++she;
  }
  if (he > 2 * she && he > 0) return 1;
  if (she > 2 * he && she > 0) return -1;
  return 0;
}

namespace {

size_t skip_article(std::string_view s, size_t i) {
  size_t k = i;
  Word w = word_at(s, k);
  return w.core == "the" || w.core == "The" ? k : i;
}

// After a trigger at `from`: one of `preps` as a word within `window` bytes, then a capitalised
// name (dates and lower-case words between are skipped); `parts` comma parts for a place.
std::string name_after_prep(std::string_view s, size_t from, size_t window, std::initializer_list<std::string_view> preps,
                            int parts) {
  size_t i = from;
  const size_t stop = std::min(s.size(), from + window);
  while (i < stop) {
    size_t k = i;
    Word w = word_at(s, k);
    if (w.core.empty() || w.close == ';') break;
    for (std::string_view p : preps)
      if (w.core == p && !w.close) {
        std::string n = parts > 1 ? place_at(s, skip_article(s, k), parts) : name_at(s, skip_article(s, k));
        if (!n.empty()) return n;
      }
    i = k;
  }
  return {};
}

std::string_view opening_sentence(const std::vector<std::string_view>& sents) {
  return sents.empty() ? std::string_view{} : sents.front();
}

// The nationality an opening "X is/was a(n) ... " gives: a capitalised run before a lower-case
// noun ("an American singer", "a United States Army soldier", "a 1961 Hindi film").
std::string demonym(std::string_view s) {
  for (std::string_view cue : {" is a ", " was a ", " is an ", " was an ", " is the ", " was the ", " were a ", " are a "}) {
    size_t i = s.find(cue);
    if (i == std::string_view::npos) continue;
    size_t j = i + cue.size();
    for (int n = 0; n < 5 && j < s.size(); ++n) {
      size_t k = j;
      Word w = word_at(s, k);
      if (w.core.empty()) break;
      if (capitalised(w.core)) {
        Run r = capital_run(s, j);
        size_t k2 = r.end;
        Word next = word_at(s, k2);
        std::string t(s.substr(r.pos, r.end - r.pos));
        while (!t.empty() && t.back() == '-') t.pop_back();
        if (r.words > 0 && !r.close && lower_word(next.core) && !is_stopword(lower_ascii(next.core))) {
          // "a Chinese American actor", "an Austrian-American composer", "a French DJ": the first
          // nationality of a compound.
          std::string first = t.substr(0, std::min(t.find(' '), t.find('-')));
          return first.size() < t.size() && !country_key(first).empty() ? first : t;
        }
        return {};
      }
      static const std::array<const char*, 12> stops = {"in", "of", "from", "at", "on", "by", "for", "who", "which", "that", "and", "with"};
      if (std::any_of(stops.begin(), stops.end(), [&](const char* x) { return w.core == x; }) || w.close) break;
      j = k;
    }
    return {};
  }
  return {};
}

// The country an opening "X is a village in A, B, C" or "a station serving A, B department,
// western C" ends its location with: the last comma-separated part that is a name alone
// (leading lower-case words such as "western" left out).
std::string location_country(std::string_view s) {
  if (find_words(s, "in") == std::string_view::npos && s.find(", ") == std::string_view::npos) return {};
  std::string best;
  size_t b = s.find(", ");
  while (b != std::string_view::npos) {
    size_t i = b + 2;
    size_t k = i;
    for (int n = 0; n < 2; ++n) {  // "western France"
      size_t k2 = k;
      Word w = word_at(s, k2);
      if (!lower_word(w.core) || w.close) break;
      k = k2;
    }
    while (k < s.size() && s[k] == ' ') ++k;
    Run r = capital_run(s, k);
    if (r.words > 0 && (r.close == ',' || r.close == '.' || r.end >= s.size() - 1)) best = std::string(s.substr(r.pos, r.end - r.pos));
    b = s.find(", ", b + 2);
  }
  if (!best.empty()) return best;
  // "a village in the Telavi district of Georgia.": the name that ends the sentence after "in"/"of".
  for (std::string_view prep : {" of ", " in "}) {
    size_t p = s.rfind(prep);
    if (p == std::string_view::npos) continue;
    Run r = capital_run(s, skip_article(s, p + prep.size()));
    if (r.words > 0 && (r.close == '.' || r.end >= s.size() - 1)) return std::string(s.substr(r.pos, r.end - r.pos));
  }
  return {};
}

// Words after a cue up to punctuation or a preposition that starts a new phrase ("died of
// tuberculosis in 1923" -> "tuberculosis").
std::string phrase_after(std::string_view s, size_t i) {
  std::string out;
  size_t j = i;
  for (int n = 0; n < 6 && j < s.size(); ++n) {
    size_t k = j;
    Word w = word_at(s, k);
    if (w.core.empty()) break;
    static const std::array<const char*, 10> stops = {"in", "at", "on", "while", "aged", "after", "when", "and", "at", "during"};
    if (std::any_of(stops.begin(), stops.end(), [&](const char* x) { return w.core == x; })) break;
    if (!all_digits(w.core) || !out.empty()) {
      if (out.empty() && (w.core == "a" || w.core == "an" || w.core == "the" || w.core == "his" || w.core == "her")) {
        j = k;
        continue;
      }
      if (!out.empty()) out += ' ';
      out += std::string(w.core);
    }
    if (w.close) break;
    j = k;
  }
  return out;
}

std::optional<FactValue> cue_value(const std::vector<std::string_view>& sents, std::initializer_list<std::string_view> cues,
                                   const std::function<std::string(std::string_view, size_t)>& read) {
  for (std::string_view s : sents)
    for (std::string_view cue : cues) {
      size_t i = find_words(s, cue);
      if (i == std::string_view::npos) continue;
      std::string v = read(s, i + cue.size());
      if (!v.empty()) return FactValue{v, std::string(s), std::nullopt};
    }
  return std::nullopt;
}

std::optional<FactValue> date_value(const std::optional<FactDate>& d, const std::vector<std::string_view>& sents) {
  if (!d) return std::nullopt;
  FactValue v{d->text, std::string(opening_sentence(sents)), d};
  for (std::string_view s : sents)
    if (s.find(d->text) != std::string_view::npos) {
      v.sentence = std::string(s);
      break;
    }
  return v;
}

// Where the dated parenthesis puts the birth (before its dash) or the death (after it): "(6 April
// 1920 in Winnetka, Illinois – 19 December 1997 in Los Angeles)", "(8 May 1939, Namslau – ...)".
std::string paren_place(std::string_view passage, bool death) {
  std::string_view in = dated_paren(passage);
  if (in.empty()) return {};
  size_t dash = in.find("\xE2\x80\x93");
  if (dash == std::string_view::npos) dash = in.find(" - ");
  if (death && dash == std::string_view::npos) return {};
  std::string_view side = death ? in.substr(dash) : in.substr(0, dash == std::string_view::npos ? in.size() : dash);
  std::vector<FactDate> ds = dates_in(side, true);
  if (ds.empty()) return {};
  size_t i = ds.front().end;
  while (i < side.size() && (side[i] == ' ' || side[i] == ',')) ++i;
  if (side.substr(i, 3) == "in ") i += 3;
  return place_at(side, i, 2);
}

}  // namespace

std::optional<FactValue> read_property(std::string_view passage, FactProperty property) {
  const std::vector<std::string_view> sents = sentences_of(passage);
  if (sents.empty()) return std::nullopt;
  const std::string_view open = opening_sentence(sents);
  auto near = [](std::initializer_list<std::string_view> preps, size_t window, int parts) {
    return [=](std::string_view s, size_t i) { return name_after_prep(s, i, window, preps, parts); };
  };
  switch (property) {
    case FactProperty::BirthDate: return date_value(life_dates(passage).born, sents);
    case FactProperty::DeathDate: return date_value(life_dates(passage).died, sents);
    case FactProperty::Released: {
      // "released on 3 May 1961" anywhere, else the opening sentence's first year ("is a 1961 film").
      for (std::string_view x : sents)
        for (std::string_view cue : {"released", "founded", "established", "opened", "published", "premiered",
                                     "formed", "built"}) {
          size_t i = find_words(x, cue);
          if (i == std::string_view::npos) continue;
          std::vector<FactDate> d = dates_in(x.substr(i, std::min<size_t>(60, x.size() - i)), false);
          if (!d.empty()) return FactValue{std::to_string(d.front().year), std::string(x), d.front()};
        }
      std::vector<FactDate> d = dates_in(open, false);
      if (d.empty()) return std::nullopt;
      return FactValue{std::to_string(d.front().year), std::string(open), d.front()};
    }
    case FactProperty::BirthPlace:
      if (std::string p = paren_place(passage, false); !p.empty()) return FactValue{p, std::string(open), std::nullopt};
      if (auto v = cue_value(sents, {"born"}, near({"in", "at"}, 120, 2))) return v;
      return cue_value(sents, {"native of"}, [](std::string_view s, size_t i) { return place_at(s, i, 2); });
    case FactProperty::DeathPlace:
      if (std::string p = paren_place(passage, true); !p.empty()) return FactValue{p, std::string(open), std::nullopt};
      return cue_value(sents, {"died", "death"}, near({"in", "at"}, 100, 2));
    case FactProperty::Nationality: {
      std::string v = demonym(open);
      if (v.empty()) v = location_country(open);
      if (v.empty()) return std::nullopt;
      return FactValue{v, std::string(open), std::nullopt};
    }
    case FactProperty::CauseOfDeath:
      return cue_value(sents, {"died of", "died from", "death from", "succumbed to", "cause of death was", "died due to",
                               "death was caused by"},
                       [](std::string_view s, size_t i) { return phrase_after(s, i); });
    case FactProperty::Education:
      if (auto v = cue_value(sents, {"educated at", "graduated from", "graduate of", "alumnus of", "alumna of",
                                     "enrolled at", "attended", "student at", "degree from"},
                             [](std::string_view s, size_t i) { return name_at(s, skip_article(s, i)); }))
        return v;
      return cue_value(sents, {"studied", "educated", "trained"}, near({"at", "in"}, 60, 1));
    case FactProperty::Employer:
      return cue_value(sents, {"works", "worked", "working", "professor", "teaches", "taught", "lecturer", "employed",
                               "faculty", "teacher", "researcher"},
                       near({"at", "for", "by"}, 50, 1));
    default: return std::nullopt;
  }
}

}  // namespace mmkg
