#include "graph/extract/patterns.h"

#include <algorithm>
#include <initializer_list>
#include <string_view>
#include <unordered_set>

namespace mmkg::graph::rules {
namespace {

// Words that may stand between a subject and its verb ("X also uses Y").
const std::unordered_set<std::string_view> kAdverb = {
    "also", "then", "further", "furthermore", "additionally", "often", "typically", "usually",
    "mainly", "primarily", "largely", "heavily", "directly", "still", "first", "generally",
    "commonly", "frequently", "essentially", "thus", "therefore", "consistently", "significantly",
    "substantially", "dramatically", "clearly", "explicitly", "implicitly", "naturally", "simply",
    "effectively", "successfully", "now", "instead", "only", "always", "greatly", "considerably",
    "markedly", "even", "particularly", "especially", "originally", "jointly"};

// Skipped before the object of a pattern ("uses the standard X", "propose a novel X").
const std::unordered_set<std::string_view> kDet = {
    "a", "an", "the", "our", "its", "their", "this", "these", "those", "all", "both", "each",
    "any", "some", "two", "three", "several", "many", "his", "her", "such", "one", "other"};

// "The mechanism of dropout is a ...": dropout is not the subject.
const std::unordered_set<std::string_view> kPreposition = {
    "of", "in", "for", "with", "on", "by", "from", "to", "at", "between", "into", "over", "under",
    "about", "through", "within", "across", "among", "than"};

const std::unordered_set<std::string_view> kKindHead = {
    "type", "types", "kind", "kinds", "form", "forms", "variant", "variants", "class", "classes",
    "family", "instance", "instances", "example", "examples", "case", "version", "versions",
    "variation", "variations", "subclass", "subset", "category", "member", "special case",
    "instantiation", "flavor", "flavour", "species", "subtype"};
const std::unordered_set<std::string_view> kPartHead = {
    "part", "parts", "component", "components", "element", "elements", "constituent",
    "constituents", "building block", "building blocks", "module", "modules", "piece", "subcomponent"};
const std::unordered_set<std::string_view> kExtHead = {"extension", "extensions", "generalization",
                                                       "generalisation", "refinement", "improvement"};

class Matcher {
 public:
  Matcher(const Sentence& s, const std::vector<Mention>& ms) : s_(s), ms_(ms) {
    int n = static_cast<int>(s.toks.size());
    end_at_.assign(n + 1, -1);
    start_at_.assign(n + 1, -1);
    for (int k = 0; k < static_cast<int>(ms.size()); ++k) {
      end_at_[ms[k].last] = k;
      if (start_at_[ms[k].first] < 0) start_at_[ms[k].first] = k;
    }
  }
  int size() const { return static_cast<int>(s_.toks.size()); }
  const Token& tok(int i) const { return s_.toks[i]; }
  bool is(int i, std::string_view w) const { return i >= 0 && i < size() && tok(i).word() && tok(i).lower == w; }
  bool punct(int i, char c) const { return i >= 0 && i < size() && tok(i).punct == c; }
  /// Length of the word sequence `ws` at i, 0 if absent.
  int seq(int i, std::initializer_list<std::string_view> ws) const {
    int k = i;
    for (auto w : ws) {
      if (!is(k, w)) return 0;
      ++k;
    }
    return k - i;
  }
  int term(int m) const { return m < 0 ? -1 : ms_[m].term; }
  const Mention& mention(int m) const { return ms_[m]; }

