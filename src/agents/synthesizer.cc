#include "agents/synthesizer.h"

#include "text/asked_fact.h"

#include "agents/quote.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "retrieve/context_budget.h"
#include "text/captions.h"
#include "text/definition.h"
#include "agents/planner.h"
#include "text/query_terms.h"
#include "text/words.h"
#include "index/lexical.h"
#include "text/sentences.h"
#include "text/prose.h"
#include "text/proximity.h"
#include "core/error.h"
#include "embed/embedder.h"
#include "embed/sentence_vectors.h"
#include "text/question_shape.h"
#include "agents/answerable.h"
#include "agents/sentence_select.h"

namespace mmkg {

Citation make_citation(const SearchHit& h, int n) {
  Citation c;
  c.n = n;
  c.doc = h.doc;
  c.doc_id = h.doc_id;
  c.chunk_id = h.chunk_id;
  c.page = h.page_start;
  c.page_end = h.page_end;
  c.heading_path = h.heading_path;
  c.text = h.text;
  c.figure_id = h.figure_id;
  c.figure_label = h.figure_label;
  c.figure_kind = h.figure_kind;
  return c;
}

const char* const kNotFound = "The documents do not say: no passage in the corpus answers this question.";

namespace {

struct Sentence {
  size_t cand;          // index into retrieval.context
  size_t pos;           // its place among the shown sentences of its chunk
  std::string text;
  std::set<std::string> stems{};
  std::set<std::string> cov_stems{};  // stems, with where the passage stands: what coverage counts
  double coverage = 0;  // IDF share of the question's terms present
  std::vector<double> part_cov{};  // the same share for each part's own terms
  std::vector<double> part_def{};  // how well it defines what each part asks to define (0 when none)
  bool number = false;  // holds a number the question does not
  std::vector<char> part_number{};  // per part: supplies the number it asks for (typed: asked_quantity.h)
  bool name = false;    // holds a name the question does not
  bool named_in_words = false;  // gives a name in words ("also known as X", "called X")
  double reason_share = 1;  // what a "why" part counts of it: 1 when it states a reason, else less
  double label_share = 1;   // what a "which figure" part counts of it: 1 when it names one, else less
  bool lead_in = false; // ends with ':' (introduces an equation or a list): only an antecedent
  double definition = 0;
  double score = 0;     // for the question as a whole
  std::string quote{};    // the same sentence verbatim from the chunk (whitespace collapsed)
};

double jaccard(const std::set<std::string>& a, const std::set<std::string>& b) {
  if (a.empty() || b.empty()) return 0;
  size_t inter = 0;
  for (auto& x : a) inter += b.count(x);
  return static_cast<double>(inter) / static_cast<double>(a.size() + b.size() - inter);
}

// What figures and tables do, in the words questions use: "what does Figure 2 show / depict /
// plot", "what does Table 1 list / report".
const std::set<std::string>& depiction_stems() {
  static const std::set<std::string> s = [] {
    std::set<std::string> out;
    for (const char* w : {"show", "depict", "illustrate", "plot", "display", "present", "visualize", "draw", "list",
                          "report", "summarize", "give"})
      out.insert(stem(w));
    return out;
  }();
  return s;
}

// How well sentence `s` answers part `p`: its own terms most, the whole question's some (the
// parts share a subject: "how many are in the data, and how many get dropped"), and the shape
// the part asks for (a number for "how many", a name for "which package"). A lone part weighs
// its own terms so too when a statement sets the scene before it (QuestionPart::after_scene):
// the scene's many words would otherwise make the sentence that repeats them win.
bool kind_ok(const Sentence& s, size_t p, AnswerKind k) {
  return k == AnswerKind::Number ? s.part_number[p] != 0 : k == AnswerKind::Name ? s.name : true;
}

double part_score(const Sentence& s, size_t p, const QuestionPart& part, size_t parts) {
  double cov = parts > 1 || part.after_scene ? 0.6 * s.part_cov[p] + 0.4 * s.coverage : s.coverage;
  if (part.kind == AnswerKind::Number && !s.part_number[p]) cov *= 0.5;
  if (part.kind == AnswerKind::Name && !s.name) cov *= 0.8;
  if (part.kind == AnswerKind::Reason) cov *= s.reason_share;
  if (part.figure) cov *= s.label_share;
  return cov;
}

// Length normalisation: longer sentences match more words by chance.
double len_pen(const Sentence& s) { return s.stems.size() > 40 ? 0.9 : 1.0; }

// What part p asks to define, for a question of several parts: the part's own definition target
// after any introductory phrase ("In a sandwich estimator, what is meant by the bread" asks for
// "bread"), and an elliptic "what by the meat" after a "what is meant by" part asks for "meat".
std::string part_definition_target(const std::vector<QuestionPart>& parts, size_t p) {
  if (parts.size() < 2) return "";
  auto target = [](const std::string& text) {
    std::string t = definition_target(text);
    const size_t comma = text.find(", ");
    return t.empty() && comma != std::string::npos ? definition_target(text.substr(comma + 2)) : t;
  };
  std::string t = target(parts[p].text);
  auto ws = words(parts[p].text);
  if (t.empty() && p > 0 && ws.size() >= 3 && ws[0] == "what" && ws[1] == "by" && !target(parts[p - 1].text).empty())
    t = target("what is meant by " + parts[p].text.substr(parts[p].text.find("by") + 3));
  return t;
}

// A mild preference for the passages the retrieval ranked first.
double prior(const Sentence& s) { return 0.1 / (1.0 + static_cast<double>(s.cand)); }

// How well a sentence answers the question as a whole: its best part, its passage's rank and
// how much it reads as a definition.
double sentence_score(const Sentence& x, const std::vector<QuestionPart>& parts) {
  double shape = 0;
  for (size_t p = 0; p < parts.size(); ++p) shape = std::max(shape, part_score(x, p, parts[p], parts.size()));
  return shape * len_pen(x) + prior(x) + 0.6 * x.definition;
}

// The hand-set score of sentence s for part p (step 2 of choose_sentences): how well it answers
// the part, longer sentences discounted, the first passages and a definition's form preferred.
double hand_score(const Sentence& s, size_t p, const std::vector<QuestionPart>& parts) {
  return part_score(s, p, parts[p], parts.size()) * len_pen(s) + prior(s) +
         0.3 * (parts.size() == 1 ? s.definition : s.part_def[p]);
}

// A sentence that opens with an anaphor ("This prevents ...", "It ...", "These ...") speaks
// about what the sentence before it named.
bool opens_with_anaphor(const std::string& text) {
  auto ws = words(text.substr(0, text.find(' ')));
  return !ws.empty() && (ws[0] == "this" || ws[0] == "these" || ws[0] == "it" || ws[0] == "such" ||
                         ws[0] == "they" || ws[0] == "thus" || ws[0] == "hence");
}

// A sentence ending in ':' that only introduces what follows ("Benefits:", "..., computing:",
// "... is given by:", "as follows:") says nothing by itself; one that states something before
// its colon ("Multiply the loss by a large constant (e.g. 1024) to keep gradients in range:")
// is a statement whose equation or list follows.
bool label_lead_in(const std::string& s) {
  auto ws = words(s);
  if (ws.size() < 6) return true;
  static const std::set<std::string> kIntro = {"follows", "follow", "below", "by", "as", "is", "are", "be",
                                               "computing", "compute", "computed", "given", "written", "defined",
                                               "where", "include", "includes", "including", "gives", "yields",
                                               "obtain", "get", "steps", "example", "examples", "e", "g", "i"};
  return kIntro.count(ws.back()) > 0;
}

// The nearest statement before (or after) sentence i in its passage, at most three sentences
// away (an equation between them was not kept as a sentence): what an anaphor in i points back
// to, or what follows i.
std::optional<size_t> neighbour(const std::vector<Sentence>& sents, size_t i, bool before) {
  const Sentence& c = sents[i];
  auto distance = [&](const Sentence& s) { return before ? c.pos - s.pos : s.pos - c.pos; };
  std::optional<size_t> best;
  for (size_t j = 0; j < sents.size(); ++j)
    if (sents[j].cand == c.cand && (before ? sents[j].pos < c.pos : sents[j].pos > c.pos) &&
        distance(sents[j]) <= 3 && (!best || distance(sents[j]) < distance(sents[*best])))
      best = j;
  return best;
}

std::optional<size_t> antecedent(const std::vector<Sentence>& sents, size_t i) { return neighbour(sents, i, true); }

// A sentence says what it says about the subject its passage names: "For machines that break
// down again and again, what does the Nelson estimate tell you, and what do reliability
// engineers call it?" is answered by "... in reliability analysis it is also known as the mean
// cumulative function", two sentences after the one that names the Nelson estimate. Each
// sentence's coverage counts a question term that only the other sentences of its passage hold
// (as the context shows the passage) at `weight`, so that among sentences saying the asked
// thing, the one whose passage is about the question's subject ranks first. (The anaphor rule
// below is the strong form of this for the sentence right before.)
void add_passage_context(std::vector<Sentence>& sents, const std::vector<QueryTerm>& q,
                         const std::vector<QuestionPart>& parts, const std::vector<std::vector<QueryTerm>>& part_terms,
                         double weight) {
  if (weight <= 0) return;
  // A term the sentence holds counts 1 and one only its passage holds counts `weight`: that is
  // (1 - weight) × its own coverage + weight × its passage's (the passage holds its own terms).
  std::map<size_t, std::set<std::string>> passage;  // per chunk, the stems of its sentences
  for (const auto& s : sents) passage[s.cand].insert(s.cov_stems.begin(), s.cov_stems.end());
  auto coverage = [&](const Sentence& s, const std::vector<QueryTerm>& terms) {
    return (1 - weight) * term_coverage(s.cov_stems, terms) + weight * term_coverage(passage[s.cand], terms);
  };
  for (auto& x : sents) {
    if (x.lead_in) continue;
    x.coverage = std::max(x.coverage, coverage(x, q));
    for (size_t p = 0; p < parts.size(); ++p) x.part_cov[p] = std::max(x.part_cov[p], coverage(x, part_terms[p]));
    x.score = sentence_score(x, parts);
  }
}

// A part that names what it asks about with a pronoun: "what do engineers call it", "how are
// they computed".
bool refers_back(const std::string& part) {
  for (const auto& w : words(part))
    if (w == "it" || w == "its" || w == "they" || w == "them" || w == "their") return true;
  return false;
}

// The sentences chosen so far, in answer order, and what they add up to.
struct Chosen {
  const std::vector<Sentence>& sents;
  const SynthOptions& opt;
  std::vector<size_t> idx{};
  size_t chars = 0;
  // Not chosen, not a repeat of a chosen one (word overlap), and within the answer's length.
  bool usable(size_t i) const {
    for (size_t c : idx)
      if (c == i || jaccard(sents[c].stems, sents[i].stems) > 0.5) return false;
    return idx.empty() || chars + sents[i].text.size() <= opt.max_answer_chars;
  }
  void insert(size_t at, size_t i) {
    idx.insert(idx.begin() + static_cast<long>(at), i);
    chars += sents[i].text.size();
  }
  void take(size_t i) { insert(idx.size(), i); }
  bool new_passage(size_t i) const {
    for (size_t c : idx)
      if (sents[c].cand == sents[i].cand) return false;
    return true;
  }
};

// A sentence that would cite a passage of its own for part p must hold at least half
// (IDF-weighted) of the words only that part has: a second passage is cited for what the first
// does not answer ("at which confidence levels are its cut-offs placed by default?": "By default,
// two cut-off points ... confidence levels of 90% and 99%"), not for a sentence that shares the
// question's subject and one of the part's words by chance ("or is another tool needed?": "...
// one needs to assume ..."). A part without words of its own ("and why?") is not judged. A
// sentence that gives a name in words ("... is also known as the mean cumulative function") says
// what a "what do engineers call it?" part's naming verb asks for.
bool speaks_to_own_words(const Sentence& s, size_t p, const std::vector<QuestionPart>& parts,
                         const std::vector<std::vector<QueryTerm>>& own_terms, const SynthOptions& opt) {
  if (p >= own_terms.size() || own_terms[p].empty()) return true;
  if (parts[p].kind != AnswerKind::Name || !s.named_in_words)
    return term_coverage(s.cov_stems, own_terms[p]) >= opt.own_part_share;
  std::set<std::string> with_naming = s.cov_stems;
  for (const char* w : {"call", "called", "name", "named", "term", "termed", "known", "refer", "dub"})
    with_naming.insert(stem(w));
  return term_coverage(with_naming, own_terms[p]) >= opt.own_part_share;
}

// Step 1: for a definition question, the sentence that best defines X (its form first, then how
// much of the question it covers).
std::optional<size_t> definition_sentence(const std::vector<Sentence>& sents, double best_cov) {
  std::optional<size_t> def;
  for (size_t i = 0; i < sents.size(); ++i) {
    const Sentence& s = sents[i];
    if (s.lead_in || s.definition < 0.5 || s.coverage < best_cov * 0.5) continue;
    auto key = [&](const Sentence& x) { return x.definition + 0.5 * x.coverage * len_pen(x) + prior(x); };
    if (!def || key(s) > key(sents[*def])) def = i;
  }
  return def;
}

// Step 2: for each part, the sentence that answers it best, unless a chosen one answers it as well.
void part_sentences(Chosen& ch, const std::vector<QuestionPart>& parts,
                    const std::vector<std::vector<QueryTerm>>& own_terms,
                    const std::vector<std::vector<double>>& pick) {
  const std::vector<Sentence>& sents = ch.sents;
  for (size_t p = 0; p < parts.size(); ++p) {
    std::optional<size_t> best;
    double best_score = 0;
    for (size_t i = 0; i < sents.size(); ++i) {
      if (sents[i].lead_in) continue;
      const double sc = pick[i][p];
      if (!best || sc > best_score) best = i, best_score = sc;
    }
    if (!best) continue;
    bool answered = false;  // a chosen sentence already answers this part as well as any
    for (size_t c : ch.idx)
      answered = answered || c == *best ||
                 part_score(sents[c], p, parts[p], parts.size()) >= part_score(sents[*best], p, parts[p], parts.size());
    if (answered) continue;
    if (parts.size() > 1 && sents[*best].part_cov[p] <= 0) continue;  // nothing speaks to this part
    if (!ch.idx.empty() && ch.new_passage(*best) && !speaks_to_own_words(sents[*best], p, parts, own_terms, ch.opt))
      continue;
    if (ch.usable(*best)) ch.take(*best);
  }
}

// Step 2b: a chosen sentence that opens with an anaphor ("This transformation ...", "It ...")
// points back to the sentence before it in its passage, which says what "this" is: it goes
// before it (same passage, so no new citation). Step 2c: a reason is often said right after what
// it explains ("Dropout is applied to the weights after the softmax. This prevents the model
// from relying on ..."): for a part asking why, the sentence after the one that answers it, when
// it opens with an anaphor, follows it.
void add_neighbours(Chosen& ch, const std::vector<QuestionPart>& parts) {
  const std::vector<Sentence>& sents = ch.sents;
  for (size_t k = 0; k < ch.idx.size(); ++k) {
    if (!opens_with_anaphor(sents[ch.idx[k]].text)) continue;
    std::optional<size_t> ante = antecedent(sents, ch.idx[k]);
    if (ante && ch.usable(*ante)) {
      ch.insert(k, *ante);
      ++k;
    }
  }
  for (size_t p = 0; p < parts.size(); ++p) {
    if (parts[p].kind != AnswerKind::Reason || ch.idx.empty()) continue;
    size_t at = 0;
    for (size_t k = 1; k < ch.idx.size(); ++k)
      if (part_score(sents[ch.idx[k]], p, parts[p], parts.size()) > part_score(sents[ch.idx[at]], p, parts[p], parts.size()))
        at = k;
    std::optional<size_t> next = neighbour(sents, ch.idx[at], false);
    if (next && !sents[*next].lead_in && opens_with_anaphor(sents[*next].text) && ch.usable(*next))
      ch.insert(at + 1, *next);
  }
}

// The sentences of the answer, in the order they are written:
//  1. for a definition question, the sentence that best defines X, so that "what is X?" opens
//     with what X is;
//  2. for each part of the question, the sentence that answers it best (a part already answered
//     by a chosen sentence adds nothing), so a two-part question cites a sentence per part, from
//     different passages where that is where the answers are; then their antecedents and reasons;
//  3. then, up to max_sentences, more sentences only from passages already cited and nearly as
//     covering as the best: they add detail without citing a passage that is not evidence.
// A sentence that repeats a chosen one (word overlap) is skipped.
// `pick[i][p]`: how well sentence i answers part p (the hand-set score or the selector's).
std::vector<size_t> choose_sentences(const std::vector<Sentence>& sents, const std::vector<QuestionPart>& parts,
                                     const std::vector<std::vector<QueryTerm>>& own_terms, double best_cov,
                                     const std::vector<std::vector<double>>& pick, const SynthOptions& opt) {
  Chosen ch{sents, opt};
  if (std::optional<size_t> def = definition_sentence(sents, best_cov)) ch.take(*def);
  part_sentences(ch, parts, own_terms, pick);
  add_neighbours(ch, parts);
  // 3. More from the passages already cited.
  std::vector<size_t> order(sents.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sents[a].score > sents[b].score; });
  std::set<size_t> cited;
  for (size_t c : ch.idx) cited.insert(sents[c].cand);
  for (size_t i : order) {
    if (ch.idx.size() >= opt.max_sentences) break;
    const Sentence& s = sents[i];
    if (s.lead_in || !cited.count(s.cand) || s.coverage < best_cov * opt.extra_share) continue;
    if (ch.usable(i)) ch.take(i);
  }
  return ch.idx;
}

// What the answerability judgement reads besides the passages' terms: the best sentence's
// coverage of the question (its general-English words discounted, answer_terms), the best
// passage's proximity, and (with sentence vectors) the best sentence's cosine.
AnswerSignals answer_signals(const std::string& question, const std::vector<Sentence>& sents,
                             const Retrieval& retrieval, TermStats& stats, const SynthOptions& opt) {
  AnswerSignals signals;
  const std::vector<QueryTerm> qa = answer_terms(question, stats);
  for (const auto& s : sents)
    if (!s.lead_in) signals.answer_cov = std::max(signals.answer_cov, term_coverage(s.cov_stems, qa));
  const ProximityScorer proximity(question, stats);
  std::vector<const std::string*> shown;  // what the context shows of each passage
  for (const auto& c : retrieval.context) {
    shown.push_back(c.text.empty() ? &c.hit.text : &c.text);
    signals.best_prox = std::max(signals.best_prox, proximity.score(*shown.back(), c.hit.doc, c.hit.heading_path));
  }
  if (opt.sentences && !shown.empty()) {
    try {
      const auto qv = embed_rows(opt.sentences->embedder(), {question}, EmbedKind::Query).at(0);
      for (double c : opt.sentences->best_cosines(qv, shown)) signals.sent_cos = std::max(signals.sent_cos, c);
    } catch (const Error&) {
      signals.sent_cos = 0;  // an embedder that failed now: the feature is missing, as without one
    }
  }
  return signals;
}

// Each sentence's score for each part: the hand-set one, or with SynthOptions::selector the
// fitted selector's over the features of sentence_select.h (recorded in ans.sentence_rows when
// SynthOptions::sentence_rows).
std::vector<std::vector<double>> selection_scores(const std::string& question, const std::vector<Sentence>& sents,
                                                  const std::vector<QuestionPart>& parts, double best_cov,
                                                  const SynthOptions& opt, Answer& ans) {
  std::vector<std::vector<double>> pick(sents.size(), std::vector<double>(parts.size(), 0.0));
  for (size_t i = 0; i < sents.size(); ++i)
    for (size_t p = 0; p < parts.size(); ++p) pick[i][p] = hand_score(sents[i], p, parts);
  if (!opt.selector && !opt.sentence_rows) return pick;
  std::vector<double> cos(sents.size(), 0.0);
  if (opt.sentences && !sents.empty()) {
    try {
      const auto qv = embed_rows(opt.sentences->embedder(), {question}, EmbedKind::Query).at(0);
      std::vector<const std::string*> texts;
      for (const auto& s : sents) texts.push_back(&s.text);
      cos = opt.sentences->best_cosines(qv, texts);
      for (double& c : cos) c = std::max(c, 0.0);  // -1: too short to embed
    } catch (const Error&) {
      std::fill(cos.begin(), cos.end(), 0.0);  // an embedder that failed now: the features are missing
    }
  }
  const double best_cos = cos.empty() ? 0.0 : *std::max_element(cos.begin(), cos.end());
  for (size_t i = 0; i < sents.size(); ++i) {
    const Sentence& s = sents[i];
    if (s.lead_in) continue;  // never chosen for a part
    for (size_t p = 0; p < parts.size(); ++p) {
      SelectSignals g;
      g.hand = pick[i][p];
      g.coverage = s.coverage;
      g.part_cov = s.part_cov[p];
      g.shape = part_score(s, p, parts[p], parts.size());
      g.kind_match = parts[p].kind != AnswerKind::Any && kind_ok(s, p, parts[p].kind);
      g.definition = parts.size() == 1 ? s.definition : s.part_def[p];
      g.cos = cos[i];
      g.first = s.pos == 1;
      g.anaphor = opens_with_anaphor(s.text);
      g.long_sentence = s.stems.size() > 40;
      g.cand = s.cand;
      g.chars = s.text.size();
      std::vector<double> x = select_features(g, best_cov, best_cos);
      if (opt.selector) pick[i][p] = opt.selector->score(x);
      if (opt.sentence_rows) ans.sentence_rows.push_back({s.cand, p, s.text, std::move(x)});
    }
  }
  return pick;
}

// Each part's query terms. A part without content words of its own ("..., and why?", "what does
// it show?") asks about the same thing as the part before it. One that refers back with a pronoun
// ("..., and what do reliability engineers call it?") asks about that thing too: it has the domain
// words of the part before it as well as its own. What "it" is, is named there by a term ("the
// Nelson estimate", "zorblium"), not by the general English around it ("at how many degrees does
// ... boil"), which would make the part before it answer this one too.
std::vector<std::vector<QueryTerm>> part_terms_of(const std::vector<QuestionPart>& parts, TermStats& stats) {
  std::vector<std::vector<QueryTerm>> part_terms;
  for (size_t pi = 0; pi < parts.size(); ++pi) {
    const QuestionPart& p = parts[pi];
    if (part_terms.empty()) {
      part_terms.push_back(query_terms(p.text, stats));
    } else if (content_stems(p.text).empty()) {
      part_terms.push_back(part_terms.back());
    } else {
      std::vector<QueryTerm> t = query_terms(p.text, stats);
      if (refers_back(p.text)) {
        std::set<std::string> have;
        for (auto& x : t) have.insert(x.stem);
        std::set<std::string> domain;  // the earlier part's words that are not general English
        for (auto& w : words(parts[pi - 1].text))
          if (!is_stopword(w) && general_word_weight(w) >= 1.0) domain.insert(stem(w));
        for (auto& x : part_terms.back())
          if (domain.count(x.stem) && have.insert(x.stem).second) t.push_back(x);
      }
      part_terms.push_back(std::move(t));
    }
  }
  return part_terms;
}

// What the question asks, in the terms sentences are scored by.
struct QuestionTerms {
  std::vector<QueryTerm> q;  ///< distinct content-word stems, weighted by IDF
  std::vector<QuestionPart> parts;
  std::vector<std::vector<QueryTerm>> part_terms;
  Definiendum defx;                  ///< what the question asks to define ("what is X?")
  std::vector<Definiendum> part_defs;  ///< the same per part ("what is meant by the bread, and what by the meat?")
};

QuestionTerms question_terms(const Question& asked, TermStats& stats) {
  const std::string& question = asked.standalone;
  const std::vector<QuestionPart>& parts = asked.parts;  // never empty (analyse_question)
  QuestionTerms t{query_terms(question, stats), parts, part_terms_of(parts, stats), Definiendum(asked.definiendum), {}};
  for (size_t p = 0; p < t.parts.size(); ++p) t.part_defs.emplace_back(part_definition_target(t.parts, p));
  return t;
}

// What a passage stands under (its document's file name and heading path), as stems: context for
// all its sentences ("according to the wiki" is covered by attention_wiki.txt, a paper's name by
// the heading above the paragraph); with the words the question named it by ("Figure 3 of the
// survival paper") and, for a figure's or table's own passage, what a caption implicitly says
// ("Figure 3 shows ...").
std::set<std::string> where_stems_of(const Candidate& c) {
  const SearchHit& hit = c.hit;
  std::set<std::string> where_stems = stem_set(hit.doc.substr(0, hit.doc.rfind('.')) + " " + hit.heading_path);
  where_stems.insert(c.where.begin(), c.where.end());
  if (!hit.figure_id.empty()) {
    const auto& verbs = depiction_stems();
    where_stems.insert(verbs.begin(), verbs.end());
  }
  return where_stems;
}

// The scored sentence of `span` (a shown sentence of passage `ci`, its `pos`-th), or none when it
// is no statement (a heading, a fragment, a question the text asks, code).
std::optional<Sentence> make_sentence(const std::string& question, const SearchHit& hit, size_t ci, size_t pos,
                                      std::string_view span, const std::set<std::string>& where_stems,
                                      const QuestionTerms& qt, const SynthOptions& opt) {
  if (!span.empty() && span[0] == '#') return std::nullopt;  // a heading line, not a statement
  std::string s = clean_sentence(span);
  if (s.size() < (hit.figure_id.empty() ? 25u : 8u)) return std::nullopt;  // headings, labels, fragments; not a table's rows
  if (s.back() == '?') return std::nullopt;  // a question the text asks (and answers after it) is no answer
  const bool lead_in = s.back() == ':' && label_lead_in(s);  // introduces what follows: not a statement
  if (s.back() == ':') s.back() = '.';  // a statement whose equation or list follows ends here
  // Code, titles and equation fragments are no answer in words; a table's rows and a caption
  // are (a table's own passage is terse by nature).
  if (hit.figure_id.empty() && (looks_like_code(s) || not_a_statement(s))) return std::nullopt;
  if (s.size() > 600) s = std::string(utf8_prefix(s, 597)) + "...";
  Sentence x{.cand = ci, .pos = pos, .text = std::move(s)};
  x.lead_in = lead_in;
  x.stems = stem_set(x.text);
  x.quote = verbatim_quote(span);
  std::set<std::string> with_where = x.stems;
  with_where.insert(where_stems.begin(), where_stems.end());
  x.coverage = term_coverage(with_where, qt.q);
  for (auto& pt : qt.part_terms) x.part_cov.push_back(term_coverage(with_where, pt));
  x.cov_stems = std::move(with_where);
  x.number = holds_new_number(x.text, question);
  // A part that asks a typed quantity ("how many trees", "which version of bash") is answered by
  // a sentence that states one beside what it counts, not by any number.
  for (const QuestionPart& part : qt.parts)
    x.part_number.push_back(part.quantity.type == QuantityType::None ? x.number
                                                                      : supplies_quantity(x.text, part.quantity, question));
  x.name = holds_new_name(x.text, question);
  x.named_in_words = names_in_words(x.text, question);
  // A "why" part is answered by a sentence that gives a reason ("the boundaries commonly used
  // are linear, because a closed form solution ... is known"), not by one that only restates
  // what is asked about ("It would seem natural to use boundaries proportional to ..."), as a
  // "how many" part is answered by a sentence with a number.
  x.reason_share = gives_reason(x.text) ? 1.0 : opt.unshaped_share;
  // Likewise a part asking which figure or table shows something is answered by a sentence
  // that names one ("Figure 2.3: Correct (solid) and invalid (dashed) estimates ...", "Figure
  // 2.3 shows the transplant curves ..."), not by one that only describes the data.
  x.label_share = figure_references(x.text).empty() ? opt.unshaped_share : 1.0;
  x.definition = qt.defx.grade(x.text);
  for (auto& d : qt.part_defs) x.part_def.push_back(d.empty() ? 0.0 : d.grade(x.text));
  x.score = sentence_score(x, qt.parts);
  if (lead_in) x.score = x.coverage = 0, std::fill(x.part_cov.begin(), x.part_cov.end(), 0.0);
  return x;
}

// Every candidate sentence of the context, scored; `chunk_terms` gets each passage's stems (what
// the context shows of it, and where it stands).
std::vector<Sentence> context_sentences(const std::string& question, const Retrieval& retrieval,
                                        const QuestionTerms& qt, const SynthOptions& opt,
                                        std::vector<std::set<std::string>>& chunk_terms) {
  std::vector<Sentence> sents;
  chunk_terms.assign(retrieval.context.size(), {});
  for (size_t ci = 0; ci < retrieval.context.size(); ++ci) {
    // Only what the context shows of the chunk (the budget may have trimmed it to its best
    // sentences): sentences are byte ranges of the chunk, so quotes stay verbatim chunk text.
    const SearchHit& hit = retrieval.context[ci].hit;
    const std::string& text = hit.text;
    const auto shown = shown_sentences(retrieval.context[ci]);
    const std::set<std::string> where_stems = where_stems_of(retrieval.context[ci]);
    std::set<std::string> chunk_stems;
    for (auto [b, e] : shown) {
      auto st = stem_set(std::string_view(text).substr(b, e - b));
      chunk_stems.insert(st.begin(), st.end());
    }
    chunk_stems.insert(where_stems.begin(), where_stems.end());
    chunk_terms[ci] = chunk_stems;
    size_t pos = 0;
    for (auto [b, e] : shown) {
      ++pos;
      std::optional<Sentence> x = make_sentence(question, hit, ci, pos, std::string_view(text).substr(b, e - b),
                                                where_stems, qt, opt);
      if (x) sents.push_back(std::move(*x));
    }
  }
  return sents;
}

// An anaphor's sentence says its part of the answer about what the sentence before it named
// ("Dropout is applied to the weights after the softmax. This prevents the model from relying
// on ..."): it is scored with its antecedent's words, when together they cover more of the
// question than the antecedent alone, and step 2b of choose_sentences puts the antecedent
// before it in the answer. Antecedents first, so that a chain does not compound.
void add_anaphor_context(std::vector<Sentence>& sents, const QuestionTerms& qt) {
  const std::vector<QueryTerm>& q = qt.q;
  const std::vector<QuestionPart>& parts = qt.parts;
  const std::vector<std::vector<QueryTerm>>& part_terms = qt.part_terms;
  // Discounted (×0.9): the pair is two sentences, and the anaphor may point past its neighbour.
  struct Pair {
    size_t i;
    std::set<std::string> both;
    double coverage;
  };
  std::vector<Pair> pairs;
  for (size_t i = 0; i < sents.size(); ++i) {
    if (sents[i].lead_in || !opens_with_anaphor(sents[i].text)) continue;
    auto a = antecedent(sents, i);
    if (!a) continue;
    std::set<std::string> both = sents[i].cov_stems;
    both.insert(sents[*a].cov_stems.begin(), sents[*a].cov_stems.end());
    const double coverage = 0.9 * term_coverage(both, q);
    if (coverage > sents[*a].coverage) pairs.push_back({i, std::move(both), coverage});
  }
  for (auto& [i, both, coverage] : pairs) {
    Sentence& x = sents[i];
    x.coverage = std::max(x.coverage, coverage);
    for (size_t p = 0; p < parts.size(); ++p)
      x.part_cov[p] = std::max(x.part_cov[p], 0.9 * term_coverage(both, part_terms[p]));
    x.score = sentence_score(x, parts);
  }
}

// Each part's own words: the terms of its text that no other part's text has, and, for a part
// that refers back ("what do engineers call it?"), the words it took from the part before (what
// "it" is). None for a part without words of its own ("and why?"). A word no chunk of the store
// holds ("how often", a paraphrase) is left out, as the not-found judge leaves it out: no passage
// can hold it.
std::vector<std::vector<QueryTerm>> own_terms_of(const QuestionTerms& qt, TermStats& stats) {
  const std::vector<QuestionPart>& parts = qt.parts;
  const std::vector<std::vector<QueryTerm>>& part_terms = qt.part_terms;
  std::vector<std::vector<QueryTerm>> own_terms(parts.size());
  const double absent = stats.absent_idf() - 1e-9;
  if (parts.size() > 1)
    for (size_t p = 0; p < parts.size(); ++p) {
      if (content_stems(parts[p].text).empty()) continue;
      std::set<std::string> others, mine;
      for (size_t o = 0; o < parts.size(); ++o)
        for (auto& t : query_terms(parts[o].text, stats)) (o == p ? mine : others).insert(t.stem);
      for (auto& t : part_terms[p])
        if (!is_stopword(t.stem) && (!others.count(t.stem) || !mine.count(t.stem)) &&
            (t.idf < absent || stats.chunks() == 0))
          own_terms[p].push_back(t);
    }
  return own_terms;
}

// The answer's text and citations: the chosen sentences in order, citations numbered by first
// appearance, one per chunk.
void write_answer(const std::vector<size_t>& chosen, const std::vector<Sentence>& sents, const Retrieval& retrieval,
                  Answer& ans) {
  std::map<size_t, int> cite_no;
  for (size_t i : chosen) {
    const Sentence& s = sents[i];
    auto [it, fresh] = cite_no.try_emplace(s.cand, static_cast<int>(ans.citations.size()) + 1);
    if (fresh) ans.citations.push_back(make_citation(retrieval.context[s.cand].hit, it->second));
    Citation& c = ans.citations[static_cast<size_t>(it->second - 1)];
    add_quote(c, s.quote.empty() ? s.text : s.quote);
    if (!ans.text.empty()) ans.text += ' ';
    ans.text += s.text + " [" + std::to_string(it->second) + "]";
  }
}

// After "the documents do not say": what the nearest passages do say, so that a user sees what
// is there (the best-covering sentence of each of the two best-covering passages, cited).
void write_nearest(const std::vector<Sentence>& sents, const Retrieval& retrieval, Answer& ans) {
  std::vector<size_t> order;
  for (size_t i = 0; i < sents.size(); ++i)
    if (!sents[i].lead_in && sents[i].coverage > 0) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sents[a].coverage > sents[b].coverage; });
  std::vector<size_t> chosen;
  std::set<size_t> passages;
  for (size_t i : order)
    if (chosen.size() < 2 && passages.insert(sents[i].cand).second) chosen.push_back(i);
  if (chosen.empty()) return;
  Answer near;
  write_answer(chosen, sents, retrieval, near);
  ans.text += "\n\nThe nearest passages say: " + near.text;
  ans.citations = std::move(near.citations);
}

