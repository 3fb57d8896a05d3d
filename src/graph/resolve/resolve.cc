// Entity resolution: one document's term candidates → entities, mentions and relations by id.
//
// 1. Group by name_key(): case, plural, hyphen and spacing variants share a key; keys equal once
//    their spaces are removed ("feed-forward" / "feedforward") join too.
// 2. Acronyms join their expansions: a definition in the text (TermCandidate::expansion, trimmed
//    to the words the acronym abbreviates, see trim_expansion); else an existing entity having the
//    acronym as an alias (step 3); else, for acronyms of 3+ letters, the ONE multi-word term of the
//    same document whose initials spell it (is_acronym_of, strict). Two-letter acronyms are never
//    inferred: too many phrases share two initials.
// 3. Each group is matched against the store by its keys (find_by_key). A group that defines its
//    acronym does not take an existing entity through the acronym alone when that entity already
//    has a different expansion ("MHA" = "Mental Health Act" stays apart from multi-head attention).
// 4. Groups still unmatched may merge with an existing entity or with each other when the names'
//    embeddings have cosine >= ResolveOptions::merge_cosine (0.90) AND the names pass the lexical
//    checks: same head word (last word, stemmed) and at least 80% of the content-word stems shared
//    (so names of up to four content words must use the same words up to morphology:
//    "positional encoding" / "position encoding"). The head rule keeps "attention" apart from
//    "attention sink" and "attention mask" whatever the cosine; the 80% rule keeps a modifier from
//    merging a subtype with its parent ("language model" / "large language model"). 0.90 is high
//    on purpose: all-MiniLM-L6-v2 gives 0.8-0.9 to related-but-different short names, and a wrong
//    merge is worse than a missed one (linking still reaches both by name).
#include "graph/resolve/resolve.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <unordered_map>

#include "embed/embedder.h"
#include "core/hash.h"
#include "text/words.h"
#include "graph/resolve/acronym.h"
#include "text/lexicon.h"

namespace mmkg::graph {
namespace {

class UnionFind {
 public:
  int add() {
    parent_.push_back(static_cast<int>(parent_.size()));
    return parent_.back();
  }
  int find(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  /// Joins the sets; the smaller index becomes the root (keeps results independent of call order).
  void unite(int a, int b) {
    a = find(a), b = find(b);
    if (a == b) return;
    if (b < a) std::swap(a, b);
    parent_[b] = a;
  }

 private:
  std::vector<int> parent_;
};

/// A term candidate with where it was read.
struct Cand {
  const TermCandidate* term;
  size_t chunk;
  int key;  // index into keys
  bool acronym;
};

/// One group of keys that name the same thing (before the store is consulted).
struct Group {
  std::vector<int> keys;
  std::map<std::string, int> surfaces;   // non-acronym surface → count
  std::map<std::string, int> acronyms;   // acronym surface → count
  std::set<std::string> expansion_keys;  // keys of text-defined expansions
  std::map<std::string, int> types;      // candidate type → votes
  std::string description;
  double score = 0;
  std::string existing;  // id of the stored entity it resolves to, if any
};

/// The display name among surface counts: most frequent, then capitalised, then singular, then
/// alphabetical (so the choice does not depend on the order of the document).
/// A name's usual case beats frequency when the text writes it at least a quarter of the time
/// with a word of two or more capitals (BERT, GPT-4, FlashAttention, RoPE): lower-case copies come
/// from URLs, model ids and code ("bert-base"), not from how authors name the thing.
std::string pick_name(const std::map<std::string, int>& counts) {
  std::string best;
  int total = 0;
  for (const auto& [s, n] : counts) total += n;
  std::tuple<bool, int, bool, bool> best_rank{false, -1, false, false};
  for (const auto& [s, n] : counts) {
    bool cap = !s.empty() && s[0] >= 'A' && s[0] <= 'Z';
    std::vector<std::string> kw = key_words(name_key(s));
    std::vector<std::string> sw = words(s);
    bool singular = !kw.empty() && !sw.empty() && kw.back() == sw.back();
    bool cased = false;  // a word (between spaces and hyphens) with 2+ capitals
    int caps = 0;
    for (char c : s) {
      if (c == ' ' || c == '-') caps = 0;
      else if (c >= 'A' && c <= 'Z' && ++caps >= 2) cased = true;
    }
    std::tuple<bool, int, bool, bool> rank{cased && n * 4 >= total, n, cap, singular};
    if (rank > best_rank) best_rank = rank, best = s;  // strict: the alphabetically first wins ties
  }
  return best;
}

}  // namespace

/// Same head word and mostly the same content words (see the file comment).
bool lexically_compatible(const std::string& ka, const std::string& kb) {
  if (ka.empty() || kb.empty()) return false;
  if (ka == kb || key_compact(ka) == key_compact(kb)) return true;
  std::vector<std::string> wa = key_words(ka), wb = key_words(kb);
  if (stem(wa.back()) != stem(wb.back())) return false;
  std::set<std::string> sa, sb;
  for (const auto& w : wa)
    if (!is_stopword(w)) sa.insert(stem(w));
  for (const auto& w : wb)
    if (!is_stopword(w)) sb.insert(stem(w));
  if (sa.empty() || sb.empty()) return false;
  size_t common = 0;
  for (const auto& s : sa) common += sb.count(s);
  return common * 5 >= 4 * std::max(sa.size(), sb.size());
}

namespace {

/// The type with the most votes (the first of equals in map order); `fallback` when none has a
/// vote. With `specific_only`, "concept" does not compete (graph_types.h untyped).
std::string most_voted_type(const std::map<std::string, int>& votes, bool specific_only, const std::string& fallback) {
  std::string best_type = fallback;
  int best = 0;
  for (const auto& [t, n] : votes)
    if (!(specific_only && untyped(t)) && n > best) best = n, best_type = t;
  return best_type;
}

/// The number of letters and digits of an acronym, a plural "s" not counted.
size_t acronym_length(const std::string& key) { return key_compact(key).size(); }

class Resolver {
 public:
  Resolver(const std::vector<ChunkExtraction>& doc, const std::string& doc_id, GraphStore& store,
           const EmbedNames& embed, const ResolveOptions& options, NameCatalog& catalog)
      : doc_(doc), doc_id_(doc_id), store_(store), embed_(embed), options_(options), catalog_(catalog) {}

