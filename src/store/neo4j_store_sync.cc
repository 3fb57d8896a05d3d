// The Neo4j store's local copy: the JSON forms of its records, and sync(), which applies the
// shared store's changes (documents committed and deleted since the generation the copy reflects)
// to the node-local SQLite store.
#include <algorithm>
#include <set>
#include <tuple>

#include "core/base64.h"
#include "core/error.h"
#include "core/hash.h"
#include "store/neo4j_store_impl.h"
#include "store/write_lock.h"

namespace mmkg::neo4j_store {

namespace {

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() || !it->is_string() ? std::string() : it->get<std::string>();
}

int64_t i64(const json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() ? 0 : as_i64(*it);
}

}  // namespace

json float_array(const std::vector<float>& v) {
  json a = json::array();
  for (float x : v) a.push_back(static_cast<double>(x));
  return a;
}

int64_t as_i64(const json& v) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number()) return static_cast<int64_t>(v.get<double>());
  return 0;
}

void append(WriteResult& out, WriteResult&& r) {
  out.added_rowids.insert(out.added_rowids.end(), r.added_rowids.begin(), r.added_rowids.end());
  out.removed_rowids.insert(out.removed_rowids.end(), r.removed_rowids.begin(), r.removed_rowids.end());
  out.removed_hashes.insert(out.removed_hashes.end(), r.removed_hashes.begin(), r.removed_hashes.end());
}

json document_props(const DocumentRecord& d, const std::string& text, size_t chunks) {
  return {{"id", d.id},     {"path", d.path},   {"name", d.name},   {"format", d.format},
          {"title", d.title}, {"bytes", d.bytes}, {"pages", d.pages}, {"chunks", static_cast<int64_t>(chunks)},
          {"text", text},   {"ingested_at", d.ingested_at}};
}

DocumentRecord document_from(const json& p) {
  DocumentRecord d;
  d.id = str(p, "id");
  d.path = str(p, "path");
  d.name = str(p, "name");
  d.format = str(p, "format");
  d.title = str(p, "title");
  d.bytes = i64(p, "bytes");
  d.pages = static_cast<int>(i64(p, "pages"));
  d.chunks = static_cast<int>(i64(p, "chunks"));
  d.ingested_at = str(p, "ingested_at");
  return d;
}

json chunk_props(const Chunk& c, const DocumentRecord& d, const std::string& embed_model) {
  json boxes = json::array();
  for (const PageBox& b : c.boxes)
    for (double v : {static_cast<double>(b.page), static_cast<double>(b.x0), static_cast<double>(b.y0),
                     static_cast<double>(b.x1), static_cast<double>(b.y1)})
      boxes.push_back(v);
  json p = {{"id", c.id},
            {"doc_id", d.id},  // the document's, as the embedded store keeps it (not Chunk::doc_id)
            {"seq", c.seq},
            {"page_start", c.page_start},
            {"page_end", c.page_end},
            {"heading_path", c.heading_path},
            {"start", c.start},
            {"end", c.end},
            {"text", c.text},
            {"text_hash", hash_hex(c.text)},
            {"context", document_context(d.name, d.title)},
            {"figure_id", c.figure_id},
            {"boxes", std::move(boxes)}};
  // Only with a model: the vector index covers the chunks that have one, of one dimension.
  if (!c.vector.empty() && !embed_model.empty()) {
    p["embedding"] = float_array(c.vector);
    p["embed_model"] = embed_model;
  }
  return p;
}

Chunk chunk_from(const json& p, std::string* embed_model) {
  Chunk c;
  c.id = str(p, "id");
  c.doc_id = str(p, "doc_id");
  c.seq = static_cast<int>(i64(p, "seq"));
  c.page_start = static_cast<int>(i64(p, "page_start"));
  c.page_end = static_cast<int>(i64(p, "page_end"));
  c.heading_path = str(p, "heading_path");
  c.start = i64(p, "start");
  c.end = i64(p, "end");
  c.text = str(p, "text");
  c.figure_id = str(p, "figure_id");
  if (auto it = p.find("boxes"); it != p.end() && it->is_array())
    for (size_t i = 0; i + 4 < it->size(); i += 5)
      c.boxes.push_back({static_cast<int>((*it)[i].get<double>()), (*it)[i + 1].get<float>(),
                         (*it)[i + 2].get<float>(), (*it)[i + 3].get<float>(), (*it)[i + 4].get<float>()});
  if (auto it = p.find("embedding"); it != p.end() && it->is_array()) {
    for (const auto& x : *it) c.vector.push_back(x.get<float>());
    if (embed_model) *embed_model = str(p, "embed_model");
  }
  return c;
}

json figure_props(const Figure& f, const std::string& doc_id) {
  json data = {{"seq", f.seq},
               {"table", f.table},
               {"source", f.source},
               {"page", f.page},
               {"box", {f.x0, f.y0, f.x1, f.y1}},
               {"offset", f.offset},
               {"label", f.label},
               {"caption", f.caption},
               {"alt", f.alt},
               {"references", f.references},
               {"text", f.text},
               {"text_source", f.text_source},
               {"ocr_confidence", f.ocr_confidence},
               {"description", f.description},
               {"visual_kind", f.visual_kind},
               {"table_markdown", f.table_markdown},
               {"width", f.width},
               {"height", f.height},
               {"image_hash", f.image_hash}};
  return {{"id", f.id},
          {"doc_id", doc_id},
          {"seq", f.seq},
          {"image_hash", f.image_hash},
          {"data", data.dump(-1, ' ', false, json::error_handler_t::replace)}};
}

