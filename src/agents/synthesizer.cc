#include "agents/synthesizer.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "retrieve/context_budget.h"
#include "text/definition.h"
#include "agents/planner.h"
#include "text/query_terms.h"
#include "text/words.h"
#include "index/lexical.h"
#include "text/sentences.h"

namespace mmkg {

Citation make_citation(const SearchHit& h, int n) {
  Citation c;
  c.n = n;
  c.doc = h.doc;
  c.doc_id = h.doc_id;
  c.chunk_id = h.chunk_id;
  c.page = h.page_start;
  c.page_end = h.page_end;
  c.heading_path = h.heading_path;
  c.text = h.text;
  c.figure_id = h.figure_id;
  c.figure_label = h.figure_label;
  c.figure_kind = h.figure_kind;
  return c;
}

const char* const kNotFound = "The documents do not say: no passage in the corpus answers this question.";

namespace {

struct Sentence {
  size_t cand;          // index into retrieval.context
  std::string text;
  std::set<std::string> stems;
  double coverage = 0;  // IDF share of query terms present
  double score = 0;
};

double jaccard(const std::set<std::string>& a, const std::set<std::string>& b) {
  if (a.empty() || b.empty()) return 0;
  size_t inter = 0;
  for (auto& x : a) inter += b.count(x);
  return static_cast<double>(inter) / static_cast<double>(a.size() + b.size() - inter);
}

// Strips Markdown block markers the renderer added ("# ", "- ", code fences).
std::string clean_sentence(std::string_view s) {
  std::string t = collapse_ws(s);
  while (!t.empty() && (t[0] == '#' || t[0] == '-' || t[0] == '*' || t[0] == '`')) {
    size_t i = t.find_first_not_of("#-*` ");
    t = i == std::string::npos ? "" : t.substr(i);
  }
  return t;
}

// What figures and tables do, in the words questions use: "what does Figure 2 show / depict /
// plot", "what does Table 1 list / report".
const std::set<std::string>& depiction_stems() {
  static const std::set<std::string> s = [] {
    std::set<std::string> out;
    for (const char* w : {"show", "depict", "illustrate", "plot", "display", "present", "visualize", "draw", "list",
                          "report", "summarize", "give"})
      out.insert(stem(w));
    return out;
  }();
  return s;
}

}  // namespace

Answer synthesize_extractive(const std::string& question, const Retrieval& retrieval, TermStats& stats,
                             const SynthOptions& opt) {
  Answer ans;
  // Query terms: distinct content-word stems, weighted by IDF.
  const std::vector<QueryTerm> q = query_terms(question, stats);
  std::vector<std::string> defx = definiendum_stems(definition_target(question));

  // Score every sentence of every context chunk.
  std::vector<Sentence> sents;
  double best_chunk_cov = 0;
  for (size_t ci = 0; ci < retrieval.context.size(); ++ci) {
    // Only what the context shows of the chunk (the budget may have trimmed it to its best
    // sentences): sentences are byte ranges of the chunk, so quotes stay verbatim chunk text.
    const SearchHit& hit = retrieval.context[ci].hit;
    const std::string& text = hit.text;
    const auto shown = shown_sentences(retrieval.context[ci]);
    // Where a passage stands (its document's file name and heading path) is context for all its
    // sentences: "according to the wiki" is covered by attention_wiki.txt, a paper's name by
    // the heading above the paragraph.
    std::string where = hit.doc.substr(0, hit.doc.rfind('.')) + " " + hit.heading_path;
    std::set<std::string> where_stems = stem_set(where);
    // The words the question named this passage by ("Figure 3 of the survival paper"), and, for
    // a figure's or table's own passage, what a caption implicitly says: "Figure 3 shows ...".
    const auto& named = retrieval.context[ci].where;
    where_stems.insert(named.begin(), named.end());
    if (!hit.figure_id.empty()) {
      const auto& verbs = depiction_stems();
      where_stems.insert(verbs.begin(), verbs.end());
    }
    std::set<std::string> chunk_stems;
    for (auto [b, e] : shown) {
      auto st = stem_set(std::string_view(text).substr(b, e - b));
      chunk_stems.insert(st.begin(), st.end());
    }
    chunk_stems.insert(where_stems.begin(), where_stems.end());
    best_chunk_cov = std::max(best_chunk_cov, term_coverage(chunk_stems, q));
    double prior = 0.1 / (1.0 + static_cast<double>(ci));
    for (auto [b, e] : shown) {
      if (text[b] == '#') continue;  // a heading line, not a statement
      std::string s = clean_sentence(std::string_view(text).substr(b, e - b));
      if (s.size() < 25) continue;  // headings, labels, stray fragments
      if (s.back() == ':') continue;  // introduces an equation or a list: not a statement
      if (s.size() > 600) s = std::string(utf8_prefix(s, 597)) + "...";
      Sentence x{ci, std::move(s), {}, 0, 0};
      x.stems = stem_set(x.text);
      std::set<std::string> with_where = x.stems;
      with_where.insert(where_stems.begin(), where_stems.end());
      x.coverage = term_coverage(with_where, q);
      // Longer sentences match more words by chance: a mild length normalisation.
      double len_pen = x.stems.size() > 40 ? 0.9 : 1.0;
      x.score = x.coverage * len_pen + prior + 0.5 * definition_strength(defx, x.text);
      sents.push_back(std::move(x));
    }
  }
  double best_cov = 0;
  for (auto& s : sents) best_cov = std::max(best_cov, s.coverage);
  ans.coverage = best_chunk_cov;
  if (sents.empty() || best_chunk_cov < opt.min_coverage || best_cov < opt.min_coverage * 0.6) {
    ans.text = kNotFound;
    return ans;
  }

  std::vector<size_t> order(sents.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sents[a].score > sents[b].score; });

  std::vector<size_t> chosen;
  size_t chars = 0;
  for (size_t i : order) {
    const Sentence& s = sents[i];
    if (chosen.size() >= opt.max_sentences) break;
    if (s.coverage < best_cov * 0.5) break;
    if (!chosen.empty() && chars + s.text.size() > opt.max_answer_chars) continue;
    bool dup = false;
    for (size_t c : chosen) dup = dup || jaccard(sents[c].stems, s.stems) > 0.5;
    if (dup) continue;
    chosen.push_back(i);
    chars += s.text.size();
  }

  // Number citations by first appearance; one citation per chunk.
  std::map<size_t, int> cite_no;
  for (size_t i : chosen) {
    const Sentence& s = sents[i];
    auto [it, fresh] = cite_no.try_emplace(s.cand, static_cast<int>(ans.citations.size()) + 1);
    if (fresh) ans.citations.push_back(make_citation(retrieval.context[s.cand].hit, it->second));
    Citation& c = ans.citations[static_cast<size_t>(it->second - 1)];
    c.quote += (c.quote.empty() ? "" : " ") + s.text;
    if (!ans.text.empty()) ans.text += ' ';
    ans.text += s.text + " [" + std::to_string(it->second) + "]";
  }
  ans.found = true;
  return ans;
}

}  // namespace mmkg