  GraphDelta run() {
    collect();
    join_expansions();
    join_compact_keys();
    infer_acronyms();
    build_groups();
    match_store();
    merge_by_embedding();
    return emit();
  }

 private:
  int key_id(const std::string& key) {
    auto [it, fresh] = key_index_.try_emplace(key, static_cast<int>(keys_.size()));
    if (fresh) {
      keys_.push_back(key);
      key_is_acronym_.push_back(false);
      key_surface_.push_back("");
      uf_.add();
    }
    return it->second;
  }

  const std::string& key_of(const std::string& surface) {
    auto it = key_cache_.find(surface);
    if (it == key_cache_.end()) it = key_cache_.emplace(surface, name_key(surface)).first;
    return it->second;
  }

  const std::vector<std::string>& stored(const std::string& key) {
    auto it = store_hits_.find(key);
    if (it == store_hits_.end()) it = store_hits_.emplace(key, store_.find_by_key(key)).first;
    return it->second;
  }

  void collect() {
    for (size_t c = 0; c < doc_.size(); ++c) {
      for (const TermCandidate& t : doc_[c].terms) {
        const std::string& key = key_of(t.surface);
        if (key.empty()) continue;
        bool acr = t.kind == "acronym" || t.type == "acronym" || looks_like_acronym(t.surface);
        int k = key_id(key);
        if (acr) key_is_acronym_[k] = true;
        if (key_surface_[k].empty()) key_surface_[k] = t.surface;
        cands_.push_back({&t, c, k, acr});
      }
    }
    // An English word in lower case ("acts", "maps") shares its key with an acronym ("ACT",
    // "MAPS") but is not it: such candidates are dropped, and their relations with them. A
    // lower-case copy of a name that is no English word ("bert") stays with it.
    const Lexicon& lex = Lexicon::get();
    std::erase_if(cands_, [&](const Cand& c) {
      const std::string& s = c.term->surface;
      bool lower = std::none_of(s.begin(), s.end(), [](char ch) { return ch >= 'A' && ch <= 'Z'; });
      if (c.acronym || !lower || !key_is_acronym_[c.key] || s.find_first_of(" -") != std::string::npos) return false;
      if (!lex.loaded() || !(lex.known(s) || lex.known(lex.singular(s)) || lex.verb_form(s))) return false;
      word_not_acronym_.insert(s);
      return true;
    });
  }

