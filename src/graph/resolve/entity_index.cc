// Entity linking: question phrases → entities.
//
// The question's words (core/text.h words(): lower-cased, hyphens split) give every n-gram of
// up to 6 words. Per n-gram, in order: its name_key() equals an entity's name key (exact), or one
// of its alias keys (alias); else, for an n-gram that starts and ends with a content word and has
// at least 6 letters, a typo of a name or alias key (fuzzy, below). Matches are taken longest
// first; a match inside an accepted longer one is dropped ("multi-head attention" suppresses
// "attention"). Question words left uncovered then go to the embedder: runs of content words and
// their sub-phrases (up to 4 words) are embedded and compared with every entity name vector
// (one product by embed/gemm_f32.h, whose cosines do not depend on how many phrases are compared
// at once); cosine >= 0.80 links.
//
// Fuzzy matching models typing errors, not meaning: the two keys have the same number of words and
// every differing word has >= 5 letters, no digits ("GPT 3" is not a typo of "GPT 4"), the same
// first letter ("encoder" is not a typo of "decoder"), is not itself an English word (WordNet:
// "modal" is not a typo of "model"), and is within optimal-string-alignment distance 1 (2 for
// words of 9+ letters); and the whole keys are >= 0.8 similar (1 - distance / length). Spacing
// variants ("feedforward" / "feed forward") match when the keys without spaces are within
// distance 1. Candidates come from a character-trigram index; trigrams shared by more than 5% of
// the keys are too common to select with and are not used for candidate generation; and only
// phrases with a word no key contains are tried (a typo makes an unknown word).
// link() and lookup() only read the index: they are thread-safe when the EmbedNames is.

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "embed/gemm_f32.h"
#include "text/words.h"
#include "graph/resolve/acronym.h"
#include "text/lexicon.h"
#include "graph/resolve/resolve.h"

