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

// "no passage mentions Stata" for the first name the question asks about (a capitalised or
// mixed-case term) that no chunk of the corpus holds, as the question writes it; empty if none.
std::string missing_name(const std::string& question, TermStats& stats, double absent) {
  const graph::Lexicon& lex = graph::Lexicon::get();
  for (const auto& name : question_names(question)) {
    bool missing = false;
    for (const auto& w : name)  // an adjective ("Danish") describes; the text may say "Denmark"
      missing = missing ||
                (w.size() > 1 && stats.chunks() > 0 && stats.idf(w) >= absent && !(lex.loaded() && lex.is_adj(w)));
    if (!missing) continue;
    std::string n;
    for (auto& w : name) n += (n.empty() ? "" : " ") + w;
    // As the question writes it ("Stata", not "stata"), when it is there in those words.
    const std::string lq = lower_ascii(question);
    if (size_t at = lq.find(n); at != std::string::npos) n = question.substr(at, n.size());
    return "no passage mentions " + n;
  }
  return "";
}

}  // namespace

const std::vector<std::string>& answer_feature_names() {
  static const std::vector<std::string> names = {"coverage",  "answer_cov",   "missing_name", "number_gap",
                                                 "part_min",  "absent_share", "best_prox",
                                                 "rare_missed", "rare_together", "sent_cos"};
  return names;
}

std::shared_ptr<const FittedModel> load_answerable(const std::string& path) {
  return FittedModel::load(path, "answerable", answer_feature_names());
}

Answerability judge_answerable(const std::string& question, const std::vector<QuestionPart>& parts,
                               const std::vector<PartEvidence>& evidence,
                               const std::vector<std::set<std::string>>& chunk_stems, TermStats& stats,
                               const AnswerSignals& signals, const LinearModel* model, double min_coverage) {
  Answerability a;
  std::vector<double>& x = a.features;
  x.assign(kAnswerFeatures, 0.0);
  auto at = [&](AnswerFeature f) -> double& { return x[static_cast<size_t>(f)]; };
  const double absent = stats.absent_idf() - 1e-9;  // a word no chunk holds has at least this idf
  const std::string name_why = missing_name(question, stats, absent);
  at(AnswerFeature::MissingName) = name_why.empty() ? 0.0 : 1.0;
  const std::vector<QueryTerm> held = held_terms(question, stats, absent);
  size_t best_chunk = chunk_stems.size();
  for (size_t c = 0; c < chunk_stems.size(); ++c)
    if (double cov = term_coverage(chunk_stems[c], held); best_chunk == chunk_stems.size() || cov > a.coverage)
      a.coverage = cov, best_chunk = c;
  at(AnswerFeature::Coverage) = a.coverage;
  // The asked detail: the question's rarest words, which the passage that answers must hold.
  if (best_chunk < chunk_stems.size() && absent > 0) {
    double missed = 0;
    for (const auto& t : held)
      if (!chunk_stems[best_chunk].count(t.stem)) missed = std::max(missed, t.idf / absent);
    at(AnswerFeature::RareMissed) = missed;
    std::vector<QueryTerm> rare = held;
    std::sort(rare.begin(), rare.end(), [](const QueryTerm& x, const QueryTerm& y) { return x.idf > y.idf; });
    if (rare.size() > 2) rare.resize(2);
    double together = 0;
    for (const auto& cs : chunk_stems) {
      size_t n = 0;
      for (const auto& t : rare) n += cs.count(t.stem);
      together = std::max(together, rare.empty() ? 0.0 : static_cast<double>(n) / static_cast<double>(rare.size()));
    }
    at(AnswerFeature::RareTogether) = together;
  }
  // A part that asks for a quantity, whose words the passages do use, and how far the best
  // sentence holding a number falls short of the best sentence for it.
  std::string number_why;
  double part_min = parts.empty() || evidence.empty() ? 0.0 : 1.0;
  for (size_t p = 0; p < parts.size() && p < evidence.size(); ++p) {
    const PartEvidence& e = evidence[p];
    part_min = std::min(part_min, e.best);
    if (parts[p].kind == AnswerKind::Number && e.best >= 0.25) {
      const double gap = 1.0 - e.best_of_kind / e.best;
      if (gap > at(AnswerFeature::NumberGap)) {
        at(AnswerFeature::NumberGap) = gap;
        number_why = "no passage gives the number asked for in \"" + parts[p].text + "\"";
      }
    }
  }
  at(AnswerFeature::PartMin) = part_min;
  size_t content = 0, absent_words = 0;
  for (auto& w : words(question)) {
    if (is_stopword(w)) continue;
    ++content;
    absent_words += stats.chunks() > 0 && stats.idf(w) >= absent;
  }
  at(AnswerFeature::AbsentShare) = content ? static_cast<double>(absent_words) / static_cast<double>(content) : 0.0;
  at(AnswerFeature::AnswerCov) = signals.answer_cov;
  at(AnswerFeature::BestProx) = signals.best_prox;
  at(AnswerFeature::SentCos) = signals.sent_cos;
  if (model) {
    a.score = model->score(x);
    a.answerable = !held.empty() && a.score >= model->threshold;
    if (!a.answerable)
      a.why = !name_why.empty()                          ? name_why
              : at(AnswerFeature::NumberGap) > 1.0 / 3.0 ? number_why
                                                         : "no passage covers enough of the question";
    return a;
  }
  // The rule (no model file): a name the corpus lacks; too little of the question in the best
  // passage; a number asked for that no sentence speaking to it as well (2/3) gives; no sentence
  // that speaks to the question (0.6 of min_coverage).
  if (!name_why.empty()) a.why = name_why;
  else if (held.empty() || a.coverage < min_coverage) a.why = "no passage covers enough of the question";
  else if (at(AnswerFeature::NumberGap) > 1.0 / 3.0) a.why = number_why;
  else if (signals.answer_cov < min_coverage * 0.6) a.why = "no sentence of the passages speaks to the question";
  a.answerable = a.why.empty();
  return a;
}

}  // namespace mmkg
