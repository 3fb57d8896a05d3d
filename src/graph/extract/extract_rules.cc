// The rule-based extractor ("rules-v3"): terms from noun phrases, names, acronyms and headings,
// relations from sentence co-occurrence and typed patterns; and rank_terms (termhood).
// Detection helpers live in terms.{h,cc}, relation patterns in patterns.{h,cc}.
#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "text/lexicon.h"
#include "text/words.h"
#include "graph/model/extractor.h"
#include "graph/model/graph_types.h"
#include "graph/extract/chars.h"
#include "graph/extract/patterns.h"
#include "graph/extract/terms.h"
#include "text/common_words.h"
#include "graph/extract/type_cues.h"

namespace mmkg::graph {
namespace {

using rules::Mention;
using rules::Sentence;
using rules::Token;

constexpr int kMaxCooccurTerms = 8;  // strongest terms of a sentence paired for co_occurs
// Longer "sentences" (tables, lists, unpunctuated dumps) give no relations or definitions: their
// evidence would not read as a sentence, and on a 50 MB unpunctuated file they made the graph
// explode (every chunk one long run, every term pair a relation carrying 1 KB of evidence).
constexpr size_t kMaxEvidenceBytes = 600;

// Section names that are not topics ("Introduction", "Related Work").
const std::unordered_set<std::string_view> kSectionNames = {
    "abstract", "introduction", "conclusion", "conclusions", "related work", "background",
    "references", "bibliography", "appendix", "acknowledgments", "acknowledgements", "discussion",
    "results", "experiments", "experiment", "method", "methods", "methodology", "overview",
    "summary", "preliminaries", "contents", "table of contents", "index", "notation", "future work",
    "limitations", "evaluation", "setup", "experimental setup", "analysis", "see also", "contributions",
    "main contributions", "future directions", "open problems", "keywords", "index terms",
    "experimental results", "implementation", "implementation details", "core", "introduction and background"};

enum Kind { kNounPhrase = 0, kTechnical, kCapitalised, kHeading, kAcronym };
const char* kind_name(int k) {
  switch (k) {
    case kAcronym: return "acronym";
    case kHeading: return "heading";
    case kCapitalised: return "capitalised";
    case kTechnical: return "technical";
    default: return "noun_phrase";
  }
}

struct Agg {
  std::vector<std::pair<std::string, double>> casings;  // surface → votes, first seen first
  int count = 0;
  int kind = kNounPhrase;
  int words = 1;
  bool used = true;  // false for the document title until a relation needs it
  int expansion_term = -1;  // for an acronym defined in the chunk
  std::string definition;
  double strength = 0;  // co-occurrence preference
  std::map<std::string_view, int> types;  // entity type → cues (type_cues.h)
  void vote(const std::string& s, double w) {
    for (auto& [c, v] : casings)
      if (c == s) {
        v += w;
        return;
      }
    casings.emplace_back(s, w);
  }
  const std::string& best() const {
    size_t b = 0;
    for (size_t i = 1; i < casings.size(); ++i)
      if (casings[i].second > casings[b].second) b = i;
    return casings[b].first;
  }
};

class Builder {
 public:
  int term(const std::string& surface, int kind, double vote, bool count_it = true) {
    std::string key = lower_ascii(surface);
    auto [it, fresh] = index_.emplace(key, static_cast<int>(terms_.size()));
    if (fresh) {
      terms_.emplace_back();
      terms_.back().words = 1 + static_cast<int>(std::count(surface.begin(), surface.end(), ' '));
    }
    Agg& a = terms_[it->second];
    a.vote(surface, vote);
    if (count_it) ++a.count;
    a.kind = std::max(a.kind, kind);
    return it->second;
  }
  Agg& at(int i) { return terms_[i]; }
  int find(const std::string& surface) const {
    auto it = index_.find(lower_ascii(surface));
    return it == index_.end() ? -1 : it->second;
  }
  int size() const { return static_cast<int>(terms_.size()); }
  std::vector<Agg>& terms() { return terms_; }

