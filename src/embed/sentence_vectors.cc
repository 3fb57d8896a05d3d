#include "embed/sentence_vectors.h"

#include <algorithm>

#include "core/hash.h"
#include "embed/embedder.h"
#include "text/sentences.h"
#include "text/words.h"

namespace mmkg {
namespace {

constexpr size_t kMinSentenceBytes = 20;  // headings and labels alone say little
constexpr size_t kMaxCached = 100000;     // about 150 MB of 384-dim vectors at most

}  // namespace

std::vector<double> SentenceVectors::best_cosines(const std::vector<float>& query,
                                                  const std::vector<const std::string*>& texts) {
  // Each text's sentences (the whole text when it has none long enough).
  std::vector<std::vector<uint64_t>> keys(texts.size());
  std::vector<std::string> todo;
  std::vector<uint64_t> todo_keys;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t p = 0; p < texts.size(); ++p) {
      const std::string& text = *texts[p];
      std::vector<std::string> sents;
      for (auto [b, e] : split_sentences(text))
        if (e - b >= kMinSentenceBytes) sents.push_back(collapse_ws(std::string_view(text).substr(b, e - b)));
      if (sents.empty() && !collapse_ws(text).empty()) sents.push_back(collapse_ws(text));
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
  std::vector<std::vector<float>> rows;
  if (!todo.empty()) rows = embed_rows(emb_, todo, EmbedKind::Document);
  std::vector<double> out;
  std::lock_guard<std::mutex> lock(mu_);
  std::unordered_map<uint64_t, std::vector<float>> fresh;
  for (size_t i = 0; i < rows.size() && i < todo_keys.size(); ++i) fresh[todo_keys[i]] = std::move(rows[i]);
  for (auto& ks : keys) {
    double best = -1;
    for (uint64_t k : ks) {
      auto f = fresh.find(k);
      if (f != fresh.end()) {
        best = std::max(best, dot(query, f->second));
        continue;
      }
      auto it = cache_.find(k);
      if (it != cache_.end()) best = std::max(best, dot(query, it->second));
    }
    out.push_back(best);
  }
  if (cache_.size() + fresh.size() > kMaxCached) cache_.clear();
  for (auto& [k, v] : fresh) cache_[k] = std::move(v);
  return out;
}

}  // namespace mmkg