// The direct answer's line, then the sentences of its walks (the entity's passage, each hop's,
// the value's), each cited once.
void write_direct(const DirectAnswer& d, const Retrieval& retrieval, Answer& ans) {
  std::map<size_t, int> cite_no;
  std::string body, marks;
  std::set<std::string> said;
  for (const auto& path : d.paths)
    for (const HopStep& h : path) {
      const SearchHit* hit = walk_passage(d, retrieval.context, h.source);
      if (!hit || h.sentence.empty()) continue;
      auto [it, fresh] = cite_no.try_emplace(h.source, static_cast<int>(ans.citations.size()) + 1);
      if (fresh) ans.citations.push_back(make_citation(*hit, it->second));
      const std::string mark = "[" + std::to_string(it->second) + "]";
      if (marks.find(mark) == std::string::npos) marks += mark;
      const std::string text = clean_sentence(h.sentence);
      if (!said.insert(text).second) continue;
      add_quote(ans.citations[static_cast<size_t>(it->second - 1)], h.sentence);
      body += (body.empty() ? "" : " ") + text + " " + mark;
    }
  ans.text = d.text + " " + marks + "\n\n" + body;
}

}  // namespace

Answer synthesize_extractive(const Question& q, const Retrieval& retrieval, TermStats& stats,
                             const SynthOptions& opt) {
  const std::string& question = q.standalone;
  Answer ans;
  const QuestionTerms qt = question_terms(q, stats);
  const std::vector<QuestionPart>& parts = qt.parts;
  std::vector<std::set<std::string>> chunk_terms;
  std::vector<Sentence> sents = context_sentences(question, retrieval, qt, opt, chunk_terms);
  add_passage_context(sents, qt.q, parts, qt.part_terms, opt.passage_weight);
  add_anaphor_context(sents, qt);
  std::vector<PartEvidence> evidence(parts.size());
  for (size_t p = 0; p < parts.size(); ++p)
    for (const auto& s : sents) {
      evidence[p].best = std::max(evidence[p].best, s.part_cov[p]);
      if (kind_ok(s, p, parts[p].kind)) evidence[p].best_of_kind = std::max(evidence[p].best_of_kind, s.part_cov[p]);
    }
  // What must be answered is what the parts ask; a scene-setting statement before them ("The
  // monograph describes X. Which paper ...?") is context, not a condition on the answer.
  std::string asked;
  for (auto& p : parts) asked += (asked.empty() ? "" : " ") + p.text;
  double best_cov = 0;
  for (auto& s : sents) best_cov = std::max(best_cov, s.coverage);
  const std::vector<std::vector<double>> pick = selection_scores(question, sents, parts, best_cov, opt, ans);
  const AnswerSignals signals = answer_signals(question, sents, retrieval, stats, opt);
  const Answerability verdict =
      judge_answerable(asked, parts, evidence, chunk_terms, stats, signals, opt.answerable, opt.min_coverage);
  ans.coverage = verdict.coverage;
  ans.answerability = verdict.features;
  ans.answerability_score = verdict.score;
  if (opt.direct) ans.direct = direct_answer(q.fact, retrieval.context, opt.find_home);
  if (ans.direct.found) {
    write_direct(ans.direct, retrieval, ans);
    ans.found = true;
    return ans;
  }
  if (sents.empty() || !verdict.answerable) {
    // Says why, so that a user knows what to ask or add: "no passage mentions Stata".
    std::string why = !verdict.answerable && !verdict.why.empty() ? verdict.why : "";
    ans.text = why.empty() ? kNotFound : "The documents do not say: " + why + ".";
    // The passages speak to the question but not to what it asks (a number, a date): what they
    // do say is shown. Not when the question names what no passage mentions, or covers too little.
    const bool subject_found = verdict.coverage >= opt.min_coverage &&
                               (verdict.features.empty() || verdict.features[static_cast<size_t>(AnswerFeature::MissingName)] == 0);
    if (subject_found) write_nearest(sents, retrieval, ans);
    return ans;
  }

  const std::vector<std::vector<QueryTerm>> own_terms = own_terms_of(qt, stats);
  const std::vector<size_t> chosen = choose_sentences(sents, parts, own_terms, best_cov, pick, opt);
  write_answer(chosen, sents, retrieval, ans);
  ans.found = true;
  return ans;
}

}  // namespace mmkg
