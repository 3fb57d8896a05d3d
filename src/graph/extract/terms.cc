#include "graph/extract/terms.h"

#include "graph/extract/chars.h"
#include "graph/extract/code_lines.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "text/words.h"
#include "text/lexicon.h"
#include "text/sentences.h"

namespace mmkg::graph::rules {
namespace {


// ---------------------------------------------------------------- WordNet extras
// Lexicon answers parts of speech and verb forms; one more thing comes from the same WordNet
// files: how generic a noun is (sense counts in index.noun).
struct Extra {
  std::unordered_set<std::string> generic;
};

const Extra& extra() {
  static const Extra ex = [] {
    Extra e;
    const char* env = std::getenv("MMKG_WORDNET_DIR");
    std::string dir = env && *env ? env : "/usr/share/wordnet";
    std::ifstream in(dir + "/index.noun");
    std::string line;
    while (std::getline(in, line)) {
      // lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
      if (line.empty() || line[0] == ' ') continue;
      std::istringstream ls(line);
      std::string lemma, pos;
      int synsets = 0, pcnt = 0;
      if (!(ls >> lemma >> pos >> synsets >> pcnt)) continue;
      if (synsets < 2) continue;
      std::string tmp;
      for (int i = 0; i < pcnt; ++i) ls >> tmp;
      int senses = 0, tagged = 0;
      if (!(ls >> senses >> tagged)) continue;
      if (tagged >= 1 && lemma.find('_') == std::string::npos) e.generic.insert(lemma);
    }
    return e;
  }();
  return ex;
}

// ---------------------------------------------------------------- word lists
// Function words beyond core/text.h's stop words: they end a phrase.
const std::unordered_set<std::string_view> kFunc = {
    "et", "al", "etal", "fig", "figs", "eq", "eqs", "cf", "ref", "refs", "ie", "eg", "vs", "i.e", "e.g",
    "based", "due", "thus", "however", "therefore", "hence", "whereas", "although", "though", "yet",
    "within", "without", "across", "among", "amongst", "along", "upon", "toward", "towards", "onto",
    "versus", "whether", "either", "neither", "every", "another", "around", "beyond", "despite",
    "unlike", "rather", "instead", "including", "include", "includes", "included", "respectively",
    "since", "even", "still", "already", "always", "often", "well", "namely", "especially",
    "unless", "whereby", "wherein", "thereby", "whose", "whatever", "whichever", "something",
    "anything", "everything", "nothing", "someone", "anyone", "everyone", "us", "let", "lets",
    "shown", "show", "shows", "showed", "able", "via", "given", "gives", "called", "termed", "known",
    "new", "way", "ways", "lot", "lots", "kind", "sort", "thing", "things", "also", "yes", "ok",
    "http", "https", "www", "com", "org", "html", "pdf", "doi", "arxiv", "abs", "www", "isbn",
    "p", "pp", "vol", "no", "et al", "non", "pre", "post", "sub", "re", "co", "vi", "vii", "viii",
    "ii", "iii", "iv", "ix", "xi", "xii", "oh", "mr", "mrs", "dr", "prof", "inc", "ltd",
    "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "twenty",
    "hundred", "hundreds", "thousand", "thousands", "million", "millions", "billion", "billions",
    "dozen", "dozens", "others", "see", "behind", "beneath", "inside", "outside", "throughout",
    "besides", "alongside", "amid", "whereby", "thereof", "therein", "likewise", "moreover", "overall", "whereas", "half", "zero", "none", "twice", "thrice", "whilst", "hereafter", "herein",
    "cannot"};

// Evaluative or discourse adjectives and quantifiers trimmed from the start of a phrase
// ("several novel attention variants" → "attention variants"). General English, no domain words.
const std::unordered_set<std::string_view> kGenericMod = {
    "various", "different", "several", "novel", "new", "recent", "prior", "previous", "existing",
    "certain", "specific", "particular", "main", "important", "significant", "similar",
    "general", "overall", "simple", "first", "second", "third", "fourth", "last", "next",
    "following", "whole", "entire", "respective", "corresponding", "current", "additional",
    "numerous", "substantial", "strong", "extensive", "comprehensive", "detailed", "critical",
    "crucial", "fundamental", "typical", "common", "popular", "modern", "contemporary",
    "traditional", "conventional", "superior", "remarkable", "promising", "notable", "striking",
    "unique", "proposed", "improved", "better", "best", "good", "great", "major", "minor", "wide",
    "broad", "diverse", "multiple", "few", "less", "least", "full", "complete", "thorough",
    "rigorous", "possible", "potential", "necessary", "relevant", "appropriate", "suitable",
    "interesting", "powerful", "effective", "successful", "original", "actual", "real", "true",
    "clear", "obvious", "explicit", "implicit", "main", "primary", "secondary", "basic", "initial",
    "final", "above", "below", "aforementioned", "related", "respective", "latter", "former",
    "increasing", "growing", "emerging", "underlying", "resulting", "remaining", "corresponding",
    "state-of-the-art", "so-called", "well-known", "large-scale", "real-world", "high-quality",
    "wide-ranging", "up-to-date", "off-the-shelf", "cutting-edge", "other", "such", "own", "same",
    "particularly", "vast", "huge", "enormous", "tremendous", "considerable", "excellent",
    "impressive", "outstanding", "unprecedented", "competitive", "challenging", "difficult",
    "easy", "simple", "straightforward", "elegant", "sophisticated", "advanced", "improved"};

// Hyphenated words ending like these describe rather than name ("attention-based").
const std::unordered_set<std::string_view> kModSuffix = {
    "based", "aware", "free", "like", "specific", "driven", "level", "scale", "style", "wise",
    "agnostic", "dependent", "independent", "oriented", "related", "sensitive", "intensive",
    "efficient", "friendly", "ready", "critical", "centric", "guided", "conditioned", "enhanced",
    "augmented", "tuned", "trained", "grained", "range", "term", "art", "shelf", "known", "called",
    "scale", "order", "time", "end", "step", "date", "quality", "world", "length", "size"};

// After these a word that can be a verb is one ("we present", "heads that write").
const std::unordered_set<std::string_view> kSubject = {
    "we", "they", "i", "you", "he", "she", "it", "which", "who", "that", "can", "could", "may",
    "might", "must", "should", "will", "would", "shall", "not", "to", "do", "does", "did", "has",
    "have", "had", "been", "be", "being"};

// Determiners after which a participle may start a phrase ("the learned embeddings").
const std::unordered_set<std::string_view> kDeterminer = {
    "the", "a", "an", "our", "its", "their", "this", "these", "those", "each", "every", "any",
    "some", "all", "both", "his", "her", "your", "my", "whose"};

const std::unordered_set<std::string_view> kRoman = {"ii", "iii", "iv", "vi", "vii", "viii", "ix", "xi", "xii"};

// ---------------------------------------------------------------- lexicon helpers
bool noun_form(const Lexicon& lex, const std::string& l) {
  if (lex.is_noun(l)) return true;
  std::string s = lex.singular(l);
  return s != l && lex.is_noun(s);
}

bool verb_form(const Lexicon& lex, const std::string& l, bool* participle) { return lex.verb_form(l, participle); }

bool plural_noun(const Lexicon& lex, const Token& t) {
  if (t.acronym) return ends_with(t.text, "s");
  return ends_with(t.lower, "s") && !ends_with(t.lower, "ss") && lex.singular(t.lower) != t.lower;
}

// A word WordNet knows in any part of speech, inflected or not ("estimators", "rotated").
bool english_word(const Lexicon& lex, const std::string& w) {
  bool part = false;
  return noun_form(lex, w) || lex.is_adj(w) || lex.is_adv(w) || verb_form(lex, w, &part);
}

// Third-person verb form of a word that is also a noun ("uses", "processes").
bool verb_s_form(const Lexicon& lex, const std::string& l) {
  bool part = false;
  return ends_with(l, "s") && !ends_with(l, "ss") && verb_form(lex, l, &part) && !part && !lex.is_verb(l);
}

}  // namespace

// ---------------------------------------------------------------- acronyms
bool looks_acronym(std::string_view w) {
  if (w.size() < 2 || w.size() > 8 || !is_upper(w[0])) return false;
  std::string_view core = w;
  if (size_t h = core.find('-'); h != std::string_view::npos) {
    if (core.find('-', h + 1) != std::string_view::npos) return false;
    std::string_view tail = core.substr(h + 1);
    if (tail.empty() || tail.size() > 3) return false;
    if (!std::all_of(tail.begin(), tail.end(), [](char c) { return is_digit(c) || is_lower(c); })) return false;
    core = core.substr(0, h);
  }
  if (core.size() > 2 && core.back() == 's' && is_upper(core[core.size() - 2])) core.remove_suffix(1);
  int up = 0, low = 0;
  for (char c : core) {
    if (is_upper(c)) ++up;
    else if (is_lower(c)) ++low;
    else if (!is_digit(c)) return false;
  }
  if (up < 2 || low > up) return false;
  std::string l = lower_ascii(core);
  return !kRoman.count(l);
}

std::string match_expansion(std::string_view acronym, std::string_view lf) {
  // Letters and digits of the acronym, without the plural s and a "-4" version suffix.
  std::string_view a = acronym;
  if (size_t h = a.find('-'); h != std::string_view::npos) a = a.substr(0, h);
  if (a.size() > 2 && a.back() == 's' && is_upper(a[a.size() - 2])) a.remove_suffix(1);
  std::string s;
  for (char c : a)
    if (is_alnum(c)) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s.size() < 2 || lf.size() <= s.size()) return "";
  auto low = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  long si = static_cast<long>(s.size()) - 1, li = static_cast<long>(lf.size()) - 1;
  while (si >= 0) {
    char c = s[si];
    while (li >= 0 && (low(lf[li]) != c || (si == 0 && li > 0 && is_alnum(lf[li - 1])))) --li;
    if (li < 0) return "";
    --li;
    --si;
  }
  size_t start = static_cast<size_t>(li + 1);
  std::string_view out = lf.substr(start);
  // the first acronym letter must start the expansion's first word
  if (start > 0 && !is_space(lf[start - 1])) return "";
  // at most |A| + 5 words, and the first word not a function word
  int nw = 1;
  for (char c : out)
    if (c == ' ') ++nw;
  if (nw > static_cast<int>(s.size()) + 5) return "";
  std::string first = lower_ascii(out.substr(0, out.find(' ')));
  if (is_stopword(first)) return "";
  return std::string(out);
}

