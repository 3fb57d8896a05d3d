// rank_terms (rules.h): termhood of a document's candidate terms, split from
// extract_rules.cc (the rule extractor proposes the candidates; this decides which are terms).
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "graph/extract/chars.h"
#include "graph/extract/rules.h"
#include "graph/extract/terms.h"
#include "graph/model/extractor.h"
#include "graph/model/graph_types.h"
#include "text/common_words.h"
#include "text/lexicon.h"
#include "text/words.h"

namespace mmkg::graph {

// ---------------------------------------------------------------------------------------------
// Termhood. For each distinct term a (by name_key) over the document:
//
//   f(a)    = occurrences of a in the document (TermCandidate::count summed; multi-word phrases
//             count their occurrences inside longer phrases too, as the extractor emits suffixes)
//   C(a)    = log2(1 + |a|) * (f(a) - mean_{b in T(a)} f(b))        C-value (Frantzi et al.)
//             |a| = words; T(a) = longer terms of the document that end with a (a is nested in
//             them). Single words count only where they stand alone, so nothing is subtracted.
//   idf(a)  = mean idf of a's content words / the largest idf among the document's words, in
//             [0, 1] (so thresholds do not depend on the corpus size or the idf variant)
//   boost   = 1 + 1.0 [acronym with an expansion, or an expansion] + 0.5 [capitalised name]
//               + 0.5 [heading] + 0.5 [has a definition] + 0.25 [technical token, acronym]
//   score   = max(C(a), strong ? 1 : 0) * (0.1 + idf(a)) * boost      strong = defined acronym
//                                                                      or expansion, definition
//
// Terms a model chose (kind "llm") are kept with score >= 0.5. Others are kept when
// score >= 0.5, except: single ordinary words (not acronyms or technical tokens, and
// capitalised in under half of their occurrences) are dropped when they are generic WordNet nouns,
// WordNet adjectives or verb forms, or idf(a) < 0.35; terms
// seen once with idf(a) < 0.35 are dropped unless strong; single ordinary words of general
// English (among its 2,800 most frequent lemmas, common_words.h: "results", "approach",
// "performance", "ability") are dropped unless the document defines them. A single word heading
// 3+ kept multi-word terms and standing alone 3+ times is kept anyway (head-word productivity,
// below) unless it is such a common word not defined by the document: "results" heading
// "experimental results" and "simulation results" says nothing about the domain. Phrases of
// common words only, seen once, neither names nor defined, are dropped too (all_common), and so
// are phrases seen once without a domain word (any_domain).
// ---------------------------------------------------------------------------------------------
namespace {
// Every content word is a common word of general English (common_words.h); false when the
// frequency list is missing (nothing is filtered then).
bool all_common(const std::vector<std::string>& content) {
  const rules::CommonWords& cw = rules::CommonWords::get();
  if (content.empty() || !cw.loaded()) return false;
  for (const std::string& w : content)
    if (!cw.common(w)) return false;
  return true;
}

// Some content word is a domain word (CommonWords::domain); true when the list is missing.
bool any_domain(const std::vector<std::string>& content) {
  const rules::CommonWords& cw = rules::CommonWords::get();
  if (!cw.loaded()) return true;
  for (const std::string& w : content)
    if (cw.domain(w)) return true;
  return false;
}
}  // namespace

namespace {
// "Achim Zeileis", "Colin Raffel": two or three capitalised words that WordNet does not know,
// the last of which the document cites as a person elsewhere ("Zeileis (2004)", "Raffel et al."),
// are that person's full name. Author lines and affiliations rarely carry a cue of their own;
// the surname's citations do. Words WordNet knows keep "Upper Saddle River" and "Stanford
// Question Answering" out, and the surname test keeps "Deutsche Forschungsgemeinschaft" out.
void type_full_names(std::vector<ChunkExtraction>& document) {
  std::unordered_set<std::string> surnames;
  for (const auto& ch : document)
    for (const auto& t : ch.terms)
      if (t.type == "person" && t.surface.find(' ') == std::string::npos) surnames.insert(t.surface);
  if (surnames.empty()) return;
  const Lexicon& lex = Lexicon::get();
  for (auto& ch : document)
    for (auto& t : ch.terms) {
      if (!t.type.empty() && t.type != "concept") continue;
      std::vector<std::string> ws;
      size_t b = 0;
      while (b <= t.surface.size()) {
        size_t e = t.surface.find(' ', b);
        if (e == std::string::npos) e = t.surface.size();
        ws.push_back(t.surface.substr(b, e - b));
        b = e + 1;
      }
      if (ws.size() < 2 || ws.size() > 3 || !surnames.count(ws.back())) continue;
      bool name = true;
      for (const auto& w : ws)
        name = name && w.size() >= 2 && rules::is_upper(w[0]) &&
               std::none_of(w.begin() + 1, w.end(), [](char c) { return rules::is_upper(c) || rules::is_digit(c); }) &&
               !lex.known(lower_ascii(w));
      if (name) t.type = "person";
    }
}
}  // namespace

namespace {

constexpr double kMinScore = 0.5, kLowIdf = 0.35;

// What rank_terms knows of one term (by its name key) over the whole document.
struct TermStat {
  double f = 0;
  int words = 1;
  bool expanded = false, cap = false, heading = false, defined = false, technical = false, shaped = false;
  bool chosen = false;   // a model chose it (kind "llm"): kept whatever its score
  bool common = false;   // a single ordinary word of general English (common_words.h)
  double cap_count = 0;  // occurrences as a capitalised name
  std::string surface;   // first surface seen: its words are looked up in idf
  std::vector<std::string> content;
  double score = 0;
  bool keep = false;
};

// Surface → name_key, computed once per surface.
class TermKeys {
 public:
  const std::string& operator()(const std::string& surface) {
    auto it = key_of_.find(surface);
    if (it == key_of_.end()) it = key_of_.emplace(surface, name_key(surface)).first;
    return it->second;
  }