  /// Text-defined expansions; the first definition of an acronym wins.
  void join_expansions() {
    for (const Cand& c : cands_) {
      if (c.term->expansion.empty() || defined_.count(c.key)) continue;
      std::string e = trim_expansion(c.term->surface, c.term->expansion);
      if (e.empty()) continue;
      std::string ek = name_key(e);
      if (ek.empty() || ek == keys_[c.key]) continue;
      int k = key_id(ek);
      if (key_surface_[k].empty()) key_surface_[k] = e;
      defined_[c.key] = k;
      expansions_.push_back({k, e});
      uf_.unite(c.key, k);
    }
  }

  void join_compact_keys() {
    std::unordered_map<std::string, int> first;
    for (int k = 0; k < static_cast<int>(keys_.size()); ++k) {
      std::string ck = key_compact(keys_[k]);
      if (ck.size() < 4) continue;
      auto [it, fresh] = first.try_emplace(ck, k);
      if (!fresh) uf_.unite(it->second, k);
    }
  }

  /// An acronym used without a definition in this document and unknown to the store joins the one
  /// multi-word term of the document it abbreviates.
  void infer_acronyms() {
    std::vector<bool> root_has_phrase(keys_.size(), false);
    for (int k = 0; k < static_cast<int>(keys_.size()); ++k)
      if (!key_is_acronym_[k]) root_has_phrase[uf_.find(k)] = true;
    for (int k = 0; k < static_cast<int>(keys_.size()); ++k) {
      if (!key_is_acronym_[k] || root_has_phrase[uf_.find(k)]) continue;
      if (acronym_length(keys_[k]) < 3 || !stored(keys_[k]).empty()) continue;
      std::set<int> roots;
      for (int p = 0; p < static_cast<int>(keys_.size()); ++p) {
        if (key_is_acronym_[p] || keys_[p].find(' ') == std::string::npos) continue;
        if (is_acronym_of(key_surface_[k], key_surface_[p])) roots.insert(uf_.find(p));
      }
      if (roots.size() == 1) uf_.unite(k, *roots.begin());
    }
  }

  void build_groups() {
    std::map<int, int> group_of_root;
    key_group_.assign(keys_.size(), -1);
    for (int k = 0; k < static_cast<int>(keys_.size()); ++k) {
      int r = uf_.find(k);
      auto [it, fresh] = group_of_root.try_emplace(r, static_cast<int>(groups_.size()));
      if (fresh) groups_.emplace_back();
      groups_[it->second].keys.push_back(k);
      key_group_[k] = it->second;
    }
    for (const Cand& c : cands_) {
      Group& g = groups_[key_group_[c.key]];
      (c.acronym ? g.acronyms : g.surfaces)[c.term->surface] += std::max(1, c.term->count);
      if (!c.term->type.empty() && c.term->type != "acronym") g.types[c.term->type] += 1;
      if (g.description.empty()) g.description = c.term->definition;
      g.score = std::max(g.score, c.term->score);
    }
    for (const auto& [k, surface] : expansions_) {
      Group& g = groups_[key_group_[k]];
      g.surfaces[surface] += 1;
      g.expansion_keys.insert(keys_[k]);
    }
  }

  /// True when the stored entity has an alias (other than the acronym) that expands `acronym`.
  bool has_other_expansion(const Entity& e, const std::string& acronym) {
    for (const std::string& a : e.aliases)
      if (!looks_like_acronym(a) && a.find_first_of(" -") != std::string::npos &&
          (is_acronym_of(acronym, a) || loosely_abbreviates(acronym, a)))
        return true;
    return false;
  }

  void match_store() {
    for (Group& g : groups_) {
      std::map<std::string, int> votes;
      bool has_phrase = false;
      for (int k : g.keys) {
        if (key_is_acronym_[k]) continue;
        has_phrase = true;
        for (const std::string& id : stored(keys_[k])) votes[id] += 1;
      }
      if (votes.empty()) {
        double best_score = -1;
        for (int k : g.keys) {
          if (!key_is_acronym_[k]) continue;
          for (const std::string& id : stored(keys_[k])) {
            std::optional<Entity> e = store_.entity(id);
            if (!e) continue;
            if (has_phrase && has_other_expansion(*e, key_surface_[k])) continue;
            if (e->score > best_score) best_score = e->score, g.existing = id;  // ids come ordered
          }
        }
        continue;
      }
      int best = 0;
      for (const auto& [id, n] : votes)
        if (n > best) best = n, g.existing = id;
    }
  }

