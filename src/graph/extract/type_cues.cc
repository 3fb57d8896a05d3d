#include "graph/extract/type_cues.h"

#include "text/lexicon.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace mmkg::graph::rules {
namespace {

// Head nouns that say what kind of thing a name is. General English of technical writing: the
// words authors use to introduce a dataset, a model, a method, a metric, a piece of software or an
// institution; nothing here is specific to one field.
const std::unordered_map<std::string_view, std::string_view> kTypeHead = {
    {"dataset", "dataset"},       {"datasets", "dataset"},     {"corpus", "dataset"},
    {"corpora", "dataset"},       {"benchmark", "dataset"},    {"benchmarks", "dataset"},
    {"database", "dataset"},      {"model", "model"},          {"models", "model"},
    {"network", "model"},         {"networks", "model"},       {"method", "method"},
    {"methods", "method"},        {"algorithm", "method"},     {"algorithms", "method"},
    {"technique", "method"},      {"techniques", "method"},    {"procedure", "method"},
    {"estimator", "method"},      {"metric", "metric"},        {"metrics", "metric"},
    {"measure", "metric"},        {"score", "metric"},         {"error", "metric"},
    {"accuracy", "metric"},       {"package", "software"},     {"packages", "software"},
    {"library", "software"},      {"libraries", "software"},   {"toolkit", "software"},
    {"toolbox", "software"},      {"software", "software"},    {"university", "organization"},
    {"institute", "organization"}, {"laboratory", "organization"}, {"corporation", "organization"},
    {"foundation", "organization"}, {"consortium", "organization"}, {"association", "organization"},
    {"society", "organization"},  {"academy", "organization"},  {"agency", "organization"},
    {"council", "organization"},  {"college", "organization"},  {"hospital", "organization"},
    {"clinic", "organization"}};

// Type nouns that come BEFORE the name they introduce: "the R package mgcv", "the dataset MNIST".
const std::unordered_set<std::string_view> kLeadingType = {"package", "library", "toolkit", "dataset", "corpus",
                                                           "benchmark"};

bool name_like(const Token& t) { return t.acronym || t.cap || t.technical; }
bool capitalised(const Token& t) { return t.word() && !t.text.empty() && t.text[0] >= 'A' && t.text[0] <= 'Z'; }
bool year_like(const Token& t) {
  const std::string& w = t.text;
  if (w.size() < 4 || w.size() > 5 || !(w[0] == '1' || w[0] == '2')) return false;
  for (size_t i = 0; i < 4; ++i)
    if (w[i] < '0' || w[i] > '9') return false;
  return w.size() == 4 || (w[4] >= 'a' && w[4] <= 'z');  // 2019, 2019a
}
// A surname: capitalised, not an acronym, not a function word (it then has a role).
bool surname(const Token& t) { return capitalised(t) && !t.acronym && t.role != Role::kBreak && !t.technical; }

// A sentence's tokens with the two tests every cue family makes; an index outside the sentence
// matches nothing.
struct Toks {
  const std::vector<Token>& tk;
  int n;
  explicit Toks(const Sentence& s) : tk(s.toks), n(static_cast<int>(s.toks.size())) {}
  bool is(int i, std::string_view w) const { return i >= 0 && i < n && tk[i].word() && tk[i].lower == w; }
  bool punct(int i, char c) const { return i >= 0 && i < n && tk[i].punct == c; }
};

}  // namespace

std::string_view type_of_head(std::string_view w) {
  auto it = kTypeHead.find(w);
  return it == kTypeHead.end() ? std::string_view() : it->second;
}

