// The rule-based extractor ("rules-v4"): terms from noun phrases, names, acronyms and headings,
// relations from sentence co-occurrence and typed patterns; and rank_terms (termhood).
// Detection helpers live in terms.{h,cc}, relation patterns in patterns.{h,cc}.
#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "graph/extract/rules.h"
#include "text/lexicon.h"
#include "text/words.h"
#include "graph/model/extractor.h"
#include "graph/model/graph_types.h"
#include "graph/extract/chars.h"
#include "graph/extract/patterns.h"
#include "graph/extract/terms.h"
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
  std::string id() const override { return "rules-v4"; }

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

namespace {

/// A heading that names something: a few words, no sentence punctuation, no generic section name.
bool name_like_heading(const std::string& h) {
  if (h.empty() || h.size() > 100 || section_name(h)) return false;
  if (h.find_first_of("?!;") != std::string::npos) return false;
  const size_t n = words(h).size();
  return n >= 1 && n <= 8;
}

}  // namespace

void add_section_subjects(std::vector<ChunkExtraction>& document, const std::vector<std::string>& heading_paths) {
  std::string previous;
  for (size_t i = 0; i < document.size() && i < heading_paths.size(); ++i) {
    const std::string& path = heading_paths[i];
    const bool opens = i == 0 || path != previous;
    previous = path;
    if (!opens || path.empty()) continue;
    const std::string h = section_heading(path);
    if (!name_like_heading(h)) continue;
    const std::string key = name_key(h);
    if (key.empty()) continue;
    ChunkExtraction& ch = document[i];
    double best = 0;
    bool has = false;
    for (const TermCandidate& t : ch.terms) {
      best = std::max(best, t.score);
      has = has || name_key(t.surface) == key;
    }
    if (has) continue;
    TermCandidate t;
    t.surface = h;
    t.kind = "heading";
    t.count = 1;
    t.score = std::max(best, 1.0);
    ch.terms.push_back(std::move(t));
  }
}

}  // namespace mmkg::graph