  std::string display_name(const Group& g) const {
    if (!g.expansion_keys.empty()) {
      std::map<std::string, int> pool;
      for (const auto& [s, n] : g.surfaces)
        if (g.expansion_keys.count(name_key(s))) pool[s] += n;
      if (!pool.empty()) return pick_name(pool);
    }
    if (g.acronyms.empty()) return pick_name(g.surfaces);
    // No defined expansion: the surfaces are the acronym's own case variants ("BERT", "bert" from
    // "bert-base"). The acronym's usual case wins when the text uses it at least a quarter of the
    // time; a phrase (with a space) inferred as its expansion keeps the name.
    int acr = 0, other = 0, phrase = 0;
    for (const auto& [s, n] : g.acronyms) acr += n;
    for (const auto& [s, n] : g.surfaces) (s.find(' ') != std::string::npos ? phrase : other) += n;
    if (phrase == 0 && acr * 4 >= acr + other) return pick_name(g.acronyms);
    return pick_name(g.surfaces);
  }

  /// Stored entities that an open group may merge with (same head word, lexically compatible,
  /// another key), and for each open name (`name_keys`) the indices of its candidates among them.
  struct StoredCandidates {
    std::vector<Entity> entities;
    std::vector<std::vector<size_t>> of_open;  // → index into entities
  };

  StoredCandidates stored_candidates(const std::vector<std::string>& name_keys) {
    StoredCandidates out;
    out.of_open.resize(name_keys.size());
    std::unordered_map<std::string, size_t> at;  // entity id → index into out.entities
    for (size_t i = 0; i < name_keys.size(); ++i) {
      for (const NameCatalog::Name* n : catalog_.candidates(name_keys[i])) {
        if (n->key == name_keys[i] || !lexically_compatible(name_keys[i], n->key)) continue;
        auto it = at.find(n->id);
        if (it == at.end()) {
          std::optional<Entity> e = store_.entity(n->id);  // a removal may have taken it
          if (!e) continue;
          it = at.emplace(n->id, out.entities.size()).first;
          out.entities.push_back(std::move(*e));
        }
        out.of_open[i].push_back(it->second);
      }
    }
    return out;
  }

  /// A pair of names at least ResolveOptions::merge_cosine apart.
  struct Edge {
    double cos;
    size_t a;      // index into open
    long b;        // index into open, or -1 - index into StoredCandidates::entities
  };

  /// The edges between the open names (`vecs`, `name_keys`) and their stored candidates (unless
  /// `stored_vecs` is empty) and among each other, by decreasing cosine.
  std::vector<Edge> merge_edges(const std::vector<std::vector<float>>& vecs, const std::vector<std::string>& name_keys,
                                const StoredCandidates& stored, const std::vector<std::vector<float>>& stored_vecs) const {
    std::vector<Edge> edges;
    for (size_t i = 0; i < vecs.size(); ++i) {
      if (!stored_vecs.empty())
        for (size_t s : stored.of_open[i]) {
          double c = dot(vecs[i], stored_vecs[s]);
          if (c >= options_.merge_cosine) edges.push_back({c, i, -1 - static_cast<long>(s)});
        }
      for (size_t j = i + 1; j < vecs.size(); ++j) {
        if (!lexically_compatible(name_keys[i], name_keys[j])) continue;
        double c = dot(vecs[i], vecs[j]);
        if (c >= options_.merge_cosine) edges.push_back({c, i, static_cast<long>(j)});
      }
    }
    std::stable_sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return x.cos > y.cos; });
    return edges;
  }

