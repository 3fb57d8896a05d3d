#include "index/lexical.h"

#include <cmath>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "index/lexical_query.h"
#include "index/xapian_lexical.h"

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

namespace {

// The top opt.k from the Xapian index, when it can answer (see LexicalOptions::index): hits
// with FTS5's snippet of each chunk; nullopt otherwise.
std::optional<std::vector<SearchHit>> xapian_match(Store& store, const std::string& match, const LexicalOptions& opt) {
  if (!opt.index || opt.heading_weight != 2.0 || opt.text_weight != 1.0 || opt.context_weight != 1.0)
    return std::nullopt;
  auto q = parse_lexical_query(match);
  if (!q || opt.index->generation() != store.generation()) return std::nullopt;
  std::vector<XapianLexical::Hit> found;
  if (!opt.index->search(*q, opt.k, found)) return std::nullopt;
  std::vector<int64_t> rowids;
  for (auto& f : found) rowids.push_back(f.rowid);
  std::unordered_map<int64_t, StoredChunk> chunks;
  for (auto& c : store.chunks_by_rowid(rowids)) chunks.emplace(c.rowid, std::move(c));
  std::vector<SearchHit> out;
  for (auto& f : found) {
    auto it = chunks.find(f.rowid);
    if (it == chunks.end() || it->second.chunk.id != f.chunk_id) continue;  // written since: skip
    out.push_back(hit_from_chunk(it->second, f.score));
    out.back().snippet_pending = true;
  }
  if (!opt.defer_snippets) fill_snippets(store, match, out);
  return out;
}

}  // namespace

void fill_snippets(Store& store, const std::string& match, std::vector<SearchHit>& hits) {
  std::optional<Stmt> snip;
  for (auto& h : hits) {
    if (!h.snippet_pending) continue;
    h.snippet_pending = false;
    if (match.empty()) continue;
    if (!snip)
      snip.emplace(store.db(), "SELECT snippet(chunks_fts, 1, '«', '»', '…', 24) FROM chunks_fts "
                               "WHERE chunks_fts MATCH ? AND rowid = ?");
    snip->reset();
    snip->bind(1, match).bind(2, h.rowid);
    if (snip->step()) h.snippet = snip->text(0);
  }
}

std::vector<SearchHit> bm25_match(Store& store, const std::string& match, const LexicalOptions& opt,
                                  std::string* served_by) {
  std::vector<SearchHit> out;
  if (served_by) *served_by = "fts5";
  if (match.empty() || opt.k <= 0) return out;
  if (auto hits = xapian_match(store, match, opt)) {
    if (served_by) *served_by = "xapian";
    return std::move(*hits);
  }
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
    h.figure_kind = figure_kind_from_name(s.text(14));
    out.push_back(std::move(h));
  }
  return out;
}

TermStats::TermStats(Store& store, XapianLexical* index) : store_(store) {
  if (!index) {
    own_ = XapianLexical::open(store.dir());
    index = own_.get();
  }
  if (index && index->generation() == store.generation()) {
    index_ = index;
    n_ = index_->size();
    return;
  }
  Stmt s(store.db(), "SELECT count(*) FROM chunks");
  if (s.step()) n_ = s.i64(0);
}

TermStats::~TermStats() = default;

double TermStats::idf(const std::string& word) {
  int64_t df = 0;
  auto w = words(word);
  if (!w.empty()) {
    if (index_) {
      df = index_->term_freq(stem(w[0]));
    } else {
      Stmt s(store_.db(), "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?");
      s.bind(1, "\"" + w[0] + "\"");
      if (s.step()) df = s.i64(0);
    }
  }
  double n = static_cast<double>(n_);
  return std::log(1.0 + (n - static_cast<double>(df) + 0.5) / (static_cast<double>(df) + 0.5));
}

double TermStats::absent_idf() const { return std::log(1.0 + (static_cast<double>(n_) + 0.5) / 0.5); }


}  // namespace mmkg
