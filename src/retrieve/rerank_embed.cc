// "embed" reranker: sentence-level late interaction with the bi-encoder (embed/sentence_vectors.h):
// each passage scored by its best sentence's cosine to the question.
#include "retrieve/rerank.h"
#include "core/error.h"
#include "embed/embedder.h"
#include "embed/sentence_vectors.h"

namespace mmkg {
namespace {

class EmbedReranker : public Reranker {
 public:
  explicit EmbedReranker(Embedder& e) : sentences_(e) {}
  std::string name() const override { return "embed"; }

  std::vector<double> score(const std::string& question, const std::vector<const SearchHit*>& passages,
                            std::string& why) override {
    std::vector<const std::string*> texts;
    for (const SearchHit* h : passages) texts.push_back(&h->text);
    try {
      const std::vector<float> q = embed_rows(sentences_.embedder(), {question}, EmbedKind::Query).at(0);
      return sentences_.best_cosines(q, texts);
    } catch (const Error& e) {
      why = std::string("embedding failed: ") + e.what();
      return {};
    }
  }

 private:
  SentenceVectors sentences_;
};

}  // namespace

std::unique_ptr<Reranker> make_embed_reranker(Embedder& embedder) { return std::make_unique<EmbedReranker>(embedder); }

}  // namespace mmkg