bool generic_noun(std::string_view w) { return extra().generic.count(std::string(w)) > 0; }

bool weak_single_word(std::string_view w) {
  const Lexicon& lex = Lexicon::get();
  std::string l(w);
  if (generic_noun(l) || lex.is_adj(l) || lex.is_adv(l)) return true;
  bool part = false;
  return verb_form(lex, l, &part);
}

// ---------------------------------------------------------------- analysis
namespace {
bool misspelt(const Lexicon& lex, const std::string& l);
}  // namespace

bool misspelt_word(std::string_view w) {
  const Lexicon& lex = Lexicon::get();
  std::string l(w);
  if (english_word(lex, l)) return false;
  // A plural is a typo only if its singular is one too: "encoders" is one letter from "encodes",
  // but "encoder" is a word of its own that WordNet lacks.
  if (ends_with(l, "s") && !ends_with(l, "ss") && !misspelt(lex, l.substr(0, l.size() - 1))) return false;
  return misspelt(lex, l);
}

namespace {

// Byte length of the UTF-8 character at p if it is a word character, 0 if it is punctuation.
// Non-ASCII letters are word characters; general punctuation, math symbols, arrows and the
// Latin-1 symbols (U+0080–U+00BF, ×, ÷) are not.
size_t word_char(std::string_view t, size_t i, size_t* len) {
  unsigned char c = static_cast<unsigned char>(t[i]);
  if (c < 0x80) {
    *len = 1;
    return is_alnum(static_cast<char>(c)) ? 1 : 0;
  }
  size_t l = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  if (i + l > t.size()) l = t.size() - i;
  *len = l;
  if (c == 0xC2) return 0;
  if (c == 0xC3 && l > 1 && (static_cast<unsigned char>(t[i + 1]) == 0x97 || static_cast<unsigned char>(t[i + 1]) == 0xB7)) return 0;
  if (c == 0xE2 || c == 0xE3 || c == 0xEF || c >= 0xF0 || l == 1) return 0;  // symbols, CJK punct, emoji
  return l;
}


// A word test's answer for `l`, computed once per thread: a corpus repeats its unknown words
// (names, symbols) many times, and each test tries dozens of look-ups. `cache` is the test's own
// thread_local map, cleared when it grows past 200,000 words (endless vocabularies).
template <typename Test>
bool memoised(std::unordered_map<std::string, bool>& cache, const std::string& l, const Test& test) {
  if (auto it = cache.find(l); it != cache.end()) return it->second;
  if (cache.size() > 200000) cache.clear();
  return cache.emplace(l, test()).first->second;
}

bool all_lower(const std::string& l) { return std::all_of(l.begin(), l.end(), is_lower); }

// "eect", "rst", "dierent", "nd": PDF text whose ligature glyph (ff, fi, fl, ffi, ffl) was lost.
// The word is unknown, and putting one ligature back at one place makes an English word. Up to
// 5 x (length + 1) look-ups, memoised.
bool lost_ligature(const Lexicon& lex, const std::string& l) {
  if (l.size() < 2 || l.size() > 20 || !all_lower(l)) return false;
  thread_local std::unordered_map<std::string, bool> cache;
  return memoised(cache, l, [&] {
    for (std::string_view lig : {"ff", "fi", "fl", "ffi", "ffl"})
      for (size_t p = 0; p <= l.size(); ++p)
        if (english_word(lex, l.substr(0, p) + std::string(lig) + l.substr(p))) return true;
    return false;
  });
}

// "specfying", "possiblility", "proporitional", "anayzes": a typo of an English word. The word
// is unknown, and one edit inside it (a letter dropped, added or two neighbours swapped) makes
// a word WordNet knows. The first and last letters are left alone and short words are not tried:
// names built from a word ("iplots", "rpart", "xtable") change at an end, and below six
// letters nearly every string is one edit from some word ("coxme" from "come"). Substitutions are not tried either:
// spelling variants and names ("heteroskedasticity", "probit") differ from a word by one letter.
// Memoised like lost_ligature.
bool misspelt(const Lexicon& lex, const std::string& l) {
  if (l.size() < 6 || l.size() > 24 || !all_lower(l)) return false;
  thread_local std::unordered_map<std::string, bool> cache;
  return memoised(cache, l, [&] {
    // A compound of a word or an English prefix and a word of four letters or more ("backends",
    // "multipole", "checkpoint") is built, not mistyped, even when one edit makes another word.
    static const std::unordered_set<std::string_view> kPrefix = {
        "multi", "inter", "intra", "sub", "super", "pre", "post", "non", "semi", "hyper", "micro", "macro", "meta",
        "auto", "poly", "mono", "bi", "tri", "uni", "pseudo", "quasi", "anti", "counter", "cross", "over", "under"};
    for (size_t p = 2; p + 4 <= l.size(); ++p) {
      std::string a = l.substr(0, p), b = l.substr(p);
      bool part = false;
      bool b_word = noun_form(lex, b) || lex.is_adj(b) || lex.is_verb(b) || verb_form(lex, b, &part);
      if (b_word && (kPrefix.count(a) || (a.size() >= 3 && (noun_form(lex, a) || lex.is_adj(a) || lex.is_verb(a)))))
        return false;
    }
    bool typo = false;
    const size_t n = l.size();
    for (size_t p = 1; p + 1 < n && !typo; ++p) typo = english_word(lex, l.substr(0, p) + l.substr(p + 1));  // a letter too many
    for (size_t p = 1; p + 1 < n && !typo; ++p) {                                                   // two letters swapped
      std::string w = l;
      std::swap(w[p], w[p + 1]);
      typo = p + 2 < n && w != l && english_word(lex, w);
    }
    for (size_t p = 1; p < n && !typo; ++p)  // a letter missing
      for (char c = 'a'; c <= 'z' && !typo; ++c) typo = english_word(lex, l.substr(0, p) + c + l.substr(p));
    return typo;
  });
}

// What a word is made of, for classify().
struct WordShape {
  bool has_alpha = false, has_digit = false, has_hyphen = false, non_ascii = false, camel = false;
  int uppers = 0, letters = 0;
};

WordShape shape_of(const std::string& w) {
  WordShape sh;
  for (char c : w) {
    if (is_alpha(c)) sh.has_alpha = true;
    if (is_digit(c)) sh.has_digit = true;
    if (c == '-') sh.has_hyphen = true;
    if (is_upper(c)) ++sh.uppers;
    if (static_cast<unsigned char>(c) >= 0x80) sh.non_ascii = true;
  }
  for (size_t i = 1; i < w.size(); ++i)
    if (is_lower(w[i - 1]) && is_upper(w[i])) sh.camel = true;
  for (char c : w) sh.letters += is_alpha(c);
  return sh;
}

// Words that never start or continue a term: numbers, the symbols of a formula, words starting
// with a digit, garbage, single letters and function words.
bool never_a_term(const std::string& w, const std::string& l, const WordShape& sh) {
  if (!sh.has_alpha && !sh.non_ascii) return true;   // numbers
  if (sh.non_ascii && math_debris(w)) return true;   // ˆσ, ûi: symbols of a formula
  if (is_digit(w[0])) return true;                   // 7B, 3rd, 1st
  if (w.size() > 40) return true;                    // garbage
  if (w.size() == 1) return true;                    // single letters
  return is_stopword(l) || kFunc.count(l);
}

// "SubscribeHow", "PDFThe": debris glued to the next word (a page's menu or header run into the
// text). A camel boundary that starts a function word ("How", "The", "In") is no name.
bool glued_debris(const std::string& w) {
  for (size_t i = 1; i < w.size(); ++i) {
    if (!(is_lower(w[i - 1]) || is_upper(w[i - 1])) || !is_upper(w[i]) || i + 1 >= w.size() || !is_lower(w[i + 1]))
      continue;
    size_t j = i + 1;
    while (j < w.size() && is_lower(w[j])) ++j;
    if (is_stopword(lower_ascii(w.substr(i, j - i)))) return true;
  }
  return false;
}

// A hyphenated word: a modifier when its last part describes ("attention-based") or is no noun,
// else a head; no term at all when it spells years or counts ("mid-2020s", "1990-2000").
void classify_hyphenated(Token& t, const Lexicon& lex, bool sentence_initial, bool title_case) {
  const std::string& w = t.text;
  const std::string& l = t.lower;
  std::string last = l.substr(l.rfind('-') + 1);
  std::string first = l.substr(0, l.find('-'));
  if (last.empty() || first.empty()) return;
  // years and counts: mid-2020s, 1990-2000
  for (size_t p = 0; p <= l.size();) {
    size_t q = l.find('-', p);
    if (q == std::string::npos) q = l.size();
    if (q - p >= 3 && is_digit(l[p])) return;
    p = q + 1;
  }
  bool part = false;
  bool last_noun = noun_form(lex, last);
  if (kModSuffix.count(last) || (!last_noun && (lex.is_adj(last) || verb_form(lex, last, &part) || lex.is_adv(last))))
    t.role = Role::kModifier;
  else
    t.role = Role::kHead;
  bool up = is_upper(w[0]) && !sentence_initial && !title_case;
  t.cap = up;
}

// A word unknown to WordNet: technical vocabulary, shaped by its suffix (none for a PDF word
// that lost a ligature, an adverb in -ly or a word under three letters).
void classify_unknown(Token& t, const Lexicon& lex, bool non_ascii) {
  const std::string& l = t.lower;
  if (!non_ascii && lost_ligature(lex, l)) return;
  if (l.size() < 3) return;
  if (ends_with(l, "ly")) return;
  static const char* kAdjSuffix[] = {"ive", "ous", "al", "ic", "able", "ible", "ful", "less", "ary", "ed", "ian", "istic"};
  for (const char* s : kAdjSuffix)
    if (ends_with(l, s)) {
      t.role = Role::kModifier;
      return;
    }
  t.role = Role::kHead;
  t.technical = t.technical || !non_ascii;
}

// A plain word by its parts of speech: a capitalised one is a name (mid-sentence, or unknown at a
// sentence's start), a noun a head, an adjective a modifier, a verb's participle after a
// determiner a modifier.
void classify_by_lexicon(Token& t, const Lexicon& lex, bool capital, bool sentence_initial, bool title_case,
                         bool non_ascii, const Token* prev) {
  const std::string& l = t.lower;
  bool part = false;
  bool noun = noun_form(lex, l), adj = lex.is_adj(l), verb = verb_form(lex, l, &part), adv = lex.is_adv(l);
  bool known = noun || adj || verb || adv;
  if (capital && !sentence_initial && !title_case) {
    t.cap = true;
    t.role = Role::kHead;
    return;
  }
  if (capital && !known) {  // a name at the start of a sentence or in a title
    t.cap = true;
    t.role = Role::kHead;
    return;
  }
  // After a subject pronoun or a modal, a word that can be a verb is one ("we present").
  if (verb && prev && prev->word() && kSubject.count(prev->lower)) return;
  if (noun) {
    t.role = Role::kHead;
    return;
  }
  if (adj) {
    t.role = Role::kModifier;
    return;
  }
  if (verb) {
    if (part && prev && prev->word() && kDeterminer.count(prev->lower)) t.role = Role::kModifier;
    return;
  }
  if (adv) return;
  classify_unknown(t, lex, non_ascii);
}

void classify(Token& t, bool sentence_initial, bool title_case, bool shouting, const Token* prev) {
  const Lexicon& lex = Lexicon::get();
  const std::string& w = t.text;
  const std::string& l = t.lower;
  const WordShape sh = shape_of(w);
  t.role = Role::kBreak;
  if (never_a_term(w, l, sh)) return;
  if (!shouting && looks_acronym(w)) {
    t.acronym = t.cap = t.technical = true;
    t.role = Role::kHead;
    return;
  }
  if (sh.camel && glued_debris(w)) return;
  bool digit_word = sh.has_digit && (sh.letters >= 2 || sh.uppers >= 1);
  if (sh.has_digit && !digit_word) return;  // x1, h2: variables
  t.technical = sh.camel || digit_word || sh.has_hyphen;
  if (kGenericMod.count(l)) {
    t.generic_mod = true;
    t.role = Role::kModifier;
    return;
  }
  if (sh.has_hyphen) {
    classify_hyphenated(t, lex, sentence_initial, title_case);
    return;
  }
  bool capital = is_upper(w[0]) || (sh.uppers > 0 && sh.camel);
  if (sh.camel || digit_word) {
    t.role = Role::kHead;
    t.cap = capital;
    return;
  }
  classify_by_lexicon(t, lex, capital, sentence_initial, title_case, sh.non_ascii, prev);
}

bool heading_line(std::string_view raw, std::string_view text, size_t b, size_t e) {
  bool line_begin = b == 0 || text[b - 1] == '\n';
  bool line_end = e >= text.size() || text[e] == '\n' || text[e] == '\r';
  if (raw.empty()) return false;
  if (raw[0] == '#' && line_begin) return true;
  if (starts_with(raw, "==")) return true;
  if (!line_begin || !line_end) return false;
  char last = raw.back();
  if (last == '.' || last == ',' || last == ';' || last == '?' || last == '!') return false;
  int nw = 0;
  bool space = true;
  for (char c : raw) {
    if (is_space(c)) space = true;
    else if (space) ++nw, space = false;
  }
  if (nw > 10) return false;
  // "1.2.3 Title" or "Chapter 2"
  size_t i = 0;
  while (i < raw.size() && (is_digit(raw[i]) || raw[i] == '.')) ++i;
  if (i > 0 && i < raw.size() && raw[i] == ' ' && i + 1 < raw.size() && is_upper(raw[i + 1])) return true;
  return false;
}

// Sentence ranges of the text, cut further at wiki heading runs ("====== Title ======") inside
// them; `heading` says which pieces were between two runs.
struct Pieces {
  std::vector<std::pair<size_t, size_t>> cut;
  std::vector<bool> heading;
};

Pieces wiki_pieces(std::string_view text, std::string_view masked) {
  Pieces out;
  for (auto [b, e] : split_sentences(masked)) {
    size_t s = b;
    bool in_heading = false;
    for (size_t i = b; i + 1 < e; ++i) {
      if (text[i] == '=' && text[i + 1] == '=') {
        size_t j = i;
        while (j < e && text[j] == '=') ++j;
        if (i > s) out.cut.emplace_back(s, i), out.heading.push_back(in_heading);
        in_heading = !in_heading;
        s = j;
        i = j - 1;
      }
    }
    if (e > s) out.cut.emplace_back(s, e), out.heading.push_back(false);
  }
  return out;
}

// The end of the word starting at `i` (before `e`): word characters, joined by an internal
// hyphen or by a '.' between digits (GPT-3.5).
size_t word_end(std::string_view masked, size_t i, size_t e) {
  size_t j = i;
  while (j < e) {
    size_t l2 = 1;
    if (word_char(masked, j, &l2)) {
      j += l2;
      continue;
    }
    // internal hyphen between word characters; '.' between digits (GPT-3.5)
    size_t l3 = 1;
    if (j + 1 < e && (masked[j] == '-' || (masked[j] == '.' && j > i && is_digit(masked[j - 1]) && is_digit(masked[j + 1]))) &&
        j > i && word_char(masked, j + 1, &l3))
      ++j;
    else
      break;
  }
  return j;
}

// Tokens of s.b..s.e over the masked text (words and punctuation, texts from `text`).
void tokenise(Sentence& s, std::string_view text, std::string_view masked) {
  const size_t e = s.e;
  size_t i = s.b;
  while (i < e) {
    size_t len = 1;
    if (is_space(masked[i])) {
      ++i;
      continue;
    }
    if (!word_char(masked, i, &len)) {
      Token t;
      t.b = i;
      t.e = i + len;
      t.punct = masked[i] == '\x01' ? '\x01' : (len == 1 ? masked[i] : '~');
      t.text = std::string(text.substr(i, len));
      s.toks.push_back(std::move(t));
      i += len;
      continue;
    }
    // A line break before a capitalised word, after a word: a title, a page header or a menu
    // line run into the next line ("... reasoning\nDespite superior ..."). Phrases stop there.
    if (!s.toks.empty() && s.toks.back().word() && is_upper(masked[i]) &&
        std::memchr(masked.data() + s.toks.back().e, '\n', i - s.toks.back().e) != nullptr) {
      Token br;
      br.b = br.e = i;
      br.punct = '\x01';
      s.toks.push_back(std::move(br));
    }
    size_t j = word_end(masked, i, e);
    Token t;
    t.b = i;
    t.e = j;
    t.text = std::string(text.substr(i, j - i));
    t.lower = lower_ascii(t.text);
    s.toks.push_back(std::move(t));
    i = j;
  }
}

// Sets s.title_case (most content words capitalised: headings, paper titles) and classifies each
// word; a sentence mostly in capitals is shouting (its words are no acronyms).
void classify_words(Sentence& s, std::string_view text) {
  int content = 0, caps = 0, allcaps = 0;
  for (auto& t : s.toks) {
    if (!t.word() || is_stopword(t.lower) || !is_alpha(t.text[0])) continue;
    ++content;
    if (is_upper(t.text[0])) ++caps;
    if (std::none_of(t.text.begin(), t.text.end(), is_lower) && t.text.size() > 1) ++allcaps;
  }
  char last = text[s.e - 1];
  bool ends_sentence = last == '.' || last == '?' || last == '!';
  s.title_case = content >= 2 && caps * 10 >= content * 7 && (s.heading || (content <= 14 && !ends_sentence));
  bool shouting = content >= 3 && allcaps * 10 >= content * 6;
  bool first = true;
  for (size_t k2 = 0; k2 < s.toks.size(); ++k2) {
    Token& t = s.toks[k2];
    if (!t.word()) {
      if (t.punct == ':' || t.punct == '*' || t.punct == '-' || t.punct == '~' || t.punct == '\x01') first = true;
      continue;
    }
    const Token* prev = k2 > 0 ? &s.toks[k2 - 1] : nullptr;
    classify(t, first, s.title_case, shouting, prev);
    first = false;
  }
}

// "Figure 3", "Table 2", "Section 4.1": references, not topics
void break_references(Sentence& s) {
  static const std::unordered_set<std::string_view> kRefNoun = {
      "figure", "fig", "table", "section", "chapter", "equation", "eq", "appendix", "algorithm",
      "theorem", "lemma", "proposition", "corollary", "definition", "example", "remark", "proof",
      "step", "line", "page", "part", "volume", "listing", "exercise", "problem"};
  for (size_t k2 = 0; k2 + 1 < s.toks.size(); ++k2)
    if (s.toks[k2].word() && kRefNoun.count(s.toks[k2].lower) && !s.toks[k2 + 1].text.empty() &&
        (is_digit(s.toks[k2 + 1].text[0]) || kRoman.count(s.toks[k2 + 1].lower)))
      s.toks[k2].role = Role::kBreak;
}

}  // namespace