namespace {

// "the NAFLD data set", "the nad3 data sets": the two-word type noun of statistics texts. True
// when mention `m` ends so (typed or not: no other phrase cue then applies).
bool data_set_phrase(const Toks& t, const Mention& m, std::vector<TypeCue>& out) {
  const auto& tk = t.tk;
  if (!(m.last - m.first >= 3 && tk[m.last - 2].lower == "data" && (tk[m.last - 1].lower == "set" || tk[m.last - 1].lower == "sets")))
    return false;
  bool named = false;
  for (int k = m.first; k < m.last - 2; ++k) named = named || name_like(tk[k]);
  if (named) {
    out.push_back({m.first, m.last, "dataset"});
    out.push_back({m.first, m.last - 2, "dataset"});
  }
  return true;
}

// 1. A name written with its type noun, in one phrase: "ImageNet dataset", "mgcv package",
//    "Stanford University" (the name and the whole phrase), "package mgcv" (the name after it).
void type_noun_phrases(const Toks& t, const std::vector<Mention>& ms, std::vector<TypeCue>& out) {
  const auto& tk = t.tk;
  for (const Mention& m : ms) {
    if (m.last - m.first < 2) continue;
    std::string_view tail = type_of_head(tk[m.last - 1].lower);
    if (data_set_phrase(t, m, out)) continue;
    bool named = false;
    for (int k = m.first; k < m.last - 1; ++k) named = named || name_like(tk[k]);
    if (!tail.empty() && named) {
      out.push_back({m.first, m.last, tail});
      if (tail != "organization") out.push_back({m.first, m.last - 1, tail});
      continue;
    }
    if (kLeadingType.count(tk[m.first].lower)) {
      bool rest_named = true;
      for (int k = m.first + 1; k < m.last; ++k) rest_named = rest_named && tk[k].role == Role::kHead;
      if (rest_named) out.push_back({m.first + 1, m.last, type_of_head(tk[m.first].lower)});
    }
  }
}

// "the package vcd": the chunker left the type noun out of the name's phrase (terms.cc), so the
// type noun is the word just before the mention. "University of Oxford", "Institute of
// Statistical Mathematics": the type noun and the capitalised words after "of".
void type_noun_outside(const Toks& t, const std::vector<Mention>& ms, std::vector<TypeCue>& out) {
  const auto& tk = t.tk;
  const int n = t.n;
  for (const Mention& m : ms)
    if (m.last - m.first == 1 && m.first > 0 && tk[m.first - 1].word() && kLeadingType.count(tk[m.first - 1].lower) &&
        tk[m.first].technical)
      out.push_back({m.first, m.last, type_of_head(tk[m.first - 1].lower)});
  for (int i = 0; i + 2 < n; ++i) {
    if (!capitalised(tk[i]) || type_of_head(tk[i].lower) != "organization" || !t.is(i + 1, "of")) continue;
    int e = i + 2;
    while (e < n && capitalised(tk[e])) ++e;
    if (e > i + 2) out.push_back({i, e, "organization"});
  }
}

// 2. People, from citation shapes: "Vaswani et al.", "(Smith, 2019)", "(Smith and Lee, 2019)",
//    "Smith (2019)". Citations in brackets were masked away before this (mask_markup).
void citation_people(const Toks& t, std::vector<TypeCue>& out) {
  const auto& tk = t.tk;
  const int n = t.n;
  auto is = [&](int i, std::string_view w) { return t.is(i, w); };
  auto punct = [&](int i, char c) { return t.punct(i, c); };
  for (int i = 0; i < n; ++i) {
    if (!surname(tk[i])) continue;
    if (is(i + 1, "et") && (is(i + 2, "al") || is(i + 2, "al."))) {
      out.push_back({i, i + 1, "person"});
      continue;
    }
    if (punct(i + 1, '(') && i + 3 < n && year_like(tk[i + 2]) && punct(i + 3, ')')) {
      out.push_back({i, i + 1, "person"});
      continue;
    }
    // "Koch and Edwards (1988)", "Long & Ervin (2000)": two authors before the year
    if ((is(i + 1, "and") || punct(i + 1, '&')) && i + 5 < n && surname(tk[i + 2]) && punct(i + 3, '(') &&
        year_like(tk[i + 4]) && punct(i + 5, ')')) {
      out.push_back({i, i + 1, "person"});
      out.push_back({i + 2, i + 3, "person"});
      continue;
    }
    if (!punct(i - 1, '(')) continue;
    if (punct(i + 1, ',') && i + 2 < n && year_like(tk[i + 2])) {
      out.push_back({i, i + 1, "person"});
    } else if ((is(i + 1, "and") || punct(i + 1, '&')) && i + 4 < n && surname(tk[i + 2]) && punct(i + 3, ',') &&
               year_like(tk[i + 4])) {
      out.push_back({i, i + 1, "person"});
      out.push_back({i + 2, i + 3, "person"});
    }
  }
}

// Reference lists in the Vancouver style: "Everitt BS, ...", "Kiefer NM (2002)": a surname and
// its initials (one to three capitals), then a comma, a bracket or a full stop.
void reference_list_people(const Toks& t, const Lexicon& lex, std::vector<TypeCue>& out) {
  const auto& tk = t.tk;
  for (int i = 0; i + 2 < t.n; ++i) {
    const Token& ini = tk[i + 1];
    bool initials = ini.word() && ini.text.size() <= 3 &&
                    std::all_of(ini.text.begin(), ini.text.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
    if (surname(tk[i]) && !lex.known(tk[i].lower) && initials &&
        (t.punct(i + 2, ',') || t.punct(i + 2, '(') || t.punct(i + 2, '.'))) {
      out.push_back({i, i + 2, "person"});
      out.push_back({i, i + 1, "person"});
    }
  }
}

// 3. Author lines: three or more names of two or three capitalised words separated by commas
//    (and "and"): "Ashish Vaswani, Noam Shazeer, Niki Parmar, and Jakob Uszkoreit".
void author_lines(const Toks& t, const std::vector<Mention>& ms, const Lexicon& lex, std::vector<TypeCue>& out) {
  const auto& tk = t.tk;
  auto personal = [&](const Mention& m) {
    if (m.last - m.first < 2 || m.last - m.first > 3) return false;
    bool unknown = false;  // a name word WordNet does not know: "Image Captioning" is no person
    for (int k = m.first; k < m.last; ++k) {
      if (!capitalised(tk[k]) || tk[k].acronym || tk[k].technical || !type_of_head(tk[k].lower).empty()) return false;
      unknown = unknown || !lex.known(tk[k].lower);
    }
    return unknown;
  };
  for (size_t k = 0; k < ms.size();) {
    size_t e = k;
    while (e < ms.size() && personal(ms[e])) {
      if (e + 1 >= ms.size()) { ++e; break; }
      int g = ms[e].last, h = ms[e + 1].first;  // the separator between two names
      bool sep = (h == g + 1 && t.punct(g, ',')) || (h == g + 1 && t.is(g, "and")) ||
                 (h == g + 2 && t.punct(g, ',') && t.is(g + 1, "and"));
      ++e;
      if (!sep) break;
    }
    if (e - k >= 3)
      for (size_t j = k; j < e; ++j) out.push_back({ms[j].first, ms[j].last, "person"});
    k = std::max(e, k + 1);
  }
}

// 4. Apposition and copula with a type noun: "X, a method for ...", "X is an R package ...",
//    "X is a metric that ...": the head of the phrase after the article types X.
void appositions(const Toks& t, const std::vector<Mention>& ms, std::vector<TypeCue>& out) {
  const auto& tk = t.tk;
  const int n = t.n;
  for (size_t k = 0; k + 1 < ms.size(); ++k) {
    const Mention& x = ms[k];
    int i = x.last;
    if (t.punct(i, '(')) {  // "X (MHA), a ..."
      int j = i + 1;
      while (j < n && j < i + 6 && !t.punct(j, ')')) ++j;
      if (t.punct(j, ')')) i = j + 1;
    }
    if (t.punct(i, ',')) ++i;
    else if (t.is(i, "is") || t.is(i, "was")) ++i;
    else continue;
    if (!(t.is(i, "a") || t.is(i, "an"))) continue;
    ++i;
    for (size_t j = k + 1; j < ms.size(); ++j) {
      const Mention& y = ms[j];
      if (y.first < i) continue;
      if (y.first > i + 2) break;  // the phrase right after the article (one adverb or number)
      std::string_view ty = type_of_head(tk[y.last - 1].lower);
      if (!ty.empty()) out.push_back({x.first, x.last, ty});
      break;
    }
  }
}

}  // namespace

void type_cues(const Sentence& s, const std::vector<Mention>& ms, std::vector<TypeCue>& out) {
  const Toks t(s);
  type_noun_phrases(t, ms, out);
  type_noun_outside(t, ms, out);
  citation_people(t, out);
  const Lexicon& lex = Lexicon::get();
  reference_list_people(t, lex, out);
  author_lines(t, ms, lex, out);
  appositions(t, ms, out);
}

}  // namespace mmkg::graph::rules
