// "embed" reranker: sentence-level late interaction with the bi-encoder. A chunk vector averages
// everything the chunk says; the sentence that answers the question is diluted by the rest. Each
// passage is scored by its best sentence's cosine to the question. Sentence vectors are cached
// (by the sentence's hash) across questions, so a chunk seen before costs nothing.
#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "retrieve/rerank.h"
#include "core/error.h"
#include "core/hash.h"
#include "text/words.h"
#include "embed/embedder.h"
#include "text/sentences.h"

namespace mmkg {
namespace {

constexpr size_t kMinSentenceBytes = 20;    // headings and labels alone say little
constexpr size_t kMaxCached = 100000;       // about 150 MB of 384-dim vectors at most

class EmbedReranker : public Reranker {
 public:
  explicit EmbedReranker(Embedder& e) : emb_(e) {}
  std::string name() const override { return "embed"; }

  std::vector<double> score(const std::string& question, const std::vector<const SearchHit*>& passages,
                            std::string& why) override {
    // Each passage's sentences (the whole text when it has none long enough).
    std::vector<std::vector<uint64_t>> keys(passages.size());
    std::vector<std::string> todo;
    std::vector<uint64_t> todo_keys;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (size_t p = 0; p < passages.size(); ++p) {
        const std::string& text = passages[p]->text;
        std::vector<std::string> sents;
        for (auto [b, e] : split_sentences(text))
          if (e - b >= kMinSentenceBytes) sents.push_back(collapse_ws(std::string_view(text).substr(b, e - b)));
        if (sents.empty()) sents.push_back(collapse_ws(text));
        for (auto& s : sents) {
          const uint64_t k = hash64(s);
          keys[p].push_back(k);
          if (!cache_.count(k) && std::find(todo_keys.begin(), todo_keys.end(), k) == todo_keys.end()) {
            todo.push_back(std::move(s));
            todo_keys.push_back(k);
          }
        }
      }
    }
    std::vector<float> q;
    std::vector<std::vector<float>> rows;
    try {
      q = embed_rows(emb_, {question}, EmbedKind::Query).at(0);
      if (!todo.empty()) rows = embed_rows(emb_, todo, EmbedKind::Document);
    } catch (const Error& e) {
      why = std::string("embedding failed: ") + e.what();
      return {};
    }
    std::vector<double> out;
    std::lock_guard<std::mutex> lock(mu_);
    std::unordered_map<uint64_t, std::vector<float>> fresh;
    for (size_t i = 0; i < rows.size() && i < todo_keys.size(); ++i) fresh[todo_keys[i]] = std::move(rows[i]);
    for (auto& ks : keys) {
      double best = -1;
      for (uint64_t k : ks) {
        auto f = fresh.find(k);
        if (f != fresh.end()) {
          best = std::max(best, dot(q, f->second));
          continue;
        }
        auto it = cache_.find(k);
        if (it != cache_.end()) best = std::max(best, dot(q, it->second));
      }
      out.push_back(best);
    }
    if (cache_.size() + fresh.size() > kMaxCached) cache_.clear();
    for (auto& [k, v] : fresh) cache_[k] = std::move(v);
    return out;
  }

 private:
  Embedder& emb_;
  std::mutex mu_;
  std::unordered_map<uint64_t, std::vector<float>> cache_;
};

}  // namespace

std::unique_ptr<Reranker> make_embed_reranker(Embedder& embedder) { return std::make_unique<EmbedReranker>(embedder); }

}  // namespace mmkg