std::vector<Sentence> analyse(std::string_view text, std::string_view masked) {
  std::vector<Sentence> out;
  const Pieces pieces = wiki_pieces(text, masked);
  for (size_t k = 0; k < pieces.cut.size(); ++k) {
    auto [b, e] = pieces.cut[k];
    while (b < e && is_space(text[b])) ++b;
    while (e > b && is_space(text[e - 1])) --e;
    if (e <= b) continue;
    Sentence s;
    s.b = b;
    s.e = e;
    s.heading = pieces.heading[k] || heading_line(text.substr(b, e - b), text, b, e);
    tokenise(s, text, masked);
    classify_words(s, text);
    break_references(s);
    out.push_back(std::move(s));
  }
  return out;
}

namespace {
// Nouns that introduce a code object by its kind, in the prose of software manuals and package
// vignettes: "the function coeftest", "argument prewhite", "the option ctype".
const std::unordered_set<std::string_view> kCodeRole = {
    "function", "functions", "package", "packages", "argument", "arguments", "variable", "variables",
    "option", "options", "command", "commands", "method", "methods", "class", "object", "objects",
    "parameter", "parameters", "library", "module", "modules", "field", "attribute", "keyword", "flag"};
// Tokens [b, e) are one code name: a single technical word (camel case, digits, or unknown to
// WordNet), not a capitalised name of a thing ("the method Adam" keeps "method Adam" out: Adam
// is a name, and the type cue types it).
bool code_name(const std::vector<Token>& tk, int b, int e) {
  return e - b == 1 && tk[b].technical && !tk[b].acronym && !is_upper(tk[b].text[0]);
}
}  // namespace