 private:
  std::unordered_map<std::string, int> index_;
  std::vector<Agg> terms_;
};

int phrase_kind(const Sentence& s, int b, int e) {
  if (e - b == 1 && s.toks[b].acronym) return kAcronym;
  if (s.heading) return kHeading;
  bool all_cap = true, any_tech = false;
  for (int i = b; i < e; ++i) {
    all_cap = all_cap && s.toks[i].cap;
    any_tech = any_tech || s.toks[i].technical;
  }
  if (all_cap && !s.title_case) return kCapitalised;
  if (any_tech) return kTechnical;
  return kNounPhrase;
}

// A casing vote: a capital that only marks the start of a sentence counts half.
double vote_of(const Sentence& s, int b) {
  const Token& t = s.toks[b];
  bool first = true;
  for (int i = 0; i < b; ++i)
    if (s.toks[i].word()) first = false;
  return (first && !t.cap && !t.text.empty() && t.text[0] >= 'A' && t.text[0] <= 'Z') ? 0.5 : 1.0;
}

bool section_name(const std::string& surface) { return kSectionNames.count(lower_ascii(surface)) > 0; }

// Acronym definitions in a sentence: "Long Form (LF)", "LF (long form)", "long form, or LF".
struct AcronymDef {
  int acr_tok;
  int exp_first, exp_last;
};

std::vector<AcronymDef> acronym_defs(const Sentence& s) {
  std::vector<AcronymDef> out;
  const auto& tk = s.toks;
  int n = static_cast<int>(tk.size());
  auto long_before = [&](int end, int acr) -> int {  // first token of the expansion ending at `end`
    int b = end;
    int max_words = std::min(10, static_cast<int>(tk[acr].text.size()) * 2 + 1);
    while (b > 0 && tk[b - 1].word() && end - b < max_words) --b;
    if (b == end) return -1;
    std::string lf;
    std::vector<size_t> starts;
    for (int i = b; i < end; ++i) {
      if (i > b) lf += ' ';
      starts.push_back(lf.size());
      lf += tk[i].text;
    }
    std::string m = rules::match_expansion(tk[acr].text, lf);
    if (m.empty()) return -1;
    size_t off = lf.size() - m.size();
    for (int i = b; i < end; ++i)
      if (starts[i - b] == off) return tk[i].role == rules::Role::kBreak ? -1 : i;
    return -1;
  };
  for (int i = 0; i + 2 < n; ++i) {
    // Long Form (LF)
    if (tk[i].punct == '(' && tk[i + 1].acronym && tk[i + 2].punct == ')' && i > 0) {
      int f = long_before(i, i + 1);
      if (f >= 0) out.push_back({i + 1, f, i});
      continue;
    }
    // LF (long form)
    if (tk[i].acronym && tk[i + 1].punct == '(') {
      int e = i + 2;
      while (e < n && e < i + 14 && tk[e].word()) ++e;
      if (e < n && tk[e].punct == ')' && e > i + 2) {
        int b = i + 2;
        while (b < e && (tk[b].lower == "a" || tk[b].lower == "an" || tk[b].lower == "the")) ++b;
        if (b < e) {
          std::string lf = rules::surface(s, b, e);
          std::string m = rules::match_expansion(tk[i].text, lf);
          if (!m.empty() && m == lf && tk[e - 1].role == rules::Role::kHead) out.push_back({i, b, e});
        }
      }
      continue;
    }
    // long form, or LF
    if (tk[i].punct == ',' && tk[i + 1].lower == "or" && tk[i + 2].acronym && i > 0) {
      int f = long_before(i, i + 2);
      if (f >= 0) out.push_back({i + 2, f, i});
    }
  }
  return out;
}

void heading_terms(const std::string& text, Builder& b) {
  std::string masked = rules::mask_markup(text);
  for (Sentence& s : rules::analyse(text, masked)) {
    s.heading = true;
    // pieces between punctuation and "and"/"or"/"&": each must be one short noun phrase
    int n = static_cast<int>(s.toks.size());
    int start = 0;
    for (int i = 0; i <= n; ++i) {
      bool sep = i == n || !s.toks[i].word() || s.toks[i].lower == "and" || s.toks[i].lower == "or";
      if (!sep) continue;
      int f = start;
      while (f < i && (s.toks[f].lower == "the" || s.toks[f].lower == "a" || s.toks[f].lower == "an")) ++f;
      start = i + 1;
      if (i - f < 1 || i - f > rules::kMaxWords) continue;
      bool ok = s.toks[i - 1].role == rules::Role::kHead;
      for (int k = f; k < i; ++k) ok = ok && s.toks[k].role != rules::Role::kBreak;
      if (!ok) continue;
      std::string surf = rules::surface(s, f, i);
      if (section_name(surf)) continue;
      int kind = (i - f == 1 && s.toks[f].acronym) ? kAcronym : kHeading;
      b.term(surf, kind, 1.0);
    }
  }
}

double strength(const Agg& a) {
  double s = std::min(a.words, 3) * 0.5 + std::log1p(a.count);
  if (a.kind == kAcronym) s += 3;
  if (a.kind == kCapitalised) s += 2;
  if (a.kind == kTechnical) s += 1;
  return s;
}

std::string collapse(const std::string& s) { return collapse_ws(s); }

// "SubscribeHow to think step-by-step": a page's menu word glued to a title. When the first word
// has a camel-case boundary that starts a function word ("How", "The"), the title starts there
// (the same test as terms.cc applies to tokens).
std::string strip_glued_prefix(const std::string& t) {
  size_t end = t.find(' ');
  if (end == std::string::npos) end = t.size();
  for (size_t i = 1; i + 1 < end; ++i) {
    if (!(t[i - 1] >= 'a' && t[i - 1] <= 'z') || !(t[i] >= 'A' && t[i] <= 'Z')) continue;
    size_t j = i + 1;
    while (j < end && t[j] >= 'a' && t[j] <= 'z') ++j;
    if (j > i + 1 && is_stopword(lower_ascii(t.substr(i, j - i)))) return t.substr(i);
  }
  return t;
}

// Head-word hyponymy: a term whose last words are another term of the chunk is a kind of it
// ("multi-head attention" is_a "attention", "spectral kernel HAC estimator" is_a "HAC
// estimator", "self-attention" is_a "attention"): the lexical-head rule of taxonomy induction
// (Velardi et al., OntoLearn), the typed relation most texts state only by their word forms.
// The longest such term is the parent. Not for a phrase with a preposition or conjunction in it
// ("variance of the estimating function" is no "estimating function") or of more than four
// words (a phrase the chunker ran on), a negating or
// temporal prefix ("non-linearity", "pre-diagnosis"), a verb the chunker took for a modifier
// ("zeroes activations"), or a parent written as a capitalised
// single word (a surname: "Achim Zeileis" is no "Zeileis"). The evidence is the first
// sentence that names the child (the first heading that does when no statement does).
template <typename AddRel>
void head_hyponyms(Builder& b, const std::vector<Sentence>& sents, const std::vector<std::vector<Mention>>& mentions,
                   int title, const AddRel& add_rel) {
  static const std::unordered_set<std::string_view> kJoin = {"of", "and", "or", "for", "in", "with", "to", "on",
                                                             "by", "from", "at", "via", "vs", "versus", "as"};
  static const std::unordered_set<std::string_view> kPrefix = {"non", "un", "anti", "pre", "post", "pseudo",
                                                               "quasi", "counter", "mis", "dis", "de", "sub"};
  const Lexicon& lex = Lexicon::get();
  std::vector<int> first(static_cast<size_t>(b.size()), -1);  // a statement before a heading
  for (size_t si = 0; si < sents.size(); ++si) {
    if (sents[si].e - sents[si].b > kMaxEvidenceBytes) continue;
    for (const Mention& m : mentions[si]) {
      int& f = first[static_cast<size_t>(m.term)];
      if (f < 0 || (sents[static_cast<size_t>(f)].heading && !sents[si].heading)) f = static_cast<int>(si);
    }
  }
  std::unordered_map<std::string, int> by_key;
  std::vector<std::string> keys(static_cast<size_t>(b.size()));
  for (int t = 0; t < b.size(); ++t) {
    if (t == title || first[static_cast<size_t>(t)] < 0) continue;
    keys[static_cast<size_t>(t)] = name_key(b.at(t).best());
    if (!keys[static_cast<size_t>(t)].empty()) by_key.emplace(keys[static_cast<size_t>(t)], t);
  }
  auto name_like = [](const std::string& s) {  // "Zeileis", "Cox": one capitalised word
    return s.find(' ') == std::string::npos && s.size() > 1 && rules::is_upper(s[0]) &&
           std::none_of(s.begin() + 1, s.end(), rules::is_upper);
  };
  for (int t = 0; t < b.size(); ++t) {
    const std::string& key = keys[static_cast<size_t>(t)];
    if (key.empty() || b.at(t).kind == kAcronym) continue;
    const std::vector<std::string> ws = key_words(key);
    if (ws.size() < 2 || ws.size() > 4 ||
        std::any_of(ws.begin(), ws.end(), [](const std::string& w) { return kJoin.count(w) > 0 || w == "plus"; }))
      continue;
    // "data showing mosaic displays", "generator taking parameters": a clause the chunker kept
    // in the phrase (an -ing verb after the phrase's first word), not a modifier
    bool clause = false;
    for (size_t i = 1; i + 1 < ws.size(); ++i) clause = clause || (ws[i].ends_with("ing") && lex.verb_form(ws[i]));
    if (clause) continue;
    for (size_t drop = 1; drop < ws.size(); ++drop) {  // longest parent first
      // a negating prefix, or a verb's -s form the chunker took for a modifier ("dropout zeroes
      // activations")
      if (kPrefix.count(ws[drop - 1]) || (ws[drop - 1].ends_with('s') && lex.verb_form(ws[drop - 1]))) break;
      std::string suffix;
      for (size_t i = drop; i < ws.size(); ++i) suffix += (suffix.empty() ? "" : " ") + ws[i];
      auto it = by_key.find(suffix);
      if (it == by_key.end() || it->second == t) continue;
      if (!name_like(b.at(it->second).best())) add_rel(t, it->second, "is_a", static_cast<size_t>(first[static_cast<size_t>(t)]));
      break;
    }
  }
}

// The document's own terms: its title (the source of "we propose X"; kept only if a relation
// uses it) and the parts of the chunk's heading path. Returns the title's term, or -1.
int document_terms(const ExtractInput& in, Builder& b) {
  int title = -1;
  std::string title_text = strip_glued_prefix(collapse(in.doc_title));
  if (!title_text.empty() && title_text.size() <= 300) {
    title = b.term(title_text, kHeading, 0.0, false);
    b.at(title).used = false;
  }
  if (!in.heading_path.empty()) {
    std::string path = in.heading_path;
    size_t p = 0;
    while (p <= path.size()) {
      size_t q = path.find('>', p);
      if (q == std::string::npos) q = path.size();
      std::string part = collapse(path.substr(p, q - p));
      size_t k = 0;  // drop section numbers "2.1.3 "
      while (k < part.size() && ((part[k] >= '0' && part[k] <= '9') || part[k] == '.')) ++k;
      heading_terms(part.substr(k), b);
      p = q + 1;
    }
  }
  return title;
}

// Each sentence's term mentions: its noun phrases (and their nested suffixes, acronyms and names),
// and the acronym definitions it makes ("Multi-Head Attention (MHA)").
std::vector<std::vector<Mention>> sentence_mentions(std::vector<Sentence>& sents, Builder& b) {
  std::vector<std::vector<Mention>> mentions(sents.size());
  for (size_t si = 0; si < sents.size(); ++si) {
    Sentence& s = sents[si];
    rules::chunk_phrases(s);
    std::unordered_set<long long> counted;  // spans already counted (first << 20 | last)
    auto span_key = [](int f, int l) { return (static_cast<long long>(f) << 20) | l; };
    for (const rules::Span& sp : s.phrases) {
      std::string surf = rules::surface(s, sp.first, sp.last);
      if (s.heading && section_name(surf)) continue;
      int t = b.term(surf, phrase_kind(s, sp.first, sp.last), vote_of(s, sp.first));
      mentions[si].push_back({sp.first, sp.last, t});
      counted.insert(span_key(sp.first, sp.last));
      // nested: suffixes of two or more words, and acronyms or names inside the phrase
      for (int f = sp.first + 1; f + 2 <= sp.last; ++f) {
        b.term(rules::surface(s, f, sp.last), phrase_kind(s, f, sp.last), 1.0);
        counted.insert(span_key(f, sp.last));
      }
      bool mixed = false;  // "Transformer architecture": the name inside counts; "Multi-Query Attention": no
      for (int k = sp.first; k < sp.last; ++k) 
        mixed = mixed || (!s.toks[k].text.empty() && !std::isupper(static_cast<unsigned char>(s.toks[k].text[0])));
      if (sp.last - sp.first > 1 && mixed)
        for (int k = sp.first; k < sp.last; ++k)
          if (s.toks[k].acronym ||
              (s.toks[k].cap && s.toks[k].role == rules::Role::kHead && !s.title_case && !s.heading)) {
            b.term(s.toks[k].text, s.toks[k].acronym ? kAcronym : kCapitalised, 1.0);
            counted.insert(span_key(k, k + 1));
          }
    }
    for (const AcronymDef& d : acronym_defs(s)) {
      std::string exp = rules::surface(s, d.exp_first, d.exp_last);
      int e = b.term(exp, std::max(phrase_kind(s, d.exp_first, d.exp_last), int(kNounPhrase)), 1.0,
                     !counted.count(span_key(d.exp_first, d.exp_last)));
      int a = b.term(s.toks[d.acr_tok].text, kAcronym, 1.0, !counted.count(span_key(d.acr_tok, d.acr_tok + 1)));
      if (b.at(a).expansion_term < 0) b.at(a).expansion_term = e;
      // "Mean Squared Error (MSE)", "Generalized Additive Model (GAM)": the head types both
      if (std::string_view ty = rules::type_of_head(s.toks[d.exp_last - 1].lower); !ty.empty()) {
        b.at(a).types[ty] += 1;
        b.at(e).types[ty] += 1;
      }
      // the expansion names the acronym's mention too: "Multi-Head Attention (MHA) is a ..."
      if (!counted.count(span_key(d.exp_first, d.exp_last))) {
        auto& ms = mentions[si];
        ms.erase(std::remove_if(ms.begin(), ms.end(),
                                [&](const Mention& m) { return m.first < d.exp_last && m.last > d.exp_first; }),
                 ms.end());
        ms.push_back({d.exp_first, d.exp_last, e});
        std::sort(ms.begin(), ms.end(), [](const Mention& x, const Mention& y) { return x.first < y.first; });
        counted.insert(span_key(d.exp_first, d.exp_last));
      }
    }
  }

  return mentions;
}

// Entity types from cues in the text (type_cues.h). A typed span that is not yet a term (the
// single name in "the R package mgcv") becomes one: the text names it.
void types_from_cues(const std::vector<Sentence>& sents, const std::vector<std::vector<Mention>>& mentions,
                     Builder& b) {
  std::vector<rules::TypeCue> cues;
  for (size_t si = 0; si < sents.size(); ++si) {
    cues.clear();
    rules::type_cues(sents[si], mentions[si], cues);
    for (const rules::TypeCue& c : cues) {
      std::string surf = rules::surface(sents[si], c.first, c.last);
      int t = b.find(surf);
      if (t < 0) t = b.term(surf, phrase_kind(sents[si], c.first, c.last), vote_of(sents[si], c.first));
      b.at(t).types[c.type] += 1;
    }
  }
}

// The chunk's relations, each once (symmetric ones with their ends in name order), weighted by
// how many sentences state it; `sentence`: the first that does.
struct Relations {
  struct Rel {
    int src, dst;
    std::string type;
    size_t sentence;
    double weight;
  };
  Builder& b;
  std::vector<Rel> rels{};
  std::map<std::tuple<int, int, std::string>, size_t> index{};
  void operator()(int src, int dst, const std::string& type, size_t si) {
    if (src == dst) return;
    if (symmetric_relation(type)) {
      if (lower_ascii(b.at(src).best()) > lower_ascii(b.at(dst).best())) std::swap(src, dst);
    }
    auto key = std::make_tuple(src, dst, type);
    if (auto it = index.find(key); it != index.end()) {
      rels[it->second].weight += 1;
      return;
    }
    index.emplace(key, rels.size());
    rels.push_back({src, dst, type, si, 1.0});
  }
};

// Definitions ("X is a Y": the term's definition) and typed relations ("X uses Y").
void definitions_and_relations(const std::string& text, const std::vector<Sentence>& sents,
                               const std::vector<std::vector<Mention>>& mentions, int title, Builder& b,
                               Relations& add_rel) {
  std::vector<rules::TypedRelation> found;
  std::vector<int> defined;
  for (size_t si = 0; si < sents.size(); ++si) {
    const Sentence& s = sents[si];
    const auto& ms = mentions[si];
    if (ms.empty() || s.e - s.b > kMaxEvidenceBytes) continue;
    defined.clear();
    rules::defined_terms(s, ms, defined);
    for (int t : defined)
      if (b.at(t).definition.empty()) b.at(t).definition = text.substr(s.b, s.e - s.b);
    found.clear();
    rules::typed_relations(s, ms, title, found);
    for (const auto& r : found) {
      if (r.src == title || r.dst == title) b.at(title).used = true;
      add_rel(r.src, r.dst, r.type, si);
    }
  }
}

// Co-occurrence: the strongest distinct terms of each sentence, pairwise.
void cooccurrences(const std::vector<Sentence>& sents, const std::vector<std::vector<Mention>>& mentions, Builder& b,
                   Relations& add_rel) {
  std::vector<int> ts;
  for (size_t si = 0; si < sents.size(); ++si) {
    ts.clear();
    if (sents[si].e - sents[si].b > kMaxEvidenceBytes) continue;
    for (const Mention& m : mentions[si])
      if (std::find(ts.begin(), ts.end(), m.term) == ts.end()) ts.push_back(m.term);
    if (ts.size() < 2) continue;
    std::stable_sort(ts.begin(), ts.end(), [&](int x, int y) { return b.at(x).strength > b.at(y).strength; });
    if (ts.size() > static_cast<size_t>(kMaxCooccurTerms)) ts.resize(kMaxCooccurTerms);
    for (size_t i = 0; i < ts.size(); ++i)
      for (size_t j = i + 1; j < ts.size(); ++j) {
        // an acronym and its own expansion are one thing
        if (b.at(ts[i]).expansion_term == ts[j] || b.at(ts[j]).expansion_term == ts[i]) continue;
        add_rel(ts[i], ts[j], "co_occurs", si);
      }
  }
}

// The used terms and the relations as the extraction's candidates.
void write_extraction(const std::string& text, const std::vector<Sentence>& sents, Builder& b, const Relations& rels,
                      ChunkExtraction& out) {
  for (Agg& a : b.terms()) {
    if (!a.used) continue;
    TermCandidate t;
    t.surface = a.best();
    t.kind = kind_name(a.kind);
    if (a.kind == kAcronym) t.type = "acronym";
    int votes = 0;
    for (const auto& [ty, n] : a.types)
      if (n > votes) votes = n, t.type = std::string(ty);
    if (a.expansion_term >= 0) t.expansion = b.at(a.expansion_term).best();
    t.definition = a.definition;
    t.count = std::max(1, a.count);
    out.terms.push_back(std::move(t));
  }
  for (const Relations::Rel& r : rels.rels) {
    RelationCandidate rc;
    rc.src = b.at(r.src).best();
    rc.dst = b.at(r.dst).best();
    rc.type = r.type;
    rc.sentence = text.substr(sents[r.sentence].b, sents[r.sentence].e - sents[r.sentence].b);
    rc.weight = r.weight;
    out.relations.push_back(std::move(rc));
  }
}

class RuleExtractor final : public Extractor {
 public:
  std::string id() const override { return "rules-v3"; }

  ChunkExtraction extract(const ExtractInput& in) override {
    ChunkExtraction out;
    out.chunk_id = in.chunk_id;
    const std::string& text = in.text;
    std::string masked = rules::mask_markup(text);
    std::vector<Sentence> sents = rules::analyse(text, masked);
    Builder b;
    const int title = document_terms(in, b);
    const std::vector<std::vector<Mention>> mentions = sentence_mentions(sents, b);
    types_from_cues(sents, mentions, b);
    Relations rels{b};
    definitions_and_relations(text, sents, mentions, title, b, rels);
    head_hyponyms(b, sents, mentions, title,
                  [&rels](int src, int dst, const std::string& type, size_t si) { rels(src, dst, type, si); });
    for (Agg& a : b.terms()) a.strength = strength(a);
    cooccurrences(sents, mentions, b, rels);
    write_extraction(text, sents, b, rels, out);
    return out;
  }
};

}  // namespace

std::unique_ptr<Extractor> make_rule_extractor() { return std::make_unique<RuleExtractor>(); }

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
