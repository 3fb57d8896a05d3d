#include "agents/planner.h"

#include "agents/definition.h"

#include <algorithm>

#include "core/text.h"
#include "index/lexical.h"

namespace mmkg {

Plan plan_rules(const std::string& question, TermStats& stats, size_t max_phrases) {
  Plan p;
  p.subqueries.push_back(question);
  p.matches.emplace_back();
  auto ws = words(question);
  struct Phrase {
    std::string text;
    double weight;
  };
  std::vector<Phrase> phrases;
  std::vector<std::string> run;
  auto flush = [&]() {
    if (run.empty()) return;
    Phrase ph{"", 0};
    for (auto& w : run) {
      if (!ph.text.empty()) ph.text += ' ';
      ph.text += w;
      ph.weight += stats.idf(w);
    }
    phrases.push_back(std::move(ph));
    run.clear();
  };
  for (auto& w : ws) {
    if (is_stopword(w)) flush();
    else run.push_back(w);
  }
  flush();
  std::stable_sort(phrases.begin(), phrases.end(), [](const Phrase& a, const Phrase& b) { return a.weight > b.weight; });
  std::string qnorm = collapse_ws(lower_ascii(question));
  for (auto& ph : phrases) {
    if (p.subqueries.size() > max_phrases) break;
    if (ph.text == qnorm) continue;
    if (std::find(p.subqueries.begin(), p.subqueries.end(), ph.text) != p.subqueries.end()) continue;
    p.subqueries.push_back(ph.text);
    p.matches.emplace_back();
  }
  // A definition question also looks for "X is/are/refers to/means ..." with a little slack
  // ("the attention mechanism is ...").
  p.definiendum = definition_target(question);
  if (!p.definiendum.empty()) {
    std::string x = "\"" + p.definiendum + "\"";
    std::string m;
    for (const char* verb : {"is", "are", "refers", "means", "denotes"})
      m += std::string(m.empty() ? "" : " OR ") + "NEAR(" + x + " \"" + verb + "\", 2)";
    p.subqueries.push_back(p.definiendum + " is ...");
    p.matches.push_back(m);
  }
  return p;
}

}  // namespace mmkg
