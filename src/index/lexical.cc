#include "index/lexical.h"

#include <cmath>
#include <unordered_set>

#include "text/words.h"
#include "store/sqlite_util.h"
#include "store/store.h"

namespace mmkg {

std::string fts_query(std::string_view query) {
  auto all = words(query);
  std::vector<std::string> content;
  for (auto& w : all)
    if (!is_stopword(w)) content.push_back(w);
  if (content.empty()) content = all;
  std::string q;
  std::unordered_set<std::string> seen;
  auto add = [&](const std::string& term) {
    if (!seen.insert(term).second) return;
    if (!q.empty()) q += " OR ";
    q += '"';
    q += term;
    q += '"';
  };
  for (auto& w : content) add(w);
  // Adjacent pairs in the original word order ("multi head", "dot product") as phrases.
  for (size_t i = 0; i + 1 < all.size(); ++i)
    if (!is_stopword(all[i]) && !is_stopword(all[i + 1])) add(all[i] + " " + all[i + 1]);
  return q;
}

std::vector<SearchHit> bm25_search(Store& store, std::string_view query, const LexicalOptions& opt) {
  return bm25_match(store, fts_query(query), opt);
}

std::vector<SearchHit> bm25_match(Store& store, const std::string& match, const LexicalOptions& opt) {
  std::vector<SearchHit> out;
  if (match.empty() || opt.k <= 0) return out;
  std::string rank = "bm25(chunks_fts, " + std::to_string(opt.heading_weight) + ", " +
                     std::to_string(opt.text_weight) + ", " + std::to_string(opt.context_weight) + ")";
  Stmt s(store.db(),
         "SELECT c.id, c.doc_id, d.name, c.page_start, c.page_end, c.heading_path, c.start_off, c.end_off, "
         "c.text, -" + rank + ", snippet(chunks_fts, 1, '«', '»', '…', 24), c.rowid, c.figure_id, "
         "coalesce(f.label, ''), coalesce(f.kind, '') "
         "FROM chunks_fts JOIN chunks c ON c.rowid = chunks_fts.rowid JOIN documents d ON d.id = c.doc_id "
         "LEFT JOIN figures f ON f.id = c.figure_id AND c.figure_id != '' "
         "WHERE chunks_fts MATCH ? ORDER BY " + rank + " LIMIT ?");
  s.bind(1, match).bind(2, opt.k);
  while (s.step()) {
    SearchHit h;
    h.chunk_id = s.text(0);
    h.doc_id = s.text(1);
    h.doc = s.text(2);
    h.page_start = s.i32(3);
    h.page_end = s.i32(4);
    h.heading_path = s.text(5);
    h.start = s.i64(6);
    h.end = s.i64(7);
    h.text = s.text(8);
    h.score = s.f64(9);
    h.snippet = s.text(10);
    h.rowid = s.i64(11);
    h.figure_id = s.text(12);
    h.figure_label = s.text(13);
    h.figure_kind = s.text(14);
    out.push_back(std::move(h));
  }
  return out;
}

TermStats::TermStats(Store& store) : store_(store) {
  Stmt s(store.db(), "SELECT count(*) FROM chunks");
  if (s.step()) n_ = s.i64(0);
}

double TermStats::idf(const std::string& word) {
  int64_t df = 0;
  auto w = words(word);
  if (!w.empty()) {
    Stmt s(store_.db(), "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?");
    s.bind(1, "\"" + w[0] + "\"");
    if (s.step()) df = s.i64(0);
  }
  double n = static_cast<double>(n_);
  return std::log(1.0 + (n - static_cast<double>(df) + 0.5) / (static_cast<double>(df) + 0.5));
}

double TermStats::absent_idf() const { return std::log(1.0 + (static_cast<double>(n_) + 0.5) / 0.5); }


}  // namespace mmkg
