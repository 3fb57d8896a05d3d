// The graph's document layer (graph_algo.h document_name_terms, cross_references,
// rank_cross_references).
//
// A question that spans two documents often reaches the second one through a passage of the first
// that names it: "the paper runs its z tests through coeftest() from the companion package lmtest",
// "the packages sandwich, lmtest and strucchange are required". Such a passage links two document
// nodes; it rarely shares the question's words (the question describes the documents, it does not
// name them), so the retrievers rank it low, and the entity hop (bridge.cc) does not prefer it
// over the many passages that share an author's or a function's name.
//
// A document goes by a coined name when its file name or its title's head holds one (a package, a
// system, a model: "lmtest-intro.pdf", "strucchange: An R Package for ..."); English words there
// name a topic and would link every passage on it. Which passages name the document is read from
// the graph: the chunks that mention an entity whose name holds the term ("package lmtest"),
// outside the documents that go by it. Code listings carry no entities (graph/extract), so
// `library("lmtest")` alone does not make a reference.
#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "graph/algo/graph_algo.h"
#include "text/lexicon.h"
#include "text/words.h"

namespace mmkg::graph {

std::vector<std::string> document_name_terms(const DocumentLabel& doc) {
  const Lexicon& lex = Lexicon::get();
  // Without WordNet every word would look coined: no names, no document layer.
  if (!lex.loaded()) return {};
  std::string stem = doc.file_name;
  const size_t dot = stem.rfind('.');
  if (dot != std::string::npos && dot > 0) stem.resize(dot);
  std::vector<std::string> cand = words(stem);
  const size_t colon = doc.title.find(':');
  if (colon != std::string::npos)
    for (auto& w : words(doc.title.substr(0, colon))) cand.push_back(std::move(w));
  std::set<std::string> out;
  for (const auto& w : cand) {
    const bool letters = std::any_of(w.begin(), w.end(), [](unsigned char c) { return std::isalpha(c); });
    if (w.size() < 3 || !letters || is_stopword(w) || lex.known(w) || lex.known(lex.singular(w))) continue;
    out.insert(w);
  }
  return {out.begin(), out.end()};
}

std::map<std::string, std::vector<std::string>> cross_references(const GraphSnapshot& g,
                                                                  const std::vector<DocumentLabel>& docs) {
  // term → the documents that go by it
  std::unordered_map<std::string, std::set<std::string>> owners;
  for (const auto& d : docs)
    for (const auto& t : document_name_terms(d)) owners[t].insert(d.id);
  std::map<std::string, std::vector<std::string>> out;
  if (owners.empty()) return out;
  // entity → the terms its name holds
  std::unordered_map<std::string, std::vector<const std::set<std::string>*>> named;
  for (const auto& e : g.entities)
    for (const auto& w : words(e.name)) {
      auto it = owners.find(w);
      if (it != owners.end()) named[e.id].push_back(&it->second);
    }
  std::map<std::string, std::set<std::string>> refs;
  for (const auto& m : g.mentions) {
    auto it = named.find(m.entity_id);
    if (it == named.end()) continue;
    for (const auto* ds : it->second) {
      if (ds->count(m.doc_id)) continue;  // a document naming itself (or a sibling of the same name)
      refs[m.chunk_id].insert(ds->begin(), ds->end());
    }
  }
  for (auto& [chunk, ds] : refs) out[chunk] = {ds.begin(), ds.end()};
  return out;
}

std::vector<std::pair<std::string, double>> rank_cross_references(
    const GraphSnapshot& g, const std::map<std::string, std::vector<std::string>>& xrefs,
    const std::vector<std::string>& first_hits, const CrossRefOptions& options) {
  return rank_cross_references(g, mention_stats(g), xrefs, first_hits, options);
}

std::vector<std::pair<std::string, double>> rank_cross_references(
    const GraphSnapshot& g, const MentionStats& stats, const std::map<std::string, std::vector<std::string>>& xrefs,
    const std::vector<std::string>& first_hits, const CrossRefOptions& options) {
  std::vector<std::pair<std::string, double>> out;
  const int k = options.k;
  if (xrefs.empty() || first_hits.empty() || k <= 0) return out;
  const std::unordered_set<std::string> first(first_hits.begin(), first_hits.end());
  // The first hits' entities, and the candidates' (chunks that name a document).
  std::unordered_set<std::string> first_entities;
  std::unordered_map<std::string, std::vector<std::string>> entities_of;
  for (const auto& m : g.mentions) {
    if (first.count(m.chunk_id)) first_entities.insert(m.entity_id);
    else if (xrefs.count(m.chunk_id)) entities_of[m.chunk_id].push_back(m.entity_id);
  }
  auto doc_of = [&](const std::string& chunk) -> std::string {
    auto it = stats.doc_of.find(chunk);
    return it == stats.doc_of.end() ? std::string() : it->second;
  };
  std::set<std::string> found_docs;
  for (const auto& id : first_hits) {
    const std::string d = doc_of(id);
    if (!d.empty()) found_docs.insert(d);
  }
  std::vector<int> breadth;  // parallel to out: documents named (CrossRefOptions::breadth)
  for (const auto& [chunk, named] : xrefs) {
    if (first.count(chunk) || !found_docs.count(doc_of(chunk))) continue;
    const bool names_found =
        std::any_of(named.begin(), named.end(), [&](const std::string& d) { return found_docs.count(d) > 0; });
    if (!names_found) continue;
    double score = 0;
    for (const auto& e : entities_of[chunk])
      if (first_entities.count(e)) score += stats.specificity(e);
    if (score > 0) {
      out.emplace_back(chunk, score);
      breadth.push_back(static_cast<int>(named.size()));
    }
  }
  // Ties: chunk id order (xrefs is a sorted map), so that runs repeat.
  std::vector<size_t> idx(out.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    if (options.breadth && breadth[a] != breadth[b]) return breadth[a] > breadth[b];
    return out[a].second > out[b].second;
  });
  std::vector<std::pair<std::string, double>> sorted;
  for (size_t i : idx) sorted.push_back(std::move(out[i]));
  out = std::move(sorted);
  if (out.size() > static_cast<size_t>(k)) out.resize(static_cast<size_t>(k));
  return out;
}

}  // namespace mmkg::graph