namespace mmkg::graph {
namespace {

constexpr int kMaxNgram = 6;
constexpr double kFuzzyMin = 0.80;
constexpr double kEmbedMin = 0.80;
constexpr int kMaxEmbedPhrases = 16;
constexpr int kMaxEmbedPhraseWords = 4;

/// Optimal string alignment distance (Levenshtein plus adjacent transpositions), bytes.
int osa_distance(const std::string& a, const std::string& b) {
  const size_t n = a.size(), m = b.size();
  std::vector<int> prev2(m + 1), prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= m; ++j) {
      int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[m];
}

bool has_digit(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// The typo model of the file comment. Returns the similarity, or 0 when `q` is no typo of `k`.
double typo_similarity(const std::string& q, const std::string& k) {
  if (q == k) return 1;
  std::string cq = key_compact(q), ck = key_compact(k);
  double len = static_cast<double>(std::max(cq.size(), ck.size()));
  std::vector<std::string> wq = key_words(q), wk = key_words(k);
  if (wq.size() != wk.size()) {
    if (has_digit(cq) || has_digit(ck)) return cq == ck ? 1 - 0.5 / len : 0;
    int d = osa_distance(cq, ck);
    return d <= 1 ? 1 - std::max(d, 1) * 0.5 / len : 0;  // spacing variant, at most one typo
  }
  const Lexicon& lex = Lexicon::get();
  int total = 0;
  for (size_t i = 0; i < wq.size(); ++i) {
    if (wq[i] == wk[i]) continue;
    const std::string& a = wq[i];
    const std::string& b = wk[i];
    if (a.size() < 5 || b.size() < 5 || a[0] != b[0] || has_digit(a) || has_digit(b)) return 0;
    if (lex.loaded() && lex.known(a)) return 0;  // a real word, not a typo
    int d = osa_distance(a, b);
    if (d > (std::max(a.size(), b.size()) >= 9 ? 2 : 1)) return 0;
    total += d;
  }
  double sim = 1 - total / len;
  return sim >= kFuzzyMin ? sim : 0;
}

/// An embedding match may not swap one modifier for another under the same head word: cosine
/// between short names with a shared head is high for different things of one kind
/// ("cross-attention" / "cross-modal attention", "additive attention" / "efficient attention").
/// Names with the same head must also pass the resolver's lexical test (lexically_compatible:
/// 80% of the content stems shared); names with different heads are left to the cosine.
bool embedding_allowed(const std::string& qkey, const std::string& ekey) {
  std::vector<std::string> a = key_words(qkey), b = key_words(ekey);
  if (a.empty() || b.empty()) return false;
  if (stem(a.back()) != stem(b.back())) return true;
  return lexically_compatible(qkey, ekey);
}

/// An acronym whose key is an English word ("US" = unconditional stimuli, "GO" = Gene Ontology)
/// links only when the question writes it in capitals: "tell us" must not link "US".
bool needs_caps(const std::string& surface, const std::string& key) {
  if (!looks_like_acronym(surface) || key.find(' ') != std::string::npos) return false;
  const Lexicon& lex = Lexicon::get();
  return is_stopword(key) || (lex.loaded() && lex.known(key));
}

int upper_letters(const std::string& s) {
  return static_cast<int>(std::count_if(s.begin(), s.end(), [](char c) { return c >= 'A' && c <= 'Z'; }));
}

/// words() without the lower-casing (same token boundaries).
std::vector<std::string> cased_words(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    bool word = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
    if (c == 0xE2 && i + 1 < s.size() &&
        (static_cast<unsigned char>(s[i + 1]) == 0x80 || static_cast<unsigned char>(s[i + 1]) == 0x81)) {
      if (!cur.empty()) out.push_back(std::move(cur)), cur.clear();
      i += 2;
      continue;
    }
    if (word) cur.push_back(static_cast<char>(c));
    else if (!cur.empty()) out.push_back(std::move(cur)), cur.clear();
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

uint32_t pack3(const std::string& s, size_t i) {
  return static_cast<uint32_t>(static_cast<unsigned char>(s[i])) << 16 |
         static_cast<uint32_t>(static_cast<unsigned char>(s[i + 1])) << 8 | static_cast<unsigned char>(s[i + 2]);
}

std::vector<uint32_t> trigrams(const std::string& key) {
  std::string p = "$" + key + "$";
  std::vector<uint32_t> out;
  for (size_t i = 0; i + 3 <= p.size(); ++i) out.push_back(pack3(p, i));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

size_t letters(const std::string& key) {
  size_t n = 0;
  for (char c : key) n += c != ' ';
  return n;
}

/// A question span [begin, end) of words with its match.
struct Match {
  int begin = 0, end = 0;
  int entity = 0;
  std::string how;
  double score = 0;
  int how_rank = 0;  // exact 0, alias 1, fuzzy 2, embedding 3
};

class MemoryEntityIndex : public EntityIndex {
 public:
  MemoryEntityIndex(GraphStore& store, const EmbedNames& embed) : embed_(embed) {
    std::vector<Entity> all = store.entities();
    ents_.reserve(all.size());
    std::unordered_map<std::string, int> fkey_index;
    auto add_fuzzy_key = [&](const std::string& key, int e) {
      auto [it, fresh] = fkey_index.try_emplace(key, static_cast<int>(fkeys_.size()));
      if (fresh) fkeys_.push_back(key), fkey_ents_.emplace_back();
      auto& v = fkey_ents_[it->second];
      if (std::find(v.begin(), v.end(), e) == v.end()) v.push_back(e);
    };
    for (Entity& e : all) {
      int idx = static_cast<int>(ents_.size());
      std::string nk = name_key(e.name);
      if (!nk.empty()) by_name_[nk].push_back({idx, needs_caps(e.name, nk)}), add_fuzzy_key(nk, idx);
      for (const std::string& a : e.aliases) {
        std::string ak = name_key(a);
        if (ak.empty() || ak == nk) continue;
        auto& v = by_alias_[ak];
        auto same = [&](const Hit& h) { return h.entity == idx; };
        if (auto it = std::find_if(v.begin(), v.end(), same); it != v.end()) it->needs_caps &= needs_caps(a, ak);
        else v.push_back({idx, needs_caps(a, ak)});
        if (!needs_caps(a, ak)) add_fuzzy_key(ak, idx);
      }
      std::string ek = name_key(e.name);
      ents_.push_back({std::move(e.id), std::move(e.name), e.score, std::move(ek)});
    }
    for (int f = 0; f < static_cast<int>(fkeys_.size()); ++f) {
      fkey_trigrams_.push_back(trigrams(fkeys_[f]));
      fkey_letters_.push_back(letters(fkeys_[f]));
      for (std::string& w : key_words(fkeys_[f])) vocabulary_.insert(std::move(w));
      for (uint32_t t : fkey_trigrams_.back()) postings_[t].push_back(f);
    }
    common_cap_ = std::max<size_t>(64, fkeys_.size() / 20);
    // Name vectors, in batches (an empty answer means no embedder).
    if (embed_ && !ents_.empty()) {
      const size_t batch = 512;
      for (size_t i = 0; i < ents_.size(); i += batch) {
        std::vector<std::string> names;
        for (size_t j = i; j < std::min(ents_.size(), i + batch); ++j) names.push_back(ents_[j].name);
        std::vector<std::vector<float>> v = embed_(names);
        if (v.size() != names.size() || v[0].empty()) {
          vectors_.clear();
          dim_ = 0;
          break;
        }
        if (dim_ == 0) dim_ = static_cast<int>(v[0].size()), vectors_.reserve(ents_.size() * dim_);
        for (auto& row : v) {
          if (static_cast<int>(row.size()) != dim_) row.resize(dim_, 0.f);
          vectors_.insert(vectors_.end(), row.begin(), row.end());
        }
      }
    }
  }

  std::vector<EntityLink> link(const std::string& question, int max_links) override {
    std::vector<std::string> cased = cased_words(question);
    std::vector<std::string> ws;
    for (const std::string& w : cased) ws.push_back(lower_ascii(w));
    const int n = static_cast<int>(ws.size());
    std::vector<bool> content(n);
    for (int i = 0; i < n; ++i) content[i] = !is_stopword(ws[i]);

    // Lexical candidates per span, longest first (then left to right).
    std::vector<Match> accepted;
    auto contained = [&](int b, int e) {
      for (const Match& m : accepted)
        if (m.begin <= b && e <= m.end) return true;
      return false;
    };
    for (int len = std::min(n, kMaxNgram); len >= 1; --len) {
      for (int b = 0; b + len <= n; ++b) {
        int e = b + len;
        bool any_content = false;
        for (int i = b; i < e; ++i) any_content |= content[i];
        if (!any_content || contained(b, e)) continue;
        std::string phrase = join(ws, b, e);
        std::string key = name_key(phrase);
        int caps = 0;
        for (int i = b; i < e; ++i) caps += upper_letters(cased[i]);
        std::vector<Match> found = match_key(key, content[b] && content[e - 1], false, caps >= 2);
        for (Match& m : found) m.begin = b, m.end = e, accepted.push_back(m);
      }
    }

    // Embedding matches for the content words left uncovered.
    if (dim_ > 0) embed_uncovered(ws, content, accepted);

    std::vector<EntityLink> out;
    std::stable_sort(accepted.begin(), accepted.end(), [&](const Match& a, const Match& b) {
      if (a.score != b.score) return a.score > b.score;
      if (a.end - a.begin != b.end - b.begin) return a.end - a.begin > b.end - b.begin;
      if (a.how_rank != b.how_rank) return a.how_rank < b.how_rank;
      if (ents_[a.entity].score != ents_[b.entity].score) return ents_[a.entity].score > ents_[b.entity].score;
      return a.begin < b.begin;
    });
    std::set<int> seen;
    for (const Match& m : accepted) {
      if (static_cast<int>(out.size()) >= max_links) break;
      if (!seen.insert(m.entity).second) continue;
      out.push_back({ents_[m.entity].id, ents_[m.entity].name, join(ws, m.begin, m.end), m.how, m.score});
    }
    return out;
  }

  std::vector<EntityLink> lookup(const std::string& name, int max_results) override {
    std::string key = name_key(name);
    std::vector<Match> found = match_key(key, true, /*all_fuzzy=*/true, upper_letters(name) >= 2);
    if (found.empty() && dim_ > 0) {
      std::vector<std::vector<float>> v = embed_({name});
      if (v.size() == 1 && static_cast<int>(v[0].size()) == dim_) {
        std::vector<float> scores = cosines(v[0].data(), 1);
        for (int i = 0; i < static_cast<int>(scores.size()); ++i)
          if (scores[i] >= kEmbedMin && embedding_allowed(key, ents_[i].key))
            found.push_back({0, 0, i, "embedding", scores[i], 3});
      }
    }
    std::stable_sort(found.begin(), found.end(), [](const Match& a, const Match& b) {
      return a.score != b.score ? a.score > b.score : a.how_rank < b.how_rank;
    });
    std::vector<EntityLink> out;
    std::set<int> seen;
    for (const Match& m : found) {
      if (static_cast<int>(out.size()) >= max_results) break;
      if (seen.insert(m.entity).second) out.push_back({ents_[m.entity].id, ents_[m.entity].name, name, m.how, m.score});
    }
    return out;
  }

 private:
  struct Ent {
    std::string id;
    std::string name;
    double score;
    std::string key;  // name_key(name)
  };

  static std::string join(const std::vector<std::string>& ws, int b, int e) {
    std::string s;
    for (int i = b; i < e; ++i) {
      if (i > b) s += ' ';
      s += ws[i];
    }
    return s;
  }

  /// Exact, else alias, else (when `fuzzy_ok`) fuzzy matches of one key. With `all_fuzzy`, every
  /// fuzzy candidate is returned (lookup); else only the best ones.
  std::vector<Match> match_key(const std::string& key, bool fuzzy_ok, bool all_fuzzy, bool written_in_caps) {
    std::vector<Match> out;
    if (key.empty()) return out;
    if (auto it = by_name_.find(key); it != by_name_.end())
      for (const Hit& h : it->second)
        if (written_in_caps || !h.needs_caps) out.push_back({0, 0, h.entity, "exact", 1.0, 0});
    if (auto it = by_alias_.find(key); it != by_alias_.end())
      for (const Hit& h : it->second)
        if ((written_in_caps || !h.needs_caps) &&
            std::none_of(out.begin(), out.end(), [&](const Match& m) { return m.entity == h.entity; }))
          out.push_back({0, 0, h.entity, "alias", 1.0, 1});
    if (!out.empty() || !fuzzy_ok || letters(key) < 6) return out;
    // A typo makes a word the index does not know; phrases of known words are not typos.
    std::vector<std::string> kw = key_words(key);
    if (std::all_of(kw.begin(), kw.end(), [&](const std::string& w) { return vocabulary_.count(w) > 0; })) return out;
    // Fuzzy: candidates sharing enough selective trigrams, then the typo model. A typo of d edits
    // destroys at most 3d trigrams: allow 2 edits' worth (at least one trigram shared). By
    // pigeonhole a candidate shares one of the (selective - need + 1) rarest selective trigrams,
    // so only those posting lists are read (prefix filtering).
    std::vector<uint32_t> tq = trigrams(key);
    std::vector<std::pair<size_t, uint32_t>> sel;  // (posting length, trigram)
    for (uint32_t t : tq) {
      auto it = postings_.find(t);
      size_t len = it == postings_.end() ? 0 : it->second.size();
      if (len <= common_cap_) sel.push_back({len, t});
    }
    const int selective = static_cast<int>(sel.size());
    const size_t qlen = letters(key);
    const int need = std::max(1, selective - 6);
    std::sort(sel.begin(), sel.end());
    std::vector<uint32_t> sel_set;
    for (const auto& [len, t] : sel) sel_set.push_back(t);
    std::sort(sel_set.begin(), sel_set.end());
    std::vector<int> touched;
    for (int i = 0; i < selective - need + 1; ++i) {
      if (sel[i].first == 0) continue;
      const std::vector<int>& p = postings_.at(sel[i].second);
      touched.insert(touched.end(), p.begin(), p.end());
    }
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    double best = 0;
    std::vector<std::pair<double, int>> hits;
    for (int f : touched) {
      const std::vector<uint32_t>& tk = fkey_trigrams_[f];
      int common = 0;
      for (size_t a = 0, b = 0; a < sel_set.size() && b < tk.size();) {
        if (sel_set[a] == tk[b]) ++common, ++a, ++b;
        else if (sel_set[a] < tk[b]) ++a;
        else ++b;
      }
      if (common < need) continue;
      // Cheap bounds of the typo model first: same first letter, lengths within 20%.
      const std::string& k = fkeys_[f];
      if (k[0] != key[0] || std::abs(static_cast<double>(fkey_letters_[f]) - static_cast<double>(qlen)) >
                                 (1 - kFuzzyMin) * std::max<double>(fkey_letters_[f], qlen) + 1e-9)
        continue;
      double s = typo_similarity(key, k);
      if (s > 0) hits.push_back({s, f}), best = std::max(best, s);
    }
    for (const auto& [s, f] : hits) {
      if (!all_fuzzy && s < best) continue;
      for (int e : fkey_ents_[f])
        if (std::none_of(out.begin(), out.end(), [&](const Match& m) { return m.entity == e; }))
          out.push_back({0, 0, e, "fuzzy", s, 2});
    }
    return out;
  }

  /// Embeds the runs of uncovered content words (and their sub-phrases) and links those whose
  /// best entity name has cosine >= kEmbedMin, longest first, without overlaps.
  void embed_uncovered(const std::vector<std::string>& ws, const std::vector<bool>& content,
                       std::vector<Match>& accepted) {
    const int n = static_cast<int>(ws.size());
    std::vector<bool> covered(n, false);
    for (const Match& m : accepted)
      for (int i = m.begin; i < m.end; ++i) covered[i] = true;
    std::vector<std::pair<int, int>> spans;
    for (int b = 0; b < n;) {
      if (covered[b] || !content[b]) {
        ++b;
        continue;
      }
      int e = b;
      while (e < n && !covered[e] && content[e]) ++e;
      for (int len = std::min(e - b, kMaxEmbedPhraseWords); len >= 1; --len)
        for (int s = b; s + len <= e; ++s)
          if (len > 1 || (ws[s].size() >= 3 && !has_digit(ws[s]))) spans.push_back({s, s + len});
      b = e;
    }
    std::stable_sort(spans.begin(), spans.end(),
                     [](const auto& x, const auto& y) { return x.second - x.first > y.second - y.first; });
    if (static_cast<int>(spans.size()) > kMaxEmbedPhrases) spans.resize(kMaxEmbedPhrases);
    if (spans.empty()) return;
    std::vector<std::string> phrases;
    for (const auto& [b, e] : spans) phrases.push_back(join(ws, b, e));
    std::vector<std::vector<float>> q = embed_(phrases);
    if (q.size() != phrases.size()) return;
    const int p = static_cast<int>(phrases.size()), ne = static_cast<int>(ents_.size());
    std::vector<float> qm(static_cast<size_t>(p) * dim_, 0.f);
    for (int i = 0; i < p; ++i)
      std::copy_n(q[i].begin(), std::min<size_t>(q[i].size(), dim_), qm.begin() + static_cast<size_t>(i) * dim_);
    const std::vector<float> scores = cosines(qm.data(), p);  // [ne, p]
    std::vector<Match> found;
    for (int i = 0; i < p; ++i) {
      auto score = [&](int k) { return scores[static_cast<size_t>(k) * p + i]; };
      const std::string pkey = name_key(phrases[i]);
      int best = -1;
      for (int k = 0; k < ne; ++k)
        if (score(k) >= kEmbedMin && (best < 0 || score(k) > score(best)) && embedding_allowed(pkey, ents_[k].key))
          best = k;
      if (best >= 0) found.push_back({spans[i].first, spans[i].second, best, "embedding", score(best), 3});
    }
    // Longest first (spans are sorted so), then better cosine; no overlaps among these.
    std::stable_sort(found.begin(), found.end(), [](const Match& a, const Match& b) {
      if (a.end - a.begin != b.end - b.begin) return a.end - a.begin > b.end - b.begin;
      return a.score > b.score;
    });
    std::vector<bool> taken(n, false);
    for (const Match& m : found) {
      bool free = true;
      for (int i = m.begin; i < m.end; ++i) free &= !taken[i];
      if (!free) continue;
      for (int i = m.begin; i < m.end; ++i) taken[i] = true;
      accepted.push_back(m);
    }
  }

  // The cosine of every entity name vector with each of the p vectors q[p, dim_]: [entities, p].
  std::vector<float> cosines(const float* q, int p) const {
    f32::Packed qp;
    f32::pack_rows(q, p, dim_, dim_, qp);
    std::vector<float> out(ents_.size() * static_cast<size_t>(p));
    f32::gemm(f32::best_isa(), vectors_.data(), static_cast<int>(ents_.size()), dim_, qp, out.data(), p, {});
    return out;
  }

  EmbedNames embed_;
  std::vector<Ent> ents_;
  struct Hit {
    int entity;
    bool needs_caps;  // an acronym spelling an English word ("US", "GO"): links only written so
  };
  std::unordered_map<std::string, std::vector<Hit>> by_name_, by_alias_;
  std::vector<std::string> fkeys_;
  std::vector<std::vector<int>> fkey_ents_;
  std::unordered_map<uint32_t, std::vector<int>> postings_;
  size_t common_cap_ = 64;
  std::vector<std::vector<uint32_t>> fkey_trigrams_;  // sorted
  std::vector<size_t> fkey_letters_;
  std::unordered_set<std::string> vocabulary_;  // the words of every key
  int dim_ = 0;
  std::vector<float> vectors_;  // ents_.size() * dim_, row-major
};

}  // namespace

std::unique_ptr<EntityIndex> EntityIndex::build(GraphStore& store, const EmbedNames& embed) {
  return std::make_unique<MemoryEntityIndex>(store, embed);
}

}  // namespace mmkg::graph
