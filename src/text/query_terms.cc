#include "text/query_terms.h"

#include <algorithm>
#include <map>

#include "text/common_words.h"
#include "text/words.h"
#include "text/term_weights.h"

namespace mmkg {

std::vector<QueryTerm> query_terms(std::string_view text, TermWeights& stats) {
  std::vector<QueryTerm> q;
  std::set<std::string> seen;
  auto ws = words(text);
  const bool any_content = std::any_of(ws.begin(), ws.end(), [](auto& w) { return !is_stopword(w); });
  for (auto& w : ws) {
    if (any_content && is_stopword(w)) continue;
    std::string st = stem(w);
    if (!seen.insert(st).second) continue;
    q.push_back({st, std::max(0.05, stats.idf(w))});
  }
  return q;
}

double general_word_weight(std::string_view lower_word) {
  const auto& common = graph::rules::CommonWords::get();
  return common.loaded() && common.common(lower_word) ? kGeneralWordWeight : 1.0;
}

std::vector<QueryTerm> answer_terms(std::string_view text, TermWeights& stats) {
  std::vector<QueryTerm> q = query_terms(text, stats);
  // A stem weighs as its most specific word in the text ("fields" and "field" are one stem).
  std::map<std::string, double> weight;
  for (auto& w : words(text)) {
    auto [it, fresh] = weight.try_emplace(stem(w), 0.0);
    it->second = std::max(it->second, general_word_weight(w));
  }
  for (auto& t : q)
    if (auto it = weight.find(t.stem); it != weight.end()) t.idf *= it->second;
  return q;
}

std::vector<QueryTerm> query_terms(const std::vector<std::string>& texts, TermWeights& stats) {
  std::vector<QueryTerm> out;
  std::map<std::string, size_t> at;
  for (const auto& t : texts)
    for (auto& term : query_terms(t, stats)) {
      auto [it, fresh] = at.try_emplace(term.stem, out.size());
      if (fresh) out.push_back(term);
      else out[it->second].idf = std::max(out[it->second].idf, term.idf);
    }
  return out;
}

std::set<std::string> stem_set(std::string_view text) {
  std::set<std::string> out;
  for (auto& w : words(text)) out.insert(stem(w));
  return out;
}

double term_coverage(const std::set<std::string>& stems, const std::vector<QueryTerm>& terms) {
  double total = 0, c = 0;
  for (auto& t : terms) {
    total += t.idf;
    if (stems.count(t.stem)) c += t.idf;
  }
  return total > 0 ? c / total : 0;
}

}  // namespace mmkg
