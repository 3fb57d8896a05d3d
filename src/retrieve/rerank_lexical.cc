// "lexical" reranker: how completely and how closely a passage states the question
// (text/proximity.h: the question's IDF-weighted terms together within two sentences, plus its
// word pairs as phrases), the proximity BM25 lacks.
#include "retrieve/rerank.h"
#include "index/lexical.h"
#include "text/proximity.h"

namespace mmkg {
namespace {

class LexicalReranker : public Reranker {
 public:
  explicit LexicalReranker(TermStats& stats) : stats_(stats) {}
  std::string name() const override { return "lexical"; }
  bool scores_proximity() const override { return true; }

  std::vector<double> score(const std::string& question, const std::vector<const SearchHit*>& passages,
                            std::string& why) override {
    const ProximityScorer scorer(question, stats_);
    std::vector<double> out;
    for (const SearchHit* h : passages) out.push_back(scorer.score(h->text, h->doc, h->heading_path));
    (void)why;
    return out;
  }

 private:
  TermStats& stats_;
};

}  // namespace

std::unique_ptr<Reranker> make_lexical_reranker(TermStats& stats) { return std::make_unique<LexicalReranker>(stats); }

}  // namespace mmkg