  /// Step 4: unmatched groups (with a phrase, not acronym-only) vs stored entities and each other.
  void merge_by_embedding() {
    group_uf_ = UnionFind();
    for (size_t i = 0; i < groups_.size(); ++i) group_uf_.add();
    std::vector<int> open;
    for (int i = 0; i < static_cast<int>(groups_.size()); ++i)
      if (groups_[i].existing.empty() && !groups_[i].surfaces.empty()) open.push_back(i);
    if (open.empty() || !embed_) return;
    std::vector<std::string> names, name_keys;
    for (int i : open) names.push_back(display_name(groups_[i])), name_keys.push_back(name_key(names.back()));
    std::vector<std::vector<float>> vecs = embed_(names);
    if (vecs.size() != names.size()) return;  // no embedder

    // Stored entities with the same head word that pass the lexical checks.
    const StoredCandidates stored = stored_candidates(name_keys);
    std::vector<std::vector<float>> stored_vecs;
    if (!stored.entities.empty()) {
      std::vector<std::string> en;
      for (const Entity& e : stored.entities) en.push_back(e.name);
      stored_vecs = embed_(en);
      if (stored_vecs.size() != en.size()) stored_vecs.clear();
    }

    // Edges by decreasing cosine; a component takes at most one stored entity.
    std::map<int, std::string> existing_of_root;
    for (const Edge& e : merge_edges(vecs, name_keys, stored, stored_vecs)) {
      int ra = group_uf_.find(open[e.a]);
      if (e.b < 0) {
        const std::string& id = stored.entities[static_cast<size_t>(-1 - e.b)].id;
        auto it = existing_of_root.find(ra);
        if (it == existing_of_root.end()) existing_of_root[ra] = id;
        continue;
      }
      int rb = group_uf_.find(open[static_cast<size_t>(e.b)]);
      if (ra == rb) continue;
      auto ia = existing_of_root.find(ra), ib = existing_of_root.find(rb);
      if (ia != existing_of_root.end() && ib != existing_of_root.end() && ia->second != ib->second) continue;
      std::string id = ia != existing_of_root.end() ? ia->second : ib != existing_of_root.end() ? ib->second : "";
      existing_of_root.erase(ra), existing_of_root.erase(rb);
      group_uf_.unite(ra, rb);
      if (!id.empty()) existing_of_root[group_uf_.find(ra)] = id;
    }
    for (int i : open) {
      auto it = existing_of_root.find(group_uf_.find(i));
      if (it != existing_of_root.end()) groups_[i].existing = it->second;
    }
  }

  /// Clusters: groups joined by embedding, and groups resolving to the same stored entity.
  struct Clusters {
    std::vector<std::vector<int>> members;  // group indices
    std::vector<std::string> existing;      // the stored entity's id, or ""
    std::vector<int> of_group;
  };

  Clusters build_clusters() {
    Clusters out;
    std::map<std::string, int> cluster_of_existing;
    std::map<int, int> cluster_of_root;
    out.of_group.resize(groups_.size());
    for (int i = 0; i < static_cast<int>(groups_.size()); ++i) {
      int root = group_uf_.find(i);
      int c = -1;
      if (!groups_[i].existing.empty()) {
        auto it = cluster_of_existing.find(groups_[i].existing);
        if (it != cluster_of_existing.end()) c = it->second;
      }
      if (c < 0) {
        auto it = cluster_of_root.find(root);
        if (it != cluster_of_root.end()) c = it->second;
      }
      if (c < 0) {
        c = static_cast<int>(out.members.size());
        out.members.emplace_back();
        out.existing.emplace_back();
      }
      out.members[c].push_back(i);
      cluster_of_root.try_emplace(root, c);
      if (!groups_[i].existing.empty()) {
        cluster_of_existing.try_emplace(groups_[i].existing, c);
        if (out.existing[c].empty()) out.existing[c] = groups_[i].existing;
      }
      out.of_group[i] = c;
    }
    return out;
  }

  /// The groups `members` as one: surfaces, acronyms and type votes summed, the first description.
  Group merged_group(const std::vector<int>& members) const {
    Group all;
    for (int gi : members) {
      const Group& g = groups_[gi];
      for (const auto& [s, n] : g.surfaces) all.surfaces[s] += n;
      for (const auto& [s, n] : g.acronyms) all.acronyms[s] += n;
      for (const auto& [t, n] : g.types) all.types[t] += n;
      all.expansion_keys.insert(g.expansion_keys.begin(), g.expansion_keys.end());
      if (all.description.empty()) all.description = g.description;
      all.score = std::max(all.score, g.score);
    }
    return all;
  }