  /// Mention ending right before token i, skipping adverbs and one parenthetical "(...)".
  int before(int i, bool skip_paren = true, bool skip_adverbs = true) const {
    int k = i;
    while (skip_adverbs && k > 0 && tok(k - 1).word() && kAdverb.count(tok(k - 1).lower)) --k;
    if (skip_paren && k > 0 && punct(k - 1, ')')) {
      int j = k - 2;
      while (j >= 0 && j > k - 14 && !punct(j, '(')) --j;
      if (j >= 0 && punct(j, '(')) k = j;
    }
    while (k > 0 && tok(k - 1).punct == '\x01') --k;  // a removed citation
    return k >= 0 ? end_at_[k] : -1;
  }
  /// Mention starting at token i, after determiners and generic modifiers.
  int after(int i, int* next = nullptr) const {
    int k = i;
    for (int skipped = 0; k < size() && skipped < 4; ++skipped) {
      const Token& t = tok(k);
      bool adverb = t.word() && t.role == Role::kBreak && t.lower.size() > 4 && t.lower.ends_with("ly");
      if (t.word() && (kDet.count(t.lower) || adverb || (t.generic_mod && start_at_[k] < 0))) ++k;
      else break;
    }
    if (k >= size() || start_at_[k] < 0) return -1;
    int m = start_at_[k];
    if (next) *next = ms_[m].last;
    return m;
  }
  /// A list of mentions from token i: "X", "X and Y", "X, Y, and Z", "X or Y".
  std::vector<int> list(int i) const {
    std::vector<int> out;
    int next = i;
    int m = after(i, &next);
    while (m >= 0 && out.size() < 12) {
      out.push_back(m);
      int k = next;
      // a parenthetical acronym after an item: "multi-head attention (MHA), ..."
      if (punct(k, '(') && k + 2 < size() && punct(k + 2, ')')) k += 3;
      bool sep = false, comma = false;
      if (punct(k, ',')) ++k, sep = comma = true;
      if (is(k, "and") || is(k, "or")) ++k, sep = true, comma = false;
      if (!sep || (comma && (is(k, "a") || is(k, "an")))) break;  // "X, a Y": apposition, not a list
      m = after(k, &next);
    }
    return out;
  }

 private:
  const Sentence& s_;
  const std::vector<Mention>& ms_;
  std::vector<int> end_at_, start_at_;
};

bool has_head(const Matcher& mt, int m, const std::unordered_set<std::string_view>& heads) {
  const Mention& x = mt.mention(m);
  return heads.count(mt.tok(x.last - 1).lower) > 0;
}

// The clause around token i starts after the last ',', ';', ':' or '\x01' before it.
int clause_start(const Matcher& mt, int i) {
  int k = i;
  while (k > 0) {
    char p = mt.tok(k - 1).punct;
    if (p == ',' || p == ';' || p == ':') break;
    --k;
  }
  return k;
}

// Where the typed patterns of one sentence write: its matcher, the title term and the output.
struct Found {
  const Matcher& mt;
  int title_term;
  std::vector<TypedRelation>& out;