 private:
  std::unordered_map<std::string, std::string> key_of_;
};

std::unordered_map<std::string, TermStat> term_stats(const std::vector<ChunkExtraction>& document, TermKeys& key) {
  std::unordered_map<std::string, TermStat> stats;
  for (auto& ch : document)
    for (auto& t : ch.terms) {
      const std::string& k = key(t.surface);
      if (k.empty()) continue;
      TermStat& s = stats[k];
      if (s.surface.empty()) s.surface = t.surface;
      s.f += t.count;
      s.words = 1 + static_cast<int>(std::count(k.begin(), k.end(), ' '));
      if (t.kind == "acronym" && !t.expansion.empty()) {
        s.expanded = true;
        std::string ek = name_key(t.expansion);
        if (!ek.empty()) stats[ek].expanded = true;
      }
      s.cap = s.cap || t.kind == "capitalised";
      s.heading = s.heading || t.kind == "heading";
      s.defined = s.defined || !t.definition.empty();
      s.technical = s.technical || t.kind == "technical" || t.kind == "acronym";
      if (t.kind == "acronym" || t.kind == "technical") s.shaped = true;
      if (t.kind == "capitalised") s.cap_count += t.count;
      if (t.kind == "llm") s.chosen = true;
    }
  return stats;
}

// Nested terms: for each multi-word term a that ends another term b (a word suffix), the summed
// frequency of those b and their number (C-value's T(a)).
std::unordered_map<std::string, std::pair<double, int>> nested_terms(
    const std::unordered_map<std::string, TermStat>& stats) {
  std::unordered_map<std::string, std::pair<double, int>> nested;
  for (auto& [k, s] : stats) {
    size_t p = 0;
    while ((p = k.find(' ', p)) != std::string::npos) {
      ++p;
      std::string suffix = k.substr(p);
      if (suffix.find(' ') == std::string::npos) break;  // single words: no subtraction
      if (stats.count(suffix)) {
        auto& n = nested[suffix];
        n.first += s.f;
        n.second += 1;
      }
    }
  }
  return nested;
}

// A term's score (C-value on the nested-corrected frequency, times its words' normalised IDF and
// the boosts of its kinds) and whether it is kept.
void score_term(const std::string& k, TermStat& s, const std::unordered_map<std::string, std::pair<double, int>>& nested,
                std::unordered_map<std::string, double>& idf_cache, double max_idf) {
  double nidf = 1;
  if (max_idf > 0) {
    double sum = 0;
    for (auto& w : s.content) sum += std::max(0.0, idf_cache[w]);
    nidf = s.content.empty() ? 0 : sum / s.content.size() / max_idf;
  }
  double fa = s.f;
  if (auto it = nested.find(k); it != nested.end() && s.words > 1) fa -= it->second.first / it->second.second;
  bool strong = s.expanded || s.defined;
  double c = std::log2(1.0 + s.words) * fa;
  if (strong) c = std::max(c, 1.0);
  double boost = 1 + (s.expanded ? 1.0 : 0) + (s.cap ? 0.5 : 0) + (s.heading ? 0.5 : 0) + (s.defined ? 0.5 : 0) +
                 (s.technical ? 0.25 : 0);
  s.score = std::max(0.0, c) * (0.1 + nidf) * boost;
  s.keep = s.score >= kMinScore;
  // an ordinary word: not an acronym or technical token, capitalised in under half its uses
  bool ordinary = !s.shaped && s.cap_count * 2 < s.f;
  if (s.words == 1 && ordinary && (rules::weak_single_word(k) || nidf < kLowIdf)) s.keep = false;
  // One or two letters that are not an acronym ("dy", "Nn", "zu", "ea"): the symbols of a
  // formula that PDF text extraction spreads over the lines, or abbreviations WordNet happens
  // to know (Dy, ed); a two-letter name of a thing is written in capitals (AI, ML, GO).
  if (s.words == 1 && k.size() <= 2 && !std::all_of(s.surface.begin(), s.surface.end(), [](char c) {
        return rules::is_upper(c) || rules::is_digit(c);
      }))
    s.keep = false;
  s.common = s.words == 1 && ordinary && rules::CommonWords::get().common(k);
  if (s.common && !s.defined) s.keep = false;
  // A phrase of common words only ("available resources", "time frame", "robust foundation"),
  // no name in it, seen once and not defined: a free combination of general English, not a
  // term. Repetition (a collocation the document keeps using) or one domain word keeps it.
  if (s.words > 1 && !s.cap && !s.shaped && !strong && s.f < 2 && all_common(s.content)) s.keep = false;
  // The same for a phrase (or an ordinary word) seen once without a single domain word, a word general English does
  // not use ("uppercase bold letters", "leaving open questions", "theoretical level"): once is
  // not a term without a name, a definition or a word of the domain ("softmax nonlinearity").
  if (s.words > 1 && !s.cap && !s.shaped && !strong && s.f < 2 && !any_domain(s.content)) s.keep = false;
  if (s.words == 1 && ordinary && !strong && s.f < 2 && !any_domain(s.content)) s.keep = false;
  if (s.f <= 1 && nidf < kLowIdf && !strong) s.keep = false;
  // A typo ("specfying", "proporitional hazard", "possiblility"): a word one edit from an English
  // word (terms.h misspelt_word) that the corpus holds in one chunk only. A coined word of the
  // domain ("agentic", "multipole") is one edit from a word too, but the documents repeat it.
  const bool lower_case = std::none_of(s.surface.begin() + (s.surface.empty() ? 0 : 1), s.surface.end(),
                                       rules::is_upper);  // not MNIST, not a name
  if (!strong && !s.cap && lower_case && max_idf > 0)
    for (const std::string& w : s.content)
      if (idf_cache[w] >= max_idf * (1 - 1e-9) && rules::misspelt_word(w)) s.keep = false;
  if (s.chosen) {
    s.keep = true;
    s.score = std::max(s.score, kMinScore);
  }
}

// Head-word productivity: a single word that heads at least kMinFamily distinct kept multi-word
// terms and stands alone at least kMinFamily times is a term of the document however common it is
// ("attention" under "multi-head attention", "linear attention", "sparse attention" ...). Without
// this, a corpus's central topic (low idf, a WordNet noun) would have no entity.
void keep_head_words(std::unordered_map<std::string, TermStat>& stats) {
  constexpr int kMinFamily = 3;
  std::unordered_map<std::string, int> family;
  for (auto& [k, s] : stats) {
    if (s.words < 2 || !s.keep) continue;
    family[k.substr(k.rfind(' ') + 1)] += 1;
  }
  for (auto& [k, s] : stats) {
    if (s.words != 1 || s.keep || s.f < kMinFamily) continue;
    if (s.common && !s.defined) continue;  // "results" heads "experimental results", "main results" ...
    auto it = family.find(k);
    if (it == family.end() || it->second < kMinFamily) continue;
    s.keep = true;
    s.score = std::max(s.score, kMinScore);
  }
}

// Each chunk keeps its kept terms (scored), at most kMaxTermsPerChunk, and the relations between
// them.
void keep_terms(std::vector<ChunkExtraction>& document, const std::unordered_map<std::string, TermStat>& stats,
                TermKeys& key) {
  for (auto& ch : document) {
    std::unordered_set<std::string> kept;
    std::vector<TermCandidate> terms;
    for (auto& t : ch.terms) {
      auto it = stats.find(key(t.surface));
      if (it == stats.end() || !it->second.keep) continue;
      t.score = it->second.score;
      kept.insert(t.surface);
      terms.push_back(std::move(t));
    }
    // At most kMaxTermsPerChunk terms per chunk, the best scored: about 1,000 characters of prose
    // rarely hold more distinct terms (19 on average in examples/corpus), and the cap bounds the
    // graph of pathological input (a 50 MB file of 8 repeated words) to a linear size.
    constexpr size_t kMaxTermsPerChunk = 32;
    if (terms.size() > kMaxTermsPerChunk) {
      std::stable_sort(terms.begin(), terms.end(),
                       [](const TermCandidate& x, const TermCandidate& y) { return x.score > y.score; });
      for (size_t i = kMaxTermsPerChunk; i < terms.size(); ++i) kept.erase(terms[i].surface);
      terms.resize(kMaxTermsPerChunk);
    }
    ch.terms = std::move(terms);
    std::erase_if(ch.relations, [&](const RelationCandidate& r) { return !kept.count(r.src) || !kept.count(r.dst); });
  }
}

}  // namespace

void rank_terms(std::vector<ChunkExtraction>& document, const std::function<double(const std::string&)>& idf) {
  TermKeys key;
  std::unordered_map<std::string, TermStat> stats = term_stats(document, key);
  const auto nested = nested_terms(stats);
  std::unordered_map<std::string, double> idf_cache;
  double max_idf = 0;
  for (auto& [k, s] : stats) {
    for (auto& w : words(s.surface.empty() ? k : s.surface)) {
      if (is_stopword(w)) continue;
      auto it = idf_cache.find(w);
      if (it == idf_cache.end()) it = idf_cache.emplace(w, idf ? idf(w) : 1.0).first;
      max_idf = std::max(max_idf, it->second);
      s.content.push_back(w);
    }
  }
  for (auto& [k, s] : stats) score_term(k, s, nested, idf_cache, max_idf);
  keep_head_words(stats);
  type_full_names(document);
  keep_terms(document, stats, key);
}

}  // namespace mmkg::graph