  /// The entity of a cluster (`all` its merged groups): the stored one `existing` updated, or a new
  /// one with an id not in `used_ids` nor the store. Its aliases are all its surfaces.
  Entity cluster_entity(const Group& all, const std::string& existing, std::set<std::string>& used_ids) {
    Entity e;
    std::optional<Entity> old;
    if (!existing.empty()) old = store_.entity(existing);
    if (old) {
      e.id = old->id;
      e.name = old->name;
      e.type = old->type;
      // A later document may say what the entity is ("Zeileis (2004)" makes "Achim Zeileis" a
      // person) where the first one did not: a specific type replaces the untyped "concept".
      if (untyped(e.type)) e.type = most_voted_type(all.types, /*specific_only=*/true, e.type);
      e.description = old->description.empty() ? all.description : old->description;
    } else {
      e.name = display_name(all);
      std::string key = name_key(e.name);
      e.id = "e" + hash_hex(key);
      for (int n = 2; used_ids.count(e.id) || store_.entity(e.id); ++n) e.id = "e" + hash_hex(key + "#" + std::to_string(n));
      e.type = most_voted_type(all.types, /*specific_only=*/false, e.type);
      e.description = all.description;
    }
    used_ids.insert(e.id);
    e.score = all.score;
    e.aliases.push_back(e.name);
    for (const auto* m : {&all.surfaces, &all.acronyms})
      for (const auto& [s, n] : *m)
        if (s != e.name) e.aliases.push_back(s);
    return e;
  }

  /// Mentions: one per (entity, chunk), counts summed, first surface kept. `entity_of_key`: the
  /// entity id of each key.
  void emit_mentions(const std::vector<std::string>& entity_of_key, GraphDelta& delta) const {
    std::map<std::pair<std::string, size_t>, Mention> mentions;
    for (const Cand& c : cands_) {
      const std::string& id = entity_of_key[c.key];
      auto [it, fresh] = mentions.try_emplace({id, c.chunk}, Mention{id, doc_[c.chunk].chunk_id, doc_id_, c.term->surface, 0});
      it->second.count += std::max(1, c.term->count);
    }
    for (auto& [k, m] : mentions) delta.mentions.push_back(std::move(m));
  }

  /// Relations: by (src, dst, type); one evidence per (chunk, sentence), its weight the largest of
  /// the candidates that read it (two surfaces of one entity in one sentence count once).
  void emit_relations(const std::vector<std::string>& entity_of_key, GraphDelta& delta) {
    using RelKey = std::tuple<std::string, std::string, std::string>;
    std::map<RelKey, std::map<std::pair<size_t, std::string>, double>> rels;
    std::map<RelKey, std::string> descriptions;  // the first non-empty one (LLM extraction)
    std::vector<std::vector<const Cand*>> cands_of_chunk(doc_.size());
    for (const Cand& c : cands_)
      if (c.chunk < doc_.size()) cands_of_chunk[c.chunk].push_back(&c);
    for (size_t ci = 0; ci < doc_.size(); ++ci) {
      std::unordered_map<std::string, std::string> id_of_surface;
      for (const Cand* c : cands_of_chunk[ci]) id_of_surface.try_emplace(c->term->surface, entity_of_key[c->key]);
      auto resolve_surface = [&](const std::string& s) -> std::string {
        if (word_not_acronym_.count(s)) return "";
        if (auto it = id_of_surface.find(s); it != id_of_surface.end()) return it->second;
        if (auto it = key_index_.find(key_of(s)); it != key_index_.end()) return entity_of_key[it->second];
        return "";
      };
      for (const RelationCandidate& r : doc_[ci].relations) {
        std::string a = resolve_surface(r.src), b = resolve_surface(r.dst);
        if (a.empty() || b.empty() || a == b || r.type.empty()) continue;
        if (symmetric_relation(r.type) && b < a) std::swap(a, b);
        double& w = rels[{a, b, r.type}][{ci, r.sentence}];
        w = std::max(w, r.weight);
        if (!r.description.empty()) descriptions.try_emplace({a, b, r.type}, r.description);
      }
    }
    for (const auto& [key, evs] : rels) {
      Relation rel{std::get<0>(key), std::get<1>(key), std::get<2>(key), 0, {}, {}};
      if (auto d = descriptions.find(key); d != descriptions.end()) rel.description = d->second;
      // Every sentence adds to the weight; the first kMaxEvidence are kept as evidence (a frequent
      // pair would otherwise carry thousands of sentences per document).
      constexpr size_t kMaxEvidence = 5;
      for (const auto& [where, w] : evs) {
        rel.weight += w;
        if (rel.evidence.size() < kMaxEvidence)
          rel.evidence.push_back({doc_[where.first].chunk_id, doc_id_, where.second});
      }
      delta.relations.push_back(std::move(rel));
    }
  }