  /// Records a relation between two term numbers; a term never relates to itself.
  void add_terms(int a, int b, const char* type) const {
    if (a >= 0 && b >= 0 && a != b) out.push_back({a, b, type});
  }
  /// Records a relation between the terms of two mentions (-1: none).
  void add(int src_m, int dst_m, const char* type) const { add_terms(mt.term(src_m), mt.term(dst_m), type); }
};

// Each pattern looks at token i and returns true when the token belongs to its family (whether
// or not it found a relation there): the later patterns then skip the token.

// X is part of Y / X is implemented in Y / X is computed using Y / X is based on Y / X is
// composed of Y / X is compared with Y, with k the token after the copula. True when one of these
// phrases is there.
bool copula_phrase(const Found& f, int x, int k) {
  const Matcher& mt = f.mt;
  if (int l = mt.seq(k, {"part", "of"})) {
    for (int z : mt.list(k + l)) f.add(x, z, "part_of");  // X is part of Y (one Y, usually)
    return true;
  }
  // X is implemented in Y / is available in Y / is provided by Y / is included in Y: software
  // and methods live in packages and tools ("vcovHC is implemented in the sandwich package").
  for (auto ph : {std::initializer_list<std::string_view>{"implemented", "in"}, {"available", "in"},
                  {"provided", "by"}, {"provided", "in"}, {"included", "in"}, {"contained", "in"}})
    if (int l = mt.seq(k, ph)) {
      if (int y = mt.after(k + l); y >= 0) f.add(x, y, "part_of");
      return true;
    }
  // X is computed / estimated / obtained / calculated using (via, with) Y.
  if (mt.is(k, "computed") || mt.is(k, "estimated") || mt.is(k, "obtained") || mt.is(k, "calculated")) {
    if (mt.is(k + 1, "using") || mt.is(k + 1, "via") || mt.is(k + 1, "with")) {
      if (int y = mt.after(k + 2); y >= 0) f.add(x, y, "uses");
      return true;
    }
  }
  if (int l = mt.seq(k, {"based", "on"})) {
    if (int y = mt.after(k + l); y >= 0) f.add(x, y, "uses");
    return true;
  }
  if (int l = mt.seq(k, {"composed", "of"}) ? 2 : mt.seq(k, {"made", "up", "of"})) {
    for (int z : mt.list(k + l)) f.add(z, x, "part_of");
    return true;
  }
  if (int l = mt.seq(k, {"compared", "with"}) ? 2 : mt.seq(k, {"compared", "to"})) {
    if (int y = mt.after(k + l); y >= 0) f.add(x, y, "compared_with");
    return true;
  }
  return false;
}

// X is a Y / X is one of the Y / X is a type (part, extension) of Y, with k the token after the
// copula.
void copula_article(const Found& f, int x, int k) {
  const Matcher& mt = f.mt;
  if (!(mt.is(k, "an") || mt.is(k, "a") || mt.is(k, "one"))) return;
  if (mt.is(k, "one") && !mt.is(k + 1, "of")) return;
  if (mt.is(k, "one")) k += 2;  // "one of the Y"
  int next = 0;
  int y = mt.after(k, &next);
  if (y < 0) return;
  if (mt.is(next, "of")) {
    int z = mt.after(next + 1);
    if (z >= 0 && has_head(mt, y, kKindHead)) { f.add(x, z, "is_a"); return; }
    if (z >= 0 && has_head(mt, y, kPartHead)) { f.add(x, z, "part_of"); return; }
    if (z >= 0 && has_head(mt, y, kExtHead)) { f.add(x, z, "extends"); return; }
  }
  if (!has_head(mt, y, kKindHead)) f.add(x, y, "is_a");
}

// ---- copula patterns: X is a Y / X is a type of Y / X is part of Y / X is based on Y ...
bool copula(const Found& f, int i) {
  const Matcher& mt = f.mt;
  const std::string& w = mt.tok(i).lower;
  if (!(w == "is" || w == "are" || w == "was" || w == "were")) return false;
  int x = mt.before(i);
  if (x < 0 || kPreposition.count(mt.tok(std::max(0, mt.mention(x).first - 1)).lower)) return true;
  int k = i + 1;
  while (k < mt.size() && mt.tok(k).word() && kAdverb.count(mt.tok(k).lower)) ++k;
  if (mt.is(k, "not") || mt.is(k, "no")) return true;
  if (!copula_phrase(f, x, k)) copula_article(f, x, k);
  return true;
}

// ---- X, a Y,   (apposition) / X, which is a Y
bool apposition(const Found& f, int i) {
  const Matcher& mt = f.mt;
  if (mt.tok(i).punct != ',') return false;
  int x = mt.before(i, true, false);
  if (x < 0) return true;
  if (int l = mt.seq(i + 1, {"which", "is"}) ? 2 : mt.seq(i + 1, {"which", "are"})) {  // X, which is a Y
    if (int y = mt.after(i + 1 + l); y >= 0 && (mt.is(i + 1 + l, "a") || mt.is(i + 1 + l, "an")) &&
                                      !has_head(mt, y, kKindHead))
      f.add(x, y, "is_a");
    return true;
  }
  if (!(mt.is(i + 1, "a") || mt.is(i + 1, "an"))) return true;
  int next = 0;
  int y = mt.after(i + 2, &next);
  if (y < 0) return true;
  if (next >= mt.size() || mt.punct(next, ',') || mt.punct(next, '.') || mt.punct(next, ';') ||
      mt.is(next, "for") || mt.is(next, "that") || mt.is(next, "which") || mt.is(next, "with")) {
    if (mt.is(next - 1, "of")) return true;
    f.add(x, y, "is_a");
  }
  return true;
}

// ---- Y such as X1, X2 and X3
bool such_as(const Found& f, int i) {
  const Matcher& mt = f.mt;
  int l = mt.seq(i, {"such", "as"});
  if (!l) return false;
  int y = mt.before(i, true, false);
  if (y < 0 && mt.punct(i - 1, ',')) y = mt.before(i - 1, true, false);
  if (y < 0) return true;
  for (int x : mt.list(i + l)) f.add(x, y, "is_a");
  return true;
}

// ---- X and other Y
bool and_other(const Found& f, int i) {
  const Matcher& mt = f.mt;
  int l = mt.seq(i, {"and", "other"}) ? 2 : mt.seq(i, {"or", "other"});
  if (!l) return false;
  int x = mt.before(i, true, false);
  int y = mt.after(i + l);
  if (x >= 0 && y >= 0) f.add(x, y, "is_a");
  return true;
}

// ---- Y consists of / contains / comprises / includes X...
bool consists_of(const Found& f, int i) {
  const Matcher& mt = f.mt;
  int l = mt.seq(i, {"consists", "of"});
  if (!l) l = mt.seq(i, {"consist", "of"});
  if (!l) l = mt.seq(i, {"comprises"}) ? 1 : mt.seq(i, {"comprise"});
  if (!l) l = mt.seq(i, {"contains"}) ? 1 : mt.seq(i, {"contain"});
  if (!l) l = mt.seq(i, {"includes"}) ? 1 : mt.seq(i, {"include"});
  if (!l) return false;
  int y = mt.before(i);
  if (y >= 0)
    for (int x : mt.list(i + l)) f.add(x, y, "part_of");
  return true;
}

// ---- X uses / employs / relies on / leverages / applies / utilizes / adopts / exploits Y;
// X builds on Y (extends)
bool uses(const Found& f, int i) {
  const Matcher& mt = f.mt;
  const std::string& w = mt.tok(i).lower;
  static const std::initializer_list<std::string_view> kUse1 = {
      "uses", "use", "employs", "employ", "leverages", "leverage", "applies", "apply",
      "utilizes", "utilize", "utilises", "utilise", "adopts", "adopt", "exploits", "exploit",
      "incorporates", "incorporate"};
  int l = 0;
  for (auto v : kUse1)
    if (w == v) l = 1;
  if (!l) l = mt.seq(i, {"relies", "on"}) ? 2 : mt.seq(i, {"rely", "on"});
  if (!l) l = mt.seq(i, {"builds", "on"}) || mt.seq(i, {"builds", "upon"}) ? -2 : 0;
  if (!l) return false;
  int x = mt.before(i);
  int y = mt.after(i + (l > 0 ? l : 2));
  if (x >= 0 && y >= 0) f.add(x, y, l > 0 ? "uses" : "extends");
  return true;
}

// ---- X extends / generalizes / improves on Y
bool extends(const Found& f, int i) {
  const Matcher& mt = f.mt;
  const std::string& w = mt.tok(i).lower;
  int l = 0;
  for (auto v : {"extends", "extend", "generalizes", "generalize", "generalises", "generalise"})
    if (w == v) l = 1;
  if (!l) l = mt.seq(i, {"improves", "on"}) || mt.seq(i, {"improves", "upon"}) || mt.seq(i, {"improve", "on"}) ||
                      mt.seq(i, {"improve", "upon"}) || mt.seq(i, {"build", "on"}) || mt.seq(i, {"build", "upon"})
                  ? 2
                  : 0;
  if (!l) return false;
  int x = mt.before(i);
  int y = mt.after(i + l);
  if (x >= 0 && y >= 0) f.add(x, y, "extends");
  return true;
}

// ---- we propose / introduce / present / develop X (the document title proposes X)
bool we_propose(const Found& f, int i) {
  const Matcher& mt = f.mt;
  const std::string& w = mt.tok(i).lower;
  if (!(w == "propose" || w == "proposes" || w == "introduce" || w == "introduces" || w == "present" ||
        w == "presents" || w == "develop" || w == "develops"))
    return false;
  int k = i - 1;
  while (k >= 0 && mt.tok(k).word() && kAdverb.count(mt.tok(k).lower)) --k;
  bool we = k >= 0 && (mt.is(k, "we") || mt.is(k, "paper") || mt.is(k, "work") || mt.is(k, "authors") ||
                       mt.is(k, "article") || mt.is(k, "study") || mt.is(k, "monograph") || mt.is(k, "chapter"));
  if (we && f.title_term >= 0)
    for (int y : mt.list(i + 1)) f.add_terms(f.title_term, mt.term(y), "proposes");
  return true;
}

// ---- the proposed X (the document title proposes X); X (et al.) proposed / introduced Y
bool proposed(const Found& f, int i) {
  const Matcher& mt = f.mt;
  const std::string& w = mt.tok(i).lower;
  if (!(w == "proposed" || w == "introduced")) return false;
  if (i > 0 && (mt.is(i - 1, "the") || mt.is(i - 1, "our") || mt.is(i - 1, "a") || mt.is(i - 1, "an") ||
                mt.is(i - 1, "this"))) {
    if (w == "proposed" && f.title_term >= 0)
      if (int y = mt.after(i + 1); y >= 0) f.add_terms(f.title_term, mt.term(y), "proposes");
    return true;
  }
  // "Vaswani et al. [31] proposed the Transformer"
  int k = i;
  while (k > 0 && (mt.tok(k - 1).punct == '\x01' || mt.tok(k - 1).punct == '.' || mt.is(k - 1, "al") ||
                   mt.is(k - 1, "et")))
    --k;
  int x = mt.before(k, false);
  int y = mt.after(i + 1);
  if (x >= 0 && y >= 0) f.add(x, y, "proposes");
  return true;
}

// ---- compared_with: X outperforms / surpasses / beats / versus / vs. Y
bool outperforms(const Found& f, int i) {
  const Matcher& mt = f.mt;
  const std::string& w = mt.tok(i).lower;
  if (!(w == "outperforms" || w == "outperform" || w == "outperformed" || w == "surpasses" || w == "surpass" ||
        w == "surpassed" || w == "beats" || w == "versus" || w == "vs"))
    return false;
  int x = mt.before(i);
  int k = i + 1;
  if (w == "vs" && mt.punct(k, '.')) ++k;
  int y = mt.after(k);
  if (x >= 0 && y >= 0) f.add(x, y, "compared_with");
  return true;
}

// ---- compared_with: X compared with / to Y; "Compared with Y, X ..."
bool compared_with(const Found& f, int i) {
  const Matcher& mt = f.mt;
  int l = mt.seq(i, {"compared", "with"}) ? 2 : mt.seq(i, {"compared", "to"});
  if (!l) return false;
  int y = mt.after(i + l);
  if (y < 0) return true;
  int x = mt.before(i);
  if (x < 0 && clause_start(mt, i) == 0) {  // "Compared with Y, X ..."
    int k = mt.mention(y).last;
    while (k < mt.size() && !mt.punct(k, ',')) ++k;
    x = mt.after(k + 1);
  }
  if (x >= 0) f.add(x, y, "compared_with");
  return true;
}

// ---- compared_with: X ... than Y (X: the first phrase of the clause)
bool than(const Found& f, int i) {
  const Matcher& mt = f.mt;
  if (mt.tok(i).lower != "than") return false;
  int y = mt.after(i + 1);
  if (y < 0) return true;
  int c = clause_start(mt, i);
  int x = -1;
  for (int k = c; k < i && x < 0; ++k) {
    int m = mt.after(k);
    if (m >= 0 && mt.mention(m).last <= i) x = m;
    if (mt.tok(k).word() && !kDet.count(mt.tok(k).lower)) break;  // the clause's first phrase only
  }
  if (x >= 0) f.add(x, y, "compared_with");
  return true;
}

using Pattern = bool (*)(const Found&, int);

// In the order they are tried on each token; the first whose family the token belongs to wins.
constexpr Pattern kPatterns[] = {copula, apposition, such_as,  and_other,   consists_of,   uses,
                                 extends, we_propose, proposed, outperforms, compared_with, than};

}  // namespace

void typed_relations(const Sentence& s, const std::vector<Mention>& ms, int title_term,
                     std::vector<TypedRelation>& out) {
  if (ms.empty()) return;
  Matcher mt(s, ms);
  const Found f{mt, title_term, out};
  for (int i = 0; i < mt.size(); ++i) {
    const Token& t = mt.tok(i);
    if (!t.word() && t.punct != ',') continue;
    for (Pattern p : kPatterns)
      if (p(f, i)) break;
  }
}

void defined_terms(const Sentence& s, const std::vector<Mention>& ms, std::vector<int>& out) {
  if (ms.empty() || s.e - s.b > 600 || s.heading) return;
  Matcher mt(s, ms);
  int n = mt.size();
  for (int i = 1; i < n; ++i) {
    int x = -1;
    if (mt.is(i, "is") && (mt.is(i + 1, "a") || mt.is(i + 1, "an") || mt.seq(i + 1, {"defined", "as"}))) {
      x = mt.before(i, true, false);
    } else if (mt.seq(i, {"refers", "to"}) || mt.seq(i, {"denotes"})) {
      x = mt.before(i, true, false);
    } else if (mt.punct(i, ',') && mt.seq(i + 1, {"which", "is"})) {
      x = mt.before(i, true, false);
    } else if (mt.is(i, "is") && mt.is(i + 1, "the") && mt.punct(i - 1, ')')) {
      x = mt.before(i, true, false);
    }
    if (x < 0) continue;
    // definitions open the sentence (or its main clause): "X is a ..." — not "... of X is a".
    int first = mt.mention(x).first;
    bool opening = true;
    for (int k = 0; k < first; ++k)
      if (mt.tok(k).word() && !kDet.count(mt.tok(k).lower) && !mt.tok(k).generic_mod) opening = false;
    if (!opening) continue;
    out.push_back(mt.term(x));
    // X (Y) is ...: Y is defined too
    int j = mt.mention(x).last;
    if (mt.punct(j, '(')) {
      int y = mt.after(j + 1);
      if (y >= 0 && mt.punct(mt.mention(y).last, ')')) out.push_back(mt.term(y));
    }
    break;
  }
}

}  // namespace mmkg::graph::rules
