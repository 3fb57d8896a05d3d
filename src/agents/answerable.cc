#include "agents/answerable.h"

#include <algorithm>

#include "index/lexical.h"
#include "text/lexicon.h"
#include "text/words.h"

namespace mmkg {

namespace {

// The question's words the corpus holds, each stem once, weighted by IDF; framing words (verbs
// and adverbs that are not also nouns: "claim", "tend", "exactly", "routinely") weigh 0.3, since
// questions paraphrase them freely while the nouns name what is asked. A word of general English
// (among the ~2,800 most frequent lemmas, WordNet's SemCor counts: "field", "draw", "patient",
// "handle") weighs 0.4 for the same reason: a question says "clinical fields" where the text
// says "some areas", while its domain words ("downhill", "survfit", "censored") are the ones a
// passage that answers must hold.
std::vector<QueryTerm> held_terms(const std::string& question, TermStats& stats, double absent) {
  const graph::Lexicon& lex = graph::Lexicon::get();
  std::vector<QueryTerm> out;
  std::set<std::string> seen;
  for (auto& w : words(question)) {
    if (is_stopword(w)) continue;
    std::string st = stem(w);
    if (!seen.insert(st).second) continue;
    double idf = stats.idf(w);
    // No chunk holds it: a paraphrase, or something not covered. (Without statistics, an empty
    // index, every word counts.)
    if (idf >= absent && stats.chunks() > 0) continue;
    bool framing = lex.loaded() && !lex.is_noun(w) && (lex.verb_form(w) || lex.is_adv(w));
    out.push_back({st, idf * std::min(framing ? 0.3 : 1.0, general_word_weight(w))});
  }
  return out;
}

}  // namespace

Answerability judge_answerable(const std::string& question, const std::vector<QuestionPart>& parts,
                               const std::vector<PartEvidence>& evidence,
                               const std::vector<std::set<std::string>>& chunk_stems, TermStats& stats,
                               double min_coverage) {
  Answerability a;
  const double absent = stats.absent_idf() - 1e-9;  // a word no chunk holds has at least this idf
  const graph::Lexicon& lex = graph::Lexicon::get();
  for (const auto& name : question_names(question)) {
    std::string missing;
    for (const auto& w : name)  // an adjective ("Danish") describes; the text may say "Denmark"
      if (w.size() > 1 && stats.chunks() > 0 && stats.idf(w) >= absent && !(lex.loaded() && lex.is_adj(w)))
        missing = w;
    if (missing.empty()) continue;
    std::string n;
    for (auto& w : name) n += (n.empty() ? "" : " ") + w;
    // As the question writes it ("Stata", not "stata"), when it is there in those words.
    const std::string lq = lower_ascii(question);
    if (size_t at = lq.find(n); at != std::string::npos) n = question.substr(at, n.size());
    a.why = "no passage mentions " + n;
    return a;
  }
  const std::vector<QueryTerm> held = held_terms(question, stats, absent);
  for (const auto& cs : chunk_stems) a.coverage = std::max(a.coverage, term_coverage(cs, held));
  if (held.empty() || a.coverage < min_coverage) {
    a.why = "no passage covers enough of the question";
    return a;
  }
  // A part that asks for a quantity, whose words the passages do use, but where no sentence that
  // speaks to it nearly as well as the best one (two thirds) holds a number: the documents
  // discuss the subject, not the figure asked for.
  for (size_t p = 0; p < parts.size() && p < evidence.size(); ++p) {
    const PartEvidence& e = evidence[p];
    if (parts[p].kind == AnswerKind::Number && e.best >= 0.25 && e.best_of_kind < 0.67 * e.best) {
      a.why = "no passage gives the number asked for in \"" + parts[p].text + "\"";
      return a;
    }
  }
  a.answerable = true;
  return a;
}

}  // namespace mmkg