  GraphDelta emit() {
    const Clusters clusters = build_clusters();
    GraphDelta delta;
    std::vector<std::string> cluster_id(clusters.members.size());
    std::set<std::string> used_ids;
    for (size_t c = 0; c < clusters.members.size(); ++c) {
      Entity e = cluster_entity(merged_group(clusters.members[c]), clusters.existing[c], used_ids);
      cluster_id[c] = e.id;
      delta.entities.push_back(std::move(e));
    }
    std::sort(delta.entities.begin(), delta.entities.end(), [](const Entity& a, const Entity& b) { return a.id < b.id; });

    std::vector<std::string> entity_of_key(keys_.size());
    for (size_t k = 0; k < keys_.size(); ++k) entity_of_key[k] = cluster_id[clusters.of_group[key_group_[k]]];
    emit_mentions(entity_of_key, delta);
    emit_relations(entity_of_key, delta);
    return delta;
  }

  const std::vector<ChunkExtraction>& doc_;
  const std::string& doc_id_;
  GraphStore& store_;
  const EmbedNames& embed_;
  const ResolveOptions& options_;
  NameCatalog& catalog_;

  std::unordered_map<std::string, std::string> key_cache_;
  std::unordered_map<std::string, std::vector<std::string>> store_hits_;
  std::unordered_map<std::string, int> key_index_;
  std::vector<std::string> keys_;
  std::vector<bool> key_is_acronym_;
  std::vector<std::string> key_surface_;  // a surface of each key (for acronym tests)
  UnionFind uf_;
  std::vector<Cand> cands_;
  std::set<std::string> word_not_acronym_;  // surfaces dropped in collect()
  std::map<int, int> defined_;                         // acronym key → expansion key
  std::vector<std::pair<int, std::string>> expansions_;  // (expansion key, surface as defined)
  std::vector<Group> groups_;
  std::vector<int> key_group_;
  UnionFind group_uf_;
};

}  // namespace

GraphDelta resolve_document(const std::vector<ChunkExtraction>& document, const std::string& doc_id,
                            GraphStore& store, const EmbedNames& embed, const ResolveOptions& options,
                            NameCatalog* catalog) {
  if (catalog) return Resolver(document, doc_id, store, embed, options, *catalog).run();
  NameCatalog own(store);
  return Resolver(document, doc_id, store, embed, options, own).run();
}

namespace {

/// The lists a name key is filed under in NameCatalog: "head\x1fstem" for each content-word stem
/// other than the head's, or "head\x1f" when there is none.
std::vector<std::string> catalog_pairs(const std::string& key) {
  std::vector<std::string> w = key_words(key);
  if (w.empty()) return {};
  const std::string head = stem(w.back());
  std::set<std::string> others;
  for (const auto& x : w)
    if (!is_stopword(x)) others.insert(stem(x));
  others.erase(head);
  std::vector<std::string> out;
  if (others.empty()) out.push_back(head + '\x1f');
  for (const auto& o : others) out.push_back(head + '\x1f' + o);
  return out;
}

}  // namespace

std::vector<const NameCatalog::Name*> NameCatalog::candidates(const std::string& key) {
  if (!loaded_) load();
  std::vector<size_t> at;
  for (const std::string& p : catalog_pairs(key)) {
    auto it = by_pair_.find(p);
    if (it != by_pair_.end()) at.insert(at.end(), it->second.begin(), it->second.end());
  }
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  std::vector<const Name*> out;
  out.reserve(at.size());
  for (size_t i : at) out.push_back(&names_[i]);
  return out;
}

void NameCatalog::load() {
  loaded_ = true;
  for (const Entity& e : store_.entities()) insert(e.id, e.name);
}

void NameCatalog::insert(const std::string& id, const std::string& name) {
  if (!ids_.insert(id).second) return;
  std::string key = name_key(name);
  const std::vector<std::string> pairs = catalog_pairs(key);
  if (pairs.empty()) return;
  for (const std::string& p : pairs) by_pair_[p].push_back(names_.size());
  names_.push_back({id, name, std::move(key)});
}

void NameCatalog::add(const GraphDelta& delta) {
  if (!loaded_) return;  // load() reads them from the store
  for (const Entity& e : delta.entities) insert(e.id, e.name);
}

}  // namespace mmkg::graph