Figure figure_from(const json& props) {
  Figure f;
  f.id = str(props, "id");
  const json d = json::parse(str(props, "data"));
  f.seq = d.value("seq", 0);
  f.table = d.value("table", false);
  f.source = d.value("source", "");
  f.page = d.value("page", 0);
  const json box = d.value("box", json::array({0, 0, 0, 0}));
  f.x0 = box[0].get<float>();
  f.y0 = box[1].get<float>();
  f.x1 = box[2].get<float>();
  f.y1 = box[3].get<float>();
  f.offset = d.value("offset", int64_t{0});
  f.label = d.value("label", "");
  f.caption = d.value("caption", "");
  f.alt = d.value("alt", "");
  f.references = d.value("references", std::vector<std::string>{});
  f.text = d.value("text", "");
  f.text_source = d.value("text_source", "");
  f.ocr_confidence = d.value("ocr_confidence", -1.0f);
  f.description = d.value("description", "");
  f.visual_kind = d.value("visual_kind", "");
  f.table_markdown = d.value("table_markdown", "");
  f.width = d.value("width", 0);
  f.height = d.value("height", 0);
  f.image_hash = d.value("image_hash", "");
  return f;
}

int64_t Neo4jStore::remote_generation() {
  auto r = db_.read("MATCH (s:MmkgStore {key: 'store'}) RETURN s.generation");
  if (r.rows.empty()) throw Error(location() + ": the shared store's counter node is gone (was the database wiped?); "
                                  "run `mmkg ingest PATH --store " + location() + "` to make it again");
  return as_i64(r.rows[0][0]);
}

void Neo4jStore::apply_tombstone(const std::string& id, WriteResult& out) {
  WriteResult wr;
  if (local_->delete_document(id, &wr)) append(out, std::move(wr));
}

// Copies one committed document from Neo4j into the local store (replacing the copy it has). A
// document deleted between the listing and these reads (fewer chunks than it says) is skipped:
// its tombstone, at a later generation, comes with the next sync.
void Neo4jStore::apply_document(const std::string& id, WriteResult& out) {
  const json p = {{"id", id}};
  auto d = db_.read("MATCH (d:Document {id: $id}) RETURN properties(d)", p);
  if (d.rows.empty()) return;
  const json& props = d.rows[0][0];
  DocumentRecord rec = document_from(props);
  auto c = db_.read("MATCH (c:Chunk {doc_id: $id}) RETURN properties(c) ORDER BY c.seq", p);
  std::vector<Chunk> chunks;
  std::string model;
  for (const auto& row : c.rows) {
    std::string m;
    chunks.push_back(chunk_from(row[0], &m));
    if (!m.empty()) model = m;
  }
  if (static_cast<int64_t>(chunks.size()) != rec.chunks) return;
  auto f = db_.read(
      "MATCH (f:FigureRecord {doc_id: $id}) OPTIONAL MATCH (i:Image {hash: f.image_hash}) "
      "RETURN properties(f), i.png ORDER BY f.seq",
      p);
  std::vector<Figure> figures;
  for (const auto& row : f.rows) {
    figures.push_back(figure_from(row[0]));
    if (row[1].is_string()) figures.back().png = base64_decode(row[1].get<std::string>());
  }
  const std::string text = props.value("text", "");
  std::optional<std::string> replace;
  if (local_->find_by_id(id)) replace = id;
  append(out, local_->put_document(rec, text, chunks, replace, model, figures));
}

WriteResult Neo4jStore::sync() {
  WriteResult out;
  StoreWriteLock lock(local_->dir(), {}, "sync.lock");
  const std::string mark = local_->meta("shared_generation");
  int64_t have = mark.empty() ? 0 : std::stoll(mark);
  const int64_t now = remote_generation();
  if (now == have) return out;
  // A counter that went backwards (a restored backup): everything is read again, and what the
  // shared store no longer has goes.
  if (now < have) {
    have = 0;
    std::set<std::string> remote;
    for (const auto& row : db_.read("MATCH (d:Document) RETURN d.id").rows) remote.insert(row[0].get<std::string>());
    for (const auto& d : local_->documents())
      if (!remote.count(d.id)) apply_tombstone(d.id, out);
  }
  // Tombstones before documents of the same generation: a document replaced by itself (the
  // same content at a smaller path) is deleted, then written.
  std::vector<std::tuple<int64_t, int, std::string>> events;
  const json range = {{"a", have}, {"b", now}};
  for (const auto& row : db_.read("MATCH (t:Tombstone) WHERE t.gen > $a AND t.gen <= $b RETURN t.gen, t.doc_id", range).rows)
    events.emplace_back(as_i64(row[0]), 0, row[1].get<std::string>());
  for (const auto& row : db_.read("MATCH (d:Document) WHERE d.gen > $a AND d.gen <= $b RETURN d.gen, d.id", range).rows)
    events.emplace_back(as_i64(row[0]), 1, row[1].get<std::string>());
  std::sort(events.begin(), events.end());
  for (const auto& [gen, kind, id] : events) {
    if (kind == 0) apply_tombstone(id, out);
    else apply_document(id, out);
  }
  local_->set_meta("shared_generation", std::to_string(now));
  return out;
}

}  // namespace mmkg::neo4j_store
