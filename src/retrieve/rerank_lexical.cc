// "lexical" reranker: how completely and how closely a passage states the question. BM25 scores
// a chunk's words wherever they are; here the question's IDF-weighted terms must come together
// in a window of two consecutive sentences (the passage's document name and heading count for
// every window, as a passage's place is context for all its sentences), and the question's
// adjacent content-word pairs found as phrases add a bonus.
#include <algorithm>
#include <set>

#include "text/query_terms.h"
#include "retrieve/rerank.h"
#include "text/words.h"
#include "index/lexical.h"
#include "text/sentences.h"

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

class LexicalReranker : public Reranker {
 public:
  explicit LexicalReranker(TermStats& stats) : stats_(stats) {}
  std::string name() const override { return "lexical"; }

  std::vector<double> score(const std::string& question, const std::vector<const SearchHit*>& passages,
                            std::string& why) override {
    const auto terms = query_terms(question, stats_);
    std::set<std::pair<std::string, std::string>> pairs;
    const auto qseq = content_sequence(question);
    for (size_t i = 0; i + 1 < qseq.size(); ++i) pairs.emplace(qseq[i], qseq[i + 1]);
    std::vector<double> out;
    for (const SearchHit* h : passages) {
      const std::string& text = h->text;
      const std::set<std::string> where = stem_set(h->doc.substr(0, h->doc.rfind('.')) + " " + h->heading_path);
      std::vector<std::set<std::string>> stems;
      std::vector<std::vector<std::string>> seqs;
      for (auto [b, e] : split_sentences(text)) {
        std::string_view s = std::string_view(text).substr(b, e - b);
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
        if (!pairs.empty()) {
          std::set<std::pair<std::string, std::string>> found;
          for (size_t k = 0; k + 1 < seq.size(); ++k)
            if (pairs.count({seq[k], seq[k + 1]})) found.emplace(seq[k], seq[k + 1]);
          phrase = static_cast<double>(found.size()) / static_cast<double>(pairs.size());
        }
        best = std::max(best, term_coverage(win, terms) + kPhraseWeight * phrase);
      }
      out.push_back(best);
    }
    (void)why;
    return out;
  }

 private:
  TermStats& stats_;
};

}  // namespace

std::unique_ptr<Reranker> make_lexical_reranker(TermStats& stats) { return std::make_unique<LexicalReranker>(stats); }

}  // namespace mmkg
