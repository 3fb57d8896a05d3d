#include "agents/question.h"

#include <set>

#include "text/captions.h"
#include "text/definition.h"
#include "text/lexicon.h"
#include "text/words.h"

namespace mmkg {

namespace {
bool names_plural_of_collection(const std::string& question);
}  // namespace

Question analyse_question(const std::string& asked, const std::string& standalone, const ExpandFn& expand) {
  Question q;
  q.asked = asked;
  q.standalone = standalone.empty() ? asked : standalone;
  q.searched = expand ? expand(q.standalone) : q.standalone;
  q.parts = question_parts(q.standalone);
  if (q.parts.empty()) q.parts.push_back({q.standalone, AnswerKind::Any});
  q.definiendum = definition_target(q.standalone);
  const bool same = q.searched == q.standalone;
  for (const auto& p : same ? q.parts : question_parts(q.searched))
    q.search_parts.push_back({p.text, refers_to_antecedent(p.text)});
  q.search_definiendum = same ? q.definiendum : definition_target(q.searched);
  q.figure_keys = figure_references(q.standalone);
  q.broad = is_broad_question(q.standalone);
  q.across = q.broad || names_plural_of_collection(q.standalone);  // asks_across_documents
  q.fact = asked_fact(q.standalone);
  return q;
}

bool is_broad_question(const std::string& question) {
  const auto w = words(question);
  if (w.empty()) return false;
  static const std::set<std::string> kOverview = {"list", "overview", "summarize", "summarise", "survey",
                                                  "themes", "landscape"};
  for (const auto& x : w)
    if (kOverview.count(x)) return true;
  // "Which papers ...", "What approaches ...", "What are the methods ...": a question word
  // followed closely by a plural noun asks for several things.
  if (w[0] != "which" && w[0] != "what") return false;
  const auto& lex = graph::Lexicon::get();
  for (size_t i = 1; i < w.size() && i <= 4; ++i) {
    const std::string& x = w[i];
    if (is_stopword(x)) continue;
    const std::string s = lex.singular(x);
    if (s != x && (lex.is_noun(s) || !lex.known(s))) return true;
    if (lex.is_noun(x)) return false;  // the first noun is singular
  }
  return false;
}

namespace {

// "the packages in this collection", "papers of the corpus": a plural noun shortly before the
// word for the whole set of documents ("which paper in the collection" asks for one).
bool names_plural_of_collection(const std::string& question) {
  static const std::set<std::string> kWhole = {"collection", "corpus"};
  const auto w = words(question);
  const auto& lex = graph::Lexicon::get();
  for (size_t i = 0; i < w.size(); ++i) {
    if (!kWhole.count(w[i])) continue;
    for (size_t j = i >= 3 ? i - 3 : 0; j < i; ++j) {
      const std::string s = lex.singular(w[j]);
      if (s != w[j] && lex.is_noun(s)) return true;
    }
  }
  return false;
}

}  // namespace

bool asks_across_documents(const std::string& question) {
  return is_broad_question(question) || names_plural_of_collection(question);
}

}  // namespace mmkg
