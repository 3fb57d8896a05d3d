#include "retrieve/rerank.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "core/error.h"
#include "index/fusion.h"

namespace mmkg {
namespace {


// 1-based rank of each score, best first; ties keep the input order.
std::vector<size_t> ranks_of(const std::vector<double>& s) {
  std::vector<size_t> order(s.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return s[a] > s[b]; });
  std::vector<size_t> rank(s.size());
  for (size_t r = 0; r < order.size(); ++r) rank[order[r]] = r + 1;
  return rank;
}

// "A+B": the members' orders fused by reciprocal rank. A member that fails is left out.
class FusedReranker : public Reranker {
 public:
  explicit FusedReranker(std::vector<std::unique_ptr<Reranker>> parts) : parts_(std::move(parts)) {}
  std::string name() const override {
    std::string n;
    for (auto& p : parts_) n += (n.empty() ? "" : "+") + p->name();
    return n;
  }
  bool scores_proximity() const override {
    return std::any_of(parts_.begin(), parts_.end(), [](auto& p) { return p->scores_proximity(); });
  }
  std::vector<double> score(const std::string& question, const std::vector<const SearchHit*>& passages,
                            std::string& why) override {
    std::vector<double> out(passages.size(), 0.0);
    size_t ok = 0;
    for (auto& p : parts_) {
      std::string w;
      auto s = p->score(question, passages, w);
      if (s.size() != passages.size()) {
        why += (why.empty() ? "" : "; ") + p->name() + ": " + (w.empty() ? "no scores" : w);
        continue;
      }
      ++ok;
      auto rank = ranks_of(s);
      for (size_t i = 0; i < s.size(); ++i) out[i] += 1.0 / (kRrfK + static_cast<double>(rank[i]));
    }
    if (ok == 0) return {};
    return out;
  }

 private:
  std::vector<std::unique_ptr<Reranker>> parts_;
};

std::unique_ptr<Reranker> make_one(RerankerKind kind, const RerankDeps& deps) {
  switch (kind) {
    case RerankerKind::Lexical:
      if (!deps.stats) throw UsageError("--rerank lexical needs the store's term statistics");
      return make_lexical_reranker(*deps.stats);
    case RerankerKind::Embed:
      if (!deps.embedder)
        throw UsageError("--rerank embed needs the embedding model, which is unavailable (--embedder none, or the "
                         "model is not installed: bash scripts/setup.sh); use --rerank lexical or none");
      return make_embed_reranker(*deps.embedder);
    case RerankerKind::Llm:
      if (!deps.chat)
        throw UsageError("--rerank llm needs a language model; pass --llm local or --llm URL, or use --rerank lexical");
      return make_llm_reranker(*deps.chat);
  }
  return nullptr;
}

const char* kind_name(RerankerKind k) {
  switch (k) {
    case RerankerKind::Lexical: return "lexical";
    case RerankerKind::Embed: return "embed";
    case RerankerKind::Llm: return "llm";
  }
  return "lexical";
}

}  // namespace

const char* reranker_names() { return "none, lexical, embed, llm, or several joined by '+' (lexical+embed)"; }

RerankSpec RerankSpec::parse(const std::string& text) {
  RerankSpec spec = none();
  if (text.empty() || text == "none") return spec;
  size_t b = 0;
  while (b <= text.size()) {
    size_t e = text.find('+', b);
    if (e == std::string::npos) e = text.size();
    const std::string name = text.substr(b, e - b);
    const size_t before = spec.parts.size();
    for (RerankerKind k : {RerankerKind::Lexical, RerankerKind::Embed, RerankerKind::Llm})
      if (name == kind_name(k)) spec.parts.push_back(k);
    if (spec.parts.size() == before) throw UsageError("unknown reranker '" + name + "'; use " + reranker_names());
    b = e + 1;
  }
  return spec;
}

bool RerankSpec::uses(RerankerKind k) const { return std::find(parts.begin(), parts.end(), k) != parts.end(); }

std::string RerankSpec::text() const {
  if (parts.empty()) return "none";
  std::string s;
  for (RerankerKind k : parts) s += (s.empty() ? "" : "+") + std::string(kind_name(k));
  return s;
}

std::unique_ptr<Reranker> make_reranker(const RerankSpec& spec, const RerankDeps& deps) {
  if (spec.parts.empty()) return nullptr;
  std::vector<std::unique_ptr<Reranker>> parts;
  for (RerankerKind k : spec.parts) parts.push_back(make_one(k, deps));
  if (parts.size() == 1) return std::move(parts[0]);
  return std::make_unique<FusedReranker>(std::move(parts));
}

RerankReport rerank(Reranker& r, const std::string& question, std::vector<Candidate>& cands, size_t top_n,
                    double weight) {
  RerankReport rep;
  rep.reranker = r.name();
  const size_t n = std::min(top_n, cands.size());
  if (n < 2) return rep;
  auto t0 = std::chrono::steady_clock::now();
  std::vector<const SearchHit*> passages;
  for (size_t i = 0; i < n; ++i) passages.push_back(&cands[i].hit);
  std::string why;
  std::vector<double> s;
  try {
    s = r.score(question, passages, why);
  } catch (const Error& e) {  // a backend that failed after all: keep the fused order
    why = e.what();
    s.clear();
  }
  rep.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (s.size() != n) {
    rep.fallback = why.empty() ? "the reranker gave " + std::to_string(s.size()) + " scores for " +
                                     std::to_string(n) + " passages"
                               : why;
    return rep;
  }
  rep.scored = n;
  const auto rank = ranks_of(s);
  std::vector<double> blended(n);
  for (size_t i = 0; i < n; ++i) {
    cands[i].rerank = s[i];
    blended[i] = weight / (kRrfK + static_cast<double>(rank[i])) + (1.0 - weight) / (kRrfK + static_cast<double>(i + 1));
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return blended[a] > blended[b]; });
  std::vector<Candidate> head;
  head.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    rep.moved += order[i] != i;
    head.push_back(std::move(cands[order[i]]));
  }
  std::move(head.begin(), head.end(), cands.begin());
  return rep;
}

}  // namespace mmkg
