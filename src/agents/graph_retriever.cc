#include "agents/graph_retriever.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "retrieve/fusion_weights.h"
#include "text/lexicon.h"
#include "text/words.h"

namespace mmkg {

GraphContext::GraphContext(graph::GraphStore& store, const graph::EmbedNames& embed,
                           const std::vector<graph::DocumentLabel>& documents,
                           const std::vector<graph::ChunkLabel>& chunks)
    : store_(store) {
  index_ = graph::EntityIndex::build(store, embed);
  snap_.entities = store.entities();
  snap_.relations = store.relations();
  snap_.mentions = store.mentions();
  snap_.homes = graph::home_passages(snap_, chunks);
  for (auto& m : graph::home_mentions(snap_, snap_.homes, chunks)) snap_.mentions.push_back(std::move(m));
  for (const auto& h : snap_.homes) homed_.insert(h.entity_id);
  xrefs_ = graph::cross_references(snap_, documents);
  stats_ = graph::mention_stats(snap_);
  for (const auto& m : snap_.mentions) {
    auto& es = chunk_ents_[m.chunk_id];
    if (std::find(es.begin(), es.end(), m.entity_id) == es.end()) es.push_back(m.entity_id);
  }
}

const std::vector<GraphContext::Connected>& GraphContext::by_connection() {
  if (by_connection_) return *by_connection_;
  std::unordered_map<std::string_view, size_t> index;
  for (size_t i = 0; i < snap_.entities.size(); ++i) index.emplace(snap_.entities[i].id, i);
  std::vector<std::pair<size_t, size_t>> pairs;  // distinct related pairs, (lower, higher) index
  for (const auto& r : snap_.relations) {
    auto a = index.find(r.src), b = index.find(r.dst);
    if (a != index.end() && b != index.end() && a->second != b->second)
      pairs.emplace_back(std::min(a->second, b->second), std::max(a->second, b->second));
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  std::vector<Connected> out(snap_.entities.size());
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].entity = i;
    auto it = stats_.df.find(snap_.entities[i].id);
    out[i].mentions = it == stats_.df.end() ? 0 : static_cast<size_t>(it->second);
  }
  for (const auto& [a, b] : pairs) ++out[a].degree, ++out[b].degree;
  std::sort(out.begin(), out.end(), [&](const Connected& x, const Connected& y) {
    const graph::Entity& ex = snap_.entities[x.entity];
    const graph::Entity& ey = snap_.entities[y.entity];
    return std::tie(y.degree, y.mentions, ex.name, ex.id) < std::tie(x.degree, x.mentions, ey.name, ey.id);
  });
  by_connection_ = std::move(out);
  return *by_connection_;
}