void chunk_phrases(Sentence& s) {
  const Lexicon& lex = Lexicon::get();
  s.phrases.clear();
  auto& tk = s.toks;
  int n = static_cast<int>(tk.size());
  bool trim = !s.heading && !s.title_case;  // "General Attention Function" is a name in a title
  auto emit = [&](int b, int e) {
    // trim: leading modifiers that are generic, trailing modifiers; keep the last kMaxWords
    while (trim && b < e && tk[b].generic_mod) ++b;
    while (e > b && tk[e - 1].role != Role::kHead) --e;
    if (e - b > kMaxWords) b = e - kMaxWords;
    while (trim && b < e && tk[b].generic_mod) ++b;
    // "the function coeftest", "package vcd", "argument prewhite": a word saying what kind of
    // code object follows, then the object's name. The name is the term.
    if (e - b >= 2 && kCodeRole.count(tk[b].lower) && code_name(tk, b + 1, e)) ++b;
    // A word twice in one phrase ("Class Class", "Admit Admit Admit"): cells of a table or
    // labels run together, never a name.
    for (int i = b; i < e && e > b; ++i)
      for (int j = i + 1; j < e; ++j)
        if (tk[i].lower == tk[j].lower) e = b;
    if (e > b) s.phrases.push_back({b, e, false});
  };
  int start = -1;
  bool seen_head = false;
  for (int i = 0; i <= n; ++i) {
    bool in = i < n && tk[i].word() && tk[i].role != Role::kBreak;
    // "X exposes a bottleneck", "X uses the Y": a plural-looking noun before a determiner is a verb.
    if (in && tk[i].role == Role::kHead && !tk[i].cap && !tk[i].technical && i + 1 < n && tk[i + 1].word() &&
        (kDeterminer.count(tk[i + 1].lower) || tk[i + 1].lower == "on" || tk[i + 1].lower == "upon") &&
        verb_s_form(lex, tk[i].lower))
      in = false;
    if (in && start >= 0) {
      // Mod* Head+: a modifier after a head starts a new phrase.
      if (tk[i].role == Role::kModifier && seen_head) {
        emit(start, i);
        start = i;
        seen_head = false;
        continue;
      }
      // "architecture processes entire sequences", "LLMs deploy multiple pathways":
      // a noun-verb word after a head, followed by more phrase, is the verb.
      if (tk[i].role == Role::kHead && seen_head && !tk[i].cap && !tk[i].technical) {
        bool next_np = i + 1 < n && tk[i + 1].word() &&
                       (tk[i + 1].role != Role::kBreak || kDeterminer.count(tk[i + 1].lower));
        bool part = false;
        bool is_v = verb_s_form(lex, tk[i].lower) && next_np;
        if (!is_v && plural_noun(lex, tk[i - 1]) && !ends_with(tk[i].lower, "s") &&
            verb_form(lex, tk[i].lower, &part) && !part)
          is_v = true;
        if (is_v) {
          emit(start, i);
          start = -1;
          seen_head = false;
          continue;
        }
      }
      if (tk[i].role == Role::kHead) seen_head = true;
      continue;
    }
    if (in) {
      start = i;
      seen_head = tk[i].role == Role::kHead;
      continue;
    }
    if (start >= 0) emit(start, i);
    start = -1;
    seen_head = false;
  }
}

std::string surface(const Sentence& s, int first, int last) {
  std::string out;
  for (int i = first; i < last; ++i) {
    if (i > first) out += ' ';
    out += s.toks[i].text;
  }
  return out;
}

}  // namespace mmkg::graph::rules
