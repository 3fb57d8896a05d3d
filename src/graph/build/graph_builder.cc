#include "graph/build/graph_builder.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/half.h"
#include "core/hash.h"
#include "embed/embedder.h"
#include "graph/algo/graph_algo.h"
#include "graph/extract/rules.h"
#include "graph/resolve/acronym.h"
#include "index/lexical.h"
#include "store/sqlite_util.h"
#include "store/store.h"

namespace mmkg::graph {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The extraction cache (by chunk text and extractor), in the local mmkg database whatever the
// graph backend (a shared store's local copy: a cache of this node). Which documents each backend
// holds is the store's (Store::graph_documents).
void ensure_tables(sqlite3* db) {
  sqlite3_exec(db,
               "CREATE TABLE IF NOT EXISTS extractions(extractor TEXT NOT NULL, text_hash TEXT NOT NULL, "
               "result TEXT NOT NULL, PRIMARY KEY(extractor, text_hash)) WITHOUT ROWID;",
               nullptr, nullptr, nullptr);
}

json to_json(const ChunkExtraction& x) {
  json terms = json::array(), rels = json::array();
  for (const auto& t : x.terms)
    terms.push_back({t.surface, t.kind, t.expansion, t.definition, t.type, t.count});
  for (const auto& r : x.relations) {
    json row = {r.src, r.dst, r.type, r.sentence, r.weight};
    if (!r.description.empty()) row.push_back(r.description);
    rels.push_back(std::move(row));
  }
  return {{"t", terms}, {"r", rels}};
}

ChunkExtraction from_json(const json& j, const std::string& chunk_id) {
  ChunkExtraction x;
  x.chunk_id = chunk_id;
  for (const auto& t : j.at("t")) {
    TermCandidate c;
    c.surface = t[0];
    c.kind = t[1];
    c.expansion = t[2];
    c.definition = t[3];
    c.type = t[4];
    c.count = t[5];
    x.terms.push_back(std::move(c));
  }
  for (const auto& r : j.at("r")) {
    x.relations.push_back({r[0], r[1], r[2], r[3], r[4].get<double>(), r.size() > 5 ? r[5].get<std::string>() : ""});
  }
  return x;
}

// Extracts every chunk of a document, from the cache where possible, otherwise with
// ex.parallelism() threads. Only a model's extractions are cached: the rules read a chunk in about
// as long as its cached JSON takes to parse (1.9 s for 1,121 short chunks), and their cache
// took 12 MB of a 71 MB store for 1,000 passages (docs/BENCHMARKS.md, "Graph ingest"). When a chunk fails (a model server down), no new chunk is started,
// the chunks done so far are cached (a rerun does not pay for them again) and Error is thrown.
std::vector<ChunkExtraction> extract_document(Store& store, Extractor& ex, const DocumentRecord& doc,
                                              const std::vector<StoredChunk>& chunks, GraphSyncResult& res) {
  sqlite3* db = store.db();
  const std::string exid = ex.id();
  const bool cached = !exid.starts_with("rules-");
  std::vector<ChunkExtraction> out(chunks.size());
  std::vector<size_t> todo;
  if (!cached) {
    for (size_t i = 0; i < chunks.size(); ++i) todo.push_back(i);
  } else {
    Stmt get(db, "SELECT result FROM extractions WHERE extractor = ? AND text_hash = ?");
    for (size_t i = 0; i < chunks.size(); ++i) {
      get.reset();
      get.bind(1, exid).bind(2, hash_hex(chunks[i].chunk.text));
      bool hit = false;
      if (get.step()) {
        try {
          out[i] = from_json(json::parse(get.text(0)), chunks[i].chunk.id);
          hit = true;
        } catch (const std::exception&) {  // an unreadable cache row is recomputed
        }
      }
      if (hit) ++res.extractions_cached;
      else todo.push_back(i);
    }
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::vector<char> done(todo.size(), 0);
  std::mutex err_mu;
  std::string error;
  auto work = [&] {
    for (size_t k; !failed.load() && (k = next.fetch_add(1)) < todo.size();) {
      const auto& c = chunks[todo[k]].chunk;
      try {
        out[todo[k]] = ex.extract({c.id, c.doc_id, doc.title, c.heading_path, c.text});
        out[todo[k]].chunk_id = c.id;
        done[k] = 1;
      } catch (const std::exception& e) {
        failed = true;
        std::lock_guard<std::mutex> g(err_mu);
        if (error.empty()) error = e.what();
      }
    }
  };
  const unsigned n = std::min<unsigned>(static_cast<unsigned>(std::max(1, ex.parallelism())),
                                        static_cast<unsigned>(todo.size()));
  if (n <= 1) {
    work();
  } else {
    std::vector<std::thread> ts;
    for (unsigned i = 0; i < n; ++i) ts.emplace_back(work);
    for (auto& t : ts) t.join();
  }
  long long extracted = 0;
  if (!cached) {
    for (char d : done) extracted += d;
  } else if (!todo.empty()) {
    Transaction tx(db);
    Stmt put(db, "INSERT OR REPLACE INTO extractions(extractor, text_hash, result) VALUES (?,?,?)");
    for (size_t k = 0; k < todo.size(); ++k) {
      if (!done[k]) continue;
      const size_t i = todo[k];
      put.reset();
      put.bind(1, exid).bind(2, hash_hex(chunks[i].chunk.text)).bind(3, to_json(out[i]).dump());
      put.run();
      ++extracted;
    }
    tx.commit();
  }
  res.chunks_extracted += extracted;
  if (!error.empty()) throw Error(doc.name + ": extraction failed: " + error);
  return out;
}

// The chunk nodes of one document's `chunks`, for a graph store that keeps them (Neo4j): the text
// the store's FTS5 index holds for each, and its cached vector of `vector_model` when there is one.
std::vector<ChunkNode> chunk_nodes(Store& store, const DocumentRecord& doc, const std::vector<StoredChunk>& chunks,
                                   const std::string& vector_model) {
  std::vector<std::string> texts;
  for (const auto& c : chunks) texts.push_back(c.chunk.text);
  std::vector<std::vector<float>> vecs;
  if (!vector_model.empty()) vecs = store.cached_embeddings(vector_model, texts);
  const std::string context = document_context(doc.name, doc.title);
  std::vector<ChunkNode> nodes;
  for (size_t k = 0; k < chunks.size(); ++k) {
    const Chunk& c = chunks[k].chunk;
    nodes.push_back({c.id, c.doc_id, k < vecs.size() ? vecs[k] : std::vector<float>{}, c.heading_path, c.text, context});
  }
  return nodes;
}

std::vector<std::string> heading_paths(const std::vector<StoredChunk>& chunks) {
  std::vector<std::string> out;
  out.reserve(chunks.size());
  for (const auto& c : chunks) out.push_back(c.chunk.heading_path);
  return out;
}

FigureNode figure_node(const StoredFigure& sf) {
  const Figure& f = sf.figure;
  return FigureNode{f.id, sf.doc_id, sf.chunk_id, f.kind(), f.label, f.caption, f.page, {}};
}

// Figure nodes for the figure chunks among `chunks`, each linked to the entities the delta's
// mentions place in its chunk (the chunk holds the caption, references, inner text and
// description, so those are the entities the figure shows or is said to show). `figs` (the
// document's figures by id) gives page, label, kind and caption; a figure is taken out of it once
// added. With `rest`, the figures left (those without a chunk: nothing to search them by) get a
// node too, with no links, so that every figure of the document is in the graph.
void add_figures(GraphDelta& delta, const std::vector<StoredChunk>& chunks, std::map<std::string, StoredFigure>& figs,
                 bool rest) {
  std::unordered_map<std::string, std::vector<std::string>> entities_of;  // chunk id -> entity ids
  for (const auto& m : delta.mentions) entities_of[m.chunk_id].push_back(m.entity_id);
  for (const auto& sc : chunks) {
    const Chunk& c = sc.chunk;
    if (c.figure_id.empty()) continue;
    FigureNode n;
    if (auto it = figs.find(c.figure_id); it != figs.end()) {
      n = figure_node(it->second);
      figs.erase(it);
    } else {  // a figure chunk without its figure row (a damaged store): what the chunk knows
      n = FigureNode{c.figure_id, c.doc_id, c.id, sc.figure_kind,
                     sc.figure_label, "", c.page_start, {}};
    }
    n.chunk_id = c.id;
    if (auto it = entities_of.find(c.id); it != entities_of.end()) n.entity_ids = it->second;
    delta.figures.push_back(std::move(n));
  }
  if (rest) {
    for (const auto& [id, sf] : figs) delta.figures.push_back(figure_node(sf));
    figs.clear();
  }
}

}  // namespace

ExtractorCounters counters_since(const ExtractorCounters& before, const ExtractorCounters& now) {
  ExtractorCounters d;
  d.model_calls = now.model_calls - before.model_calls;
  d.model_requests = now.model_requests - before.model_requests;
  d.model_cached = now.model_cached - before.model_cached;
  d.fallbacks = now.fallbacks - before.fallbacks;
  d.prompt_tokens = now.prompt_tokens - before.prompt_tokens;
  d.completion_tokens = now.completion_tokens - before.completion_tokens;
  d.first_fallback = before.fallbacks == now.fallbacks ? "" : now.first_fallback;
  return d;
}

// Names are looked up in memory first (a run asks again for the names of the stored entities
// that its documents' names may merge with, and prefetch() has embedded a group's names in one
// batch), then in the store's cache, then embedded. A name reaches the store's cache when embed()
// is asked for it, not when prefetched: the cache keeps the names resolution used. The memo is
// bounded (kMemoNames names, about 1.5 KB each at 384 dimensions) and shared by the closures' copies;
// a mutex guards it, so that `embed` stays thread-safe for EntityIndex::link.
constexpr size_t kMemoNames = 200000;

NameEmbedding make_name_embedding(Store& store, Embedder* embedder, bool keep_in_store) {
  if (!embedder) return {};
  struct Memo {
    std::mutex mu;
    std::unordered_map<std::string, std::pair<std::vector<float>, bool>> vecs;  // vector, in the store
    void keep(const std::string& name, std::vector<float> v, bool stored) {
      if (vecs.size() >= kMemoNames) vecs.clear();
      vecs.insert_or_assign(name, std::make_pair(std::move(v), stored));
    }
  };
  auto memo = std::make_shared<Memo>();
  // Vectors of `names` from the store's cache, else embedded (in one call): (vectors, found in the store).
  auto lookup = [&store, embedder](const std::vector<std::string>& names) {
    std::pair<std::vector<std::vector<float>>, std::vector<bool>> out;
    out.first = store.cached_embeddings(embedder->id(), names);
    out.second.resize(names.size());
    std::vector<std::string> missing;
    std::vector<size_t> where;
    for (size_t i = 0; i < names.size(); ++i) {
      out.second[i] = !out.first[i].empty();
      if (!out.second[i]) missing.push_back(names[i]), where.push_back(i);
    }
    if (!missing.empty()) {
      std::vector<std::vector<float>> fresh = embed_rows(*embedder, missing, EmbedKind::Document);
      // Rounded as the store keeps name vectors, so a name compares the same in this run and the next.
      for (size_t i = 0; i < missing.size() && i < fresh.size(); ++i)
        round_to_half(fresh[i]), out.first[where[i]] = std::move(fresh[i]);
    }
    return out;
  };
  NameEmbedding out;
  out.embed = [&store, embedder, memo, lookup, keep_in_store](const std::vector<std::string>& names) {
    std::vector<std::vector<float>> vecs(names.size());
    std::vector<std::string> unknown, unstored;
    std::vector<size_t> at;
    std::vector<std::vector<float>> unstored_vecs;
    {
      std::lock_guard<std::mutex> g(memo->mu);
      for (size_t i = 0; i < names.size(); ++i) {
        auto it = memo->vecs.find(names[i]);
        if (it == memo->vecs.end()) {
          unknown.push_back(names[i]), at.push_back(i);
          continue;
        }
        vecs[i] = it->second.first;
        if (!it->second.second) {
          it->second.second = true;
          unstored.push_back(names[i]), unstored_vecs.push_back(it->second.first);
        }
      }
    }
    auto [found, stored] = lookup(unknown);
    for (size_t i = 0; i < unknown.size(); ++i)
      if (!stored[i]) unstored.push_back(unknown[i]), unstored_vecs.push_back(found[i]);
    // Kept for the next run, where the store can be written (a read-only store computes them).
    if (keep_in_store && !unstored.empty() && !store.read_only())
      store.put_embeddings(embedder->id(), unstored, unstored_vecs, /*chunk_vectors=*/false);
    std::lock_guard<std::mutex> g(memo->mu);
    for (size_t i = 0; i < unknown.size(); ++i) {
      vecs[at[i]] = found[i];
      memo->keep(unknown[i], std::move(found[i]), true);
    }
    return vecs;
  };
  out.prefetch = [memo, lookup](const std::vector<std::string>& names) {
    std::vector<std::string> unknown;
    {
      std::lock_guard<std::mutex> g(memo->mu);
      std::set<std::string> seen;
      for (const auto& n : names)
        if (!memo->vecs.count(n) && seen.insert(n).second) unknown.push_back(n);
    }
    if (unknown.empty()) return;
    auto [found, stored] = lookup(unknown);
    std::lock_guard<std::mutex> g(memo->mu);
    for (size_t i = 0; i < unknown.size(); ++i) memo->keep(unknown[i], std::move(found[i]), stored[i]);
  };
  return out;
}

EmbedNames make_embed_names(Store& store, Embedder* embedder) {
  return make_name_embedding(store, embedder, /*keep_in_store=*/false).embed;
}

long long graph_document_count(Store& store, const std::string& backend_key) {
  return static_cast<long long>(store.graph_document_count(backend_key));
}

// One sync_graph run: what it writes with, and what it has done.
struct GraphSync {
  Store& store;
  GraphStore& graph;
  Extractor& extractor;
  const EmbedNames& embed;
  const GraphSyncOptions& opt;
  TermStats& stats;
  NameCatalog catalog{graph};  ///< the stored names by head word, for the run's resolutions
  bool same_db = false;       ///< the graph lives in the store's database
  bool keeps_chunks = false;  ///< the graph keeps chunk nodes (Neo4j with its search indexes)
  GraphSyncResult res{};
  /// Term IDFs, cached: every slice of every document asks for the same words.
  std::unordered_map<std::string, double> idf_cache{};
  double idf(const std::string& w) {
    auto it = idf_cache.find(w);
    if (it != idf_cache.end()) return it->second;
    const double v = stats.idf(w);
    idf_cache.emplace(w, v);
    return v;
  }
  /// A document read from the store, and for one of at most kSlice chunks its extraction.
  struct Prepared {
    const DocumentRecord* doc;
    std::vector<StoredChunk> chunks;
    std::vector<ChunkExtraction> ex;
    bool extracted = false;  ///< `ex` holds the extraction of `chunks` (a document of one slice)
  };
  static constexpr size_t kSlice = 2000;
  /// Reads `doc`'s chunks and, when they are at most kSlice, extracts them.
  Prepared prepare(const DocumentRecord& doc);
  /// The extraction of one slice of chunks, terms ranked and section subjects added.
  std::vector<ChunkExtraction> extract_slice(const DocumentRecord& doc, const std::vector<StoredChunk>& chunks);
  void build(Prepared& p);
  /// Builds `docs` (in order), the small ones extracted first as a group whose candidate names
  /// are embedded in one batch (opt.prefetch_names). Calls `done` after each document.
  void build_all(const std::vector<const DocumentRecord*>& docs, const std::function<void(size_t)>& done);
  void mark(const std::string& doc_id, bool present);
};

namespace {

// A write to the graph: one transaction with the store's bookkeeping when the graph lives in the
// store's database (`same_db`), else as it comes (Neo4j has its own).
template <typename Fn>
void graph_write(bool same_db, sqlite3* db, Fn&& fn) {
  if (!same_db) return fn();
  Transaction tx(db);
  fn();
  tx.commit();
}

// What the graph holds (documents in it) and which of those older rules built ("rules-v3" when
// the rules are now "rules-v4"): those are built again, so an upgrade's better graph reaches
// existing stores on their next ingest. A graph a model built is kept whatever extractor runs now
// (it cost model calls; --extractor chooses).
std::pair<std::set<std::string>, std::set<std::string>> graph_documents(Store& store, const std::string& backend_key,
                                                                        const std::string& extractor_id) {
  std::set<std::string> in_graph, stale;
  auto rules = [](const std::string& id) { return id.starts_with("rules-"); };
  for (const auto& m : store.graph_documents(backend_key)) {
    in_graph.insert(m.doc_id);
    if (rules(m.extractor) && rules(extractor_id) && m.extractor != extractor_id) stale.insert(m.doc_id);
  }
  return {in_graph, stale};
}

// The communities of the whole graph, computed again (after documents came or went).
void rebuild_communities(Store& store, GraphStore& graph, bool same_db) {
  GraphSnapshot snap{graph.entities(), graph.relations(), graph.mentions()};
  auto chunk_text = [&store](const std::string& id) {
    auto c = store.chunk(id);
    return c ? c->chunk.text : std::string();
  };
  std::vector<Community> cs = detect_communities(snap, chunk_text);
  graph_write(same_db, store.db(), [&] { graph.replace_communities(cs); });
}

}  // namespace

// One document into the graph: removed first (a document not marked as in the graph may hold a
// killed run's slices), then built in slices of kSlice chunks (termhood is then per slice), so
// memory stays bounded whatever the document's size; marked as in the graph after its last slice.
// A document of one slice comes extracted (prepare()).
void GraphSync::build(Prepared& p) {
  const DocumentRecord& doc = *p.doc;
  std::vector<StoredChunk>& all_chunks = p.chunks;
  std::map<std::string, StoredFigure> figs;
  for (auto& sf : store.figures_of(doc.id)) figs.emplace(sf.figure.id, std::move(sf));
  auto tw = Clock::now();
  graph_write(same_db, store.db(), [&] { graph.remove_document(doc.id); });
  res.write_seconds += since(tw);
  for (size_t from = 0; from < all_chunks.size() || from == 0; from += kSlice) {
    const size_t to = std::min(all_chunks.size(), from + kSlice);
    std::vector<StoredChunk> chunks(std::make_move_iterator(all_chunks.begin() + static_cast<long>(from)),
                                    std::make_move_iterator(all_chunks.begin() + static_cast<long>(to)));
    std::vector<ChunkExtraction> ex = p.extracted ? std::move(p.ex) : extract_slice(doc, chunks);
    p.extracted = false;

    auto tr = Clock::now();
    const bool last = to >= all_chunks.size();
    GraphDelta delta = resolve_document(ex, doc.id, graph, embed, opt.resolve, &catalog);
    ex.clear();
    add_figures(delta, chunks, figs, last);
    res.resolve_seconds += since(tr);

    tw = Clock::now();
    graph_write(same_db, store.db(), [&] {
      graph.upsert(delta);
      catalog.add(delta);
      if (!same_db && keeps_chunks) graph.upsert_chunks(chunk_nodes(store, doc, chunks, opt.vector_model));
      if (last) mark(doc.id, true);
    });
    res.write_seconds += since(tw);
    if (last) break;
  }
}

std::vector<ChunkExtraction> GraphSync::extract_slice(const DocumentRecord& doc, const std::vector<StoredChunk>& chunks) {
  auto te = Clock::now();
  std::vector<ChunkExtraction> ex = extract_document(store, extractor, doc, chunks, res);
  rank_terms(ex, [this](const std::string& w) { return idf(w); });
  add_section_subjects(ex, heading_paths(chunks));
  res.extract_seconds += since(te);
  return ex;
}

GraphSync::Prepared GraphSync::prepare(const DocumentRecord& doc) {
  Prepared p{&doc, store.chunks_of(doc.id), {}};
  if (p.chunks.size() <= kSlice) {
    p.ex = extract_slice(doc, p.chunks);
    p.extracted = true;
  }
  return p;
}

namespace {

/// The names resolution may embed for a group of extracted documents: every surface that is no
/// acronym and every acronym's expansion as resolution trims it (a group's display name is one of
/// them).
std::vector<std::string> candidate_names(const std::vector<std::vector<ChunkExtraction>*>& docs) {
  std::set<std::string> out;
  for (const auto* doc : docs)
    for (const ChunkExtraction& c : *doc)
      for (const TermCandidate& t : c.terms) {
        const bool acronym = t.kind == "acronym" || t.type == "acronym" || looks_like_acronym(t.surface);
        if (!acronym) out.insert(t.surface);
        if (!t.expansion.empty())
          if (std::string e = trim_expansion(t.surface, t.expansion); !e.empty()) out.insert(std::move(e));
      }
  return {out.begin(), out.end()};
}

}  // namespace

// Groups of at most kGroupDocs documents and kGroupChunks chunks: the embedder runs a batch of
// a few hundred short names about as fast per name as its largest batches, while one document's
// names (eight on average for a Wikipedia passage) cost about six times as much per name, each
// call reading all the model's weights for a few dozen tokens. A document that
// fails to extract ends the run after the group's documents before it are built.
void GraphSync::build_all(const std::vector<const DocumentRecord*>& docs, const std::function<void(size_t)>& done) {
  constexpr size_t kGroupDocs = 64, kGroupChunks = 256;
  for (size_t i = 0; i < docs.size();) {
    std::vector<Prepared> group;  // the small documents, then at most one large one
    size_t chunks = 0;
    std::exception_ptr failed;
    while (i + group.size() < docs.size() && group.size() < kGroupDocs && chunks < kGroupChunks) {
      try {
        group.push_back(prepare(*docs[i + group.size()]));
      } catch (...) {
        failed = std::current_exception();
        break;
      }
      if (!group.back().extracted) break;  // a large document: built slice by slice, after the group
      chunks += group.back().chunks.size();
    }
    if (opt.prefetch_names && group.size() > 1) {
      std::vector<std::vector<ChunkExtraction>*> exs;
      for (auto& p : group) exs.push_back(&p.ex);
      auto tr = Clock::now();
      opt.prefetch_names(candidate_names(exs));
      res.resolve_seconds += since(tr);
    }
    for (auto& p : group) {
      build(p);
      done(i++);
    }
    if (failed) std::rethrow_exception(failed);
  }
}

void GraphSync::mark(const std::string& doc_id, bool present) {
  store.mark_graph_document(opt.backend_key, doc_id, extractor.id(), present);
}

GraphSyncResult sync_graph(Store& store, GraphStore& graph, Extractor& extractor, const EmbedNames& embed,
                           const GraphSyncOptions& opt) {
  const auto t0 = Clock::now();
  TermStats stats(store);
  GraphSync sync{store, graph, extractor, embed, opt, stats};
  GraphSyncResult& res = sync.res;
  res.extractor = extractor.id();
  const ExtractorCounters before = extractor.counters();
  sqlite3* db = store.db();
  ensure_tables(db);
  sync.same_db = graph.backend() == Backend::Sqlite;
  const bool same_db = sync.same_db;

  // What the graph holds versus what the store holds.
  const auto [in_graph, stale] = graph_documents(store, opt.backend_key, extractor.id());
  std::vector<DocumentRecord> docs = store.documents();
  std::set<std::string> in_store;
  for (const auto& d : docs) in_store.insert(d.id);
  for (const auto& id : in_graph) {
    if (in_store.count(id)) continue;
    const auto tw = Clock::now();
    graph_write(same_db, db, [&] {
      graph.remove_document(id);
      sync.mark(id, false);
    });
    res.write_seconds += since(tw);
    ++res.documents_removed;
  }
  if (!stale.empty()) {  // the older rules' cached extractions are never read again
    Stmt s(db, "DELETE FROM extractions WHERE extractor LIKE 'rules-%' AND extractor != ?");
    s.bind(1, extractor.id());
    s.run();
  }
  std::vector<const DocumentRecord*> todo;
  for (const auto& d : docs)
    if (opt.add_documents && (!in_graph.count(d.id) || stale.count(d.id))) todo.push_back(&d);

  // Chunk nodes an older mmkg wrote to Neo4j lack their text (schema version 4): written here for
  // the documents the graph keeps (those in `todo` get theirs below), then the store is told.
  sync.keeps_chunks = !same_db && (graph.supports_vector_search() || graph.supports_text_search());
  if (sync.keeps_chunks && opt.add_documents && graph.chunk_text_pending()) {
    auto tw = Clock::now();
    for (const auto& d : docs)
      if (in_graph.count(d.id) && !stale.count(d.id))
        graph.upsert_chunks(chunk_nodes(store, d, store.chunks_of(d.id), opt.vector_model));
    graph.chunk_text_restored();
    res.write_seconds += since(tw);
  }

  sync.build_all(todo, [&](size_t i) {
    ++res.documents_added;
    if (opt.progress) opt.progress(i + 1, todo.size(), todo[i]->name);
  });
  if (opt.communities && (res.documents_added || res.documents_removed)) {
    auto tc = Clock::now();
    rebuild_communities(store, graph, same_db);
    res.community_seconds = since(tc);
  }
  res.stats = graph.stats();
  res.communities = static_cast<int>(res.stats.communities);
  res.model = counters_since(before, extractor.counters());
  res.seconds = since(t0);
  return res;
}

}  // namespace mmkg::graph
