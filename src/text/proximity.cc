#include "text/proximity.h"

#include <algorithm>

#include "text/sentences.h"
#include "text/words.h"

namespace mmkg {
namespace {

constexpr double kPhraseWeight = 0.25;  // a window with all the question's pairs gains a quarter

// Content-word stems in order (stop words dropped), for word pairs.
std::vector<std::string> content_sequence(std::string_view s) {
  std::vector<std::string> out;
  for (auto& w : words(s))
    if (!is_stopword(w)) out.push_back(stem(w));
  return out;
}

}  // namespace

ProximityScorer::ProximityScorer(std::string_view question, TermWeights& weights)
    : terms_(query_terms(question, weights)) {
  const auto qseq = content_sequence(question);
  for (size_t i = 0; i + 1 < qseq.size(); ++i) pairs_.emplace(qseq[i], qseq[i + 1]);
}

double ProximityScorer::score(std::string_view text, std::string_view doc, std::string_view heading_path) const {
  std::string place(doc.substr(0, std::min(doc.size(), doc.rfind('.'))));
  place += " ";
  place += heading_path;
  const std::set<std::string> where = stem_set(place);
  std::vector<std::set<std::string>> stems;
  std::vector<std::vector<std::string>> seqs;
  for (auto [b, e] : split_sentences(text)) {
    std::string_view s = text.substr(b, e - b);
    stems.push_back(stem_set(s));
    seqs.push_back(content_sequence(s));
  }
  double best = 0;
  for (size_t i = 0; i < stems.size(); ++i) {
    std::set<std::string> win = stems[i];
    std::vector<std::string> seq = seqs[i];
    if (i + 1 < stems.size()) {
      win.insert(stems[i + 1].begin(), stems[i + 1].end());
      seq.insert(seq.end(), seqs[i + 1].begin(), seqs[i + 1].end());
    }
    win.insert(where.begin(), where.end());
    double phrase = 0;
    if (!pairs_.empty()) {
      std::set<std::pair<std::string, std::string>> found;
      for (size_t k = 0; k + 1 < seq.size(); ++k)
        if (pairs_.count({seq[k], seq[k + 1]})) found.emplace(seq[k], seq[k + 1]);
      phrase = static_cast<double>(found.size()) / static_cast<double>(pairs_.size());
    }
    best = std::max(best, term_coverage(win, terms_) + kPhraseWeight * phrase);
  }
  return best;
}

double ProximityScorer::coverage(std::string_view words) const { return term_coverage(stem_set(words), terms_); }

}  // namespace mmkg