namespace {

std::string relation_phrase(const std::string& type) {
  static const std::map<std::string, std::string> kPhrase = {
      {"is_a", "is a kind of"},       {"part_of", "is part of"},         {"uses", "uses"},
      {"extends", "extends"}, {"proposes", "proposes"},          {"compared_with", "is compared with"},
      {"co_occurs", "appears with"}};
  auto it = kPhrase.find(type);
  if (it != kPhrase.end()) return it->second;
  std::string s = type;
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

// The linked entities' facts: their relations, typed ones first (is_a, part_of, uses ... say what
// the sentence says; co-occurrence only that two names meet). Typed ones by weight; co-occurrences
// by association, the Dice coefficient 2 w / (n_src + n_dst) over the entities' chunk counts, so a
// pair that meets mostly together outranks a hub ("X appears with attention") met everywhere. For
// "what is X?", a typed fact with X as its subject says what X is or does ("attention is a kind of
// mechanism") and goes before those naming X's kinds or users ("linear attention is a kind of
// attention"), whatever their weights. `stats.df`: each entity's mentions.
std::vector<GraphFact> entity_facts(GraphContext& g, const Question& q,
                                    const std::vector<graph::EntityLink>& entities,
                                    const graph::MentionStats& stats, int max_facts) {
  std::unordered_map<std::string, std::string> names;
  for (const auto& e : g.snapshot().entities) names[e.id] = e.name;
  auto count = [&](const std::string& id) {
    auto it = stats.df.find(id);
    return it == stats.df.end() ? 0 : it->second;
  };
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  std::vector<GraphFact> facts;
  std::vector<double> order;  // the sort key of each fact
  const bool defining = !q.definiendum.empty();
  std::set<std::string> linked;
  for (const auto& link : entities) linked.insert(link.entity_id);
  std::vector<bool> subject;  // a linked entity is the fact's subject
  for (const auto& link : entities) {
    // The 24 heaviest relations, and typed ones beyond them: a central entity's co-occurrences
    // outweigh the few sentences that say what it is.
    const auto rels = g.store().relations_of(link.entity_id, 96);
    for (size_t ri = 0; ri < rels.size(); ++ri) {
      const auto& r = rels[ri];
      if (ri >= 24 && r.type == "co_occurs") continue;
      if (!seen.insert({r.src, r.dst, r.type}).second || r.evidence.empty()) continue;
      GraphFact f;
      f.relation = r.type;
      f.weight = r.weight;
      order.push_back(r.type == "co_occurs" ? 2.0 * r.weight / std::max(1, count(r.src) + count(r.dst))
                                            : r.weight);
      f.text = names[r.src] + " " + relation_phrase(r.type) + " " + names[r.dst];
      f.chunk_id = r.evidence.front().chunk_id;
      f.sentence = r.evidence.front().sentence;
      facts.push_back(std::move(f));
      subject.push_back(linked.count(r.src) > 0);
    }
  }
  std::vector<size_t> idx(facts.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    const bool ta = facts[a].relation != "co_occurs", tb = facts[b].relation != "co_occurs";
    if (ta != tb) return ta;
    if (defining && ta && subject[a] != subject[b]) return static_cast<bool>(subject[a]);
    return order[a] > order[b];
  });
  std::vector<GraphFact> sorted;
  sorted.reserve(facts.size());
  for (size_t i : idx) sorted.push_back(std::move(facts[i]));
  facts = std::move(sorted);
  if (facts.size() > static_cast<size_t>(max_facts)) facts.resize(static_cast<size_t>(max_facts));
  return facts;
}

// For a broad question: the communities that hold a linked entity (2 each) or share the
// question's content words (1 each), best first, at most `max`.
std::vector<graph::Community> matching_communities(GraphContext& g, const std::string& question,
                                                   const std::vector<graph::EntityLink>& entities, int max) {
  std::vector<graph::Community> out;
  std::set<std::string> linked;
  for (const auto& l : entities) linked.insert(l.entity_id);
  std::set<std::string> qstems;
  for (const auto& s : content_stems(question)) qstems.insert(s);
  std::vector<std::pair<double, graph::Community>> scored;
  for (auto& c : g.store().communities()) {
    double score = 0;
    for (const auto& id : c.entity_ids)
      if (linked.count(id)) score += 2;
    std::set<std::string> cs;
    for (const auto& s : content_stems(c.title + " " + c.summary)) cs.insert(s);
    for (const auto& s : qstems)
      if (cs.count(s)) score += 1;
    if (score > 0) scored.emplace_back(score, std::move(c));
  }
  std::stable_sort(scored.begin(), scored.end(), [](auto& a, auto& b) { return a.first > b.first; });
  for (auto& [s, c] : scored) {
    if (out.size() >= static_cast<size_t>(max)) break;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

std::map<std::string, double> ppr_seeds(const GraphContext& g, const std::vector<graph::EntityLink>& links,
                                        const std::vector<bool>& common) {
  std::map<std::string, double> seeds;
  const auto& df = g.mention_stats().df;
  for (size_t i = 0; i < links.size(); ++i) {
    const auto& link = links[i];
    auto it = df.find(link.entity_id);
    const double spec = 1.0 / std::log2(2.0 + (it == df.end() ? 0 : it->second));
    const double factor = i < common.size() && common[i] ? kCommonPhraseWeight : 1.0;
    seeds[link.entity_id] += link.score * spec * factor;
  }
  return seeds;
}

namespace {

/// True when the question writes `phrase` (a link's lower-cased phrase) in lower case and every
/// word of it is a stop word or an English word (WordNet): "place of birth", "film", "mother"
/// name what the question asks about the entities, not which entities; "Lothair II" or
/// "Phoolwari" as written are names.
bool common_phrase(const std::string& question, const std::string& phrase) {
  if (phrase.empty()) return false;
  // Both as words joined by single spaces (hyphens and punctuation are word breaks, as in words()).
  auto spaced = [](const std::string& s) {
    std::string out;
    for (char c : s) {
      const bool word = std::isalnum(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80 || c == '\'';
      if (word) out += c;
      else if (!out.empty() && out.back() != ' ') out += ' ';
    }
    return out;
  };
  const std::string cased = spaced(question), wanted = spaced(phrase);
  std::string lower = cased;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const size_t at = lower.find(wanted);
  if (at == std::string::npos) return false;
  for (size_t i = at; i < at + wanted.size(); ++i)
    if (std::isupper(static_cast<unsigned char>(cased[i]))) return false;
  const auto& lex = graph::Lexicon::get();
  if (!lex.loaded()) return false;
  for (const auto& w : words(phrase))
    if (!is_stopword(w) && !lex.known(w) && !lex.known(lex.singular(w))) return false;
  return true;
}

}  // namespace

GraphRetrieval graph_retrieve(GraphContext& g, const Question& q, const GraphRetrieveOptions& opt,
                              const std::map<std::string, double>& passages) {
  const std::string& question = q.standalone;
  GraphRetrieval out;
  out.broad = q.broad;
  if (g.empty()) return out;
  out.entities = g.index().link(question, opt.max_entities);
  // A question of two parts ("which package ..., and what does its vignette say ...?") may need
  // a second passage that shares an entity with the first but few of the question's words: the
  // bridge hop (graph_lists). One-part questions get no hop: their evidence is what the
  // retrievers rank, and a hop's chunk would only take a place from it. The document layer's hop
  // (graph_lists) serves the same questions, and questions about the collection: they range over
  // several documents, and the passage that names the others relates them.
  out.two_parts = q.two_parts();
  out.across = q.across;
  if (out.two_parts || out.across) out.hops = &g;

  out.facts = entity_facts(g, q, out.entities, g.mention_stats(), opt.max_facts);

  std::vector<bool> common(out.entities.size());
  for (size_t i = 0; i < common.size(); ++i) common[i] = common_phrase(question, out.entities[i].phrase);
  const std::map<std::string, double> seeds = ppr_seeds(g, out.entities, common);
  for (size_t i = 0; i < out.entities.size(); ++i) {
    const auto& l = out.entities[i];
    if ((l.how == "exact" || l.how == "alias") && g.has_home(l.entity_id) && !common[i]) out.anchors.push_back(l.entity_id);
  }
  const double log_c = std::log(std::max<double>(2.0, static_cast<double>(g.mention_stats().chunks)));
  for (const auto& a : out.anchors)
    out.anchor_specificity = std::max(out.anchor_specificity, std::clamp(g.mention_stats().specificity(a) / log_c, 0.0, 1.0));
  if (!seeds.empty() || !passages.empty()) {
    out.ppr_chunks = graph::rank_chunks_by_ppr(g.snapshot(), seeds, opt.ppr_chunks, {}, passages);
  }

  if (out.broad) out.communities = matching_communities(g, question, out.entities, opt.max_communities);
  return out;
}

RankedList graph_passages(const GraphRetrieval& g) {
  RankedList l{"graph: passages by PageRank from the entities the question names", {}, kFusionWeights.graph_passages};
  l.retriever = true;
  if (g.anchors.empty() || g.anchor_specificity < kAnchorSpecificity) return l;
  for (const auto& [id, score] : g.ppr_chunks) l.chunk_ids.push_back(id);
  return l;
}

std::vector<RankedList> graph_lists(const GraphRetrieval& g) {
  RankedList ppr{"graph: personalised PageRank from the linked entities", {}, kFusionWeights.ppr};
  for (const auto& [id, score] : g.ppr_chunks) ppr.chunk_ids.push_back(id);
  RankedList facts{"graph: evidence of the entities' relations", {}, kFusionWeights.relation_evidence};
  for (const auto& f : g.facts) facts.chunk_ids.push_back(f.chunk_id);
  RankedList comm{"graph: community summaries", {}, kFusionWeights.communities};
  for (const auto& c : g.communities) comm.chunk_ids.insert(comm.chunk_ids.end(), c.chunk_ids.begin(), c.chunk_ids.end());
  // The head of a list drawn from the question's entities takes a slot over the retrievers' last
  // chunk when a retriever found it just below the cut (RankedList::confirms) only for questions
  // of two parts or across documents: their second part or other documents are what the
  // retrievers' first hits miss. A one-part question's evidence is what the retrievers rank (the
  // reason it gets no hop, above), so its graph lists only add candidates after theirs.
  const bool wide = g.two_parts || g.across;
  std::vector<RankedList> out;
  for (auto* l : {&ppr, &facts, &comm}) {
    l->confirms = wide;
    if (!l->chunk_ids.empty()) out.push_back(std::move(*l));
  }
  if (!g.hops) return out;
  const GraphContext* ctx = g.hops;
  // The bridge hop starts from every chunk the retrievers ranked within their cut (the first
  // hop), so it is filled in retrieval (RankedList::from_hits). Like every graph list, its head
  // takes a context slot only when a sub-query also found it just below the cut
  // (RetrieveOptions::graph_slots).
  if (g.two_parts) {
    RankedList hop{"graph: entities shared with the best passages, in other documents", {}, kFusionWeights.bridge};
    hop.from_hits = [ctx](const std::vector<std::string>& first) {
      std::vector<std::string> ids;
      for (const auto& [id, score] : graph::rank_chunks_by_bridge(ctx->snapshot(), ctx->mention_stats(), first))
        ids.push_back(id);
      return ids;
    };
    out.push_back(std::move(hop));
  }
  // The document layer's hop: a passage of one found document that names another found document
  // (doc_links.cc). Such a passage is vouched for by the graph's structure (two documents the
  // retrievers found, linked by the passage), so its head may take a slot although no sub-query
  // ranked it (RankedList::vouched); the bridge hop's head needs a sub-query's hit just below the
  // cut: an entity shared with the first hits alone is weak evidence that a passage answers.
  if (!ctx->cross_refs().empty()) {
    RankedList refs{"graph: passages naming another found document", {}, kFusionWeights.cross_references};
    refs.vouched = true;
    refs.question_hits = true;  // the documents the question reaches, not a key phrase's
    graph::CrossRefOptions o;
    o.breadth = g.across;
    refs.from_hits = [ctx, o](const std::vector<std::string>& first) {
      std::vector<std::string> ids;
      for (const auto& [id, score] :
           graph::rank_cross_references(ctx->snapshot(), ctx->mention_stats(), ctx->cross_refs(), first, o))
        ids.push_back(id);
      return ids;
    };
    out.push_back(std::move(refs));
  }
  return out;
}

}  // namespace mmkg
