// Store: figures and tables, their image files and the per-image cache (see store.h).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <signal.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/hash.h"
#include "store/atomic_file.h"
#include "store/sqlite_util.h"
#include "store/sqlite_store.h"

namespace mmkg {

namespace fs = std::filesystem;

namespace {

constexpr const char* kFigureCols =
    "f.id, f.doc_id, f.seq, f.kind, f.source, f.page, f.x0, f.y0, f.x1, f.y1, f.text_offset, f.label, f.caption, "
    "f.alt, f.refs, f.text, f.text_source, f.ocr_conf, f.description, f.visual_kind, f.table_md, f.image_hash, "
    "f.width, f.height, f.chunk_id, d.name";

StoredFigure read_figure(Stmt& s) {
  StoredFigure out;
  Figure& f = out.figure;
  f.id = s.text(0);
  out.doc_id = s.text(1);
  f.seq = s.i32(2);
  f.table = figure_kind_from_name(s.text(3)) == FigureKind::Table;
  f.source = s.text(4);
  f.page = s.i32(5);
  f.x0 = static_cast<float>(s.f64(6));
  f.y0 = static_cast<float>(s.f64(7));
  f.x1 = static_cast<float>(s.f64(8));
  f.y1 = static_cast<float>(s.f64(9));
  f.offset = s.i64(10);
  f.label = s.text(11);
  f.caption = s.text(12);
  f.alt = s.text(13);
  auto refs = nlohmann::json::parse(s.text(14), nullptr, false);
  if (refs.is_array())
    for (auto& r : refs)
      if (r.is_string()) f.references.push_back(r.get<std::string>());
  f.text = s.text(15);
  f.text_source = s.text(16);
  f.ocr_confidence = static_cast<float>(s.f64(17));
  f.description = s.text(18);
  f.visual_kind = s.text(19);
  f.table_markdown = s.text(20);
  f.image_hash = s.text(21);
  f.width = s.i32(22);
  f.height = s.i32(23);
  out.chunk_id = s.text(24);
  out.doc_name = s.text(25);
  return out;
}

}  // namespace

std::string SqliteStore::figure_path(const std::string& image_hash) const {
  return (fs::path(dir_) / "figures" / (image_hash + ".png")).string();
}

void SqliteStore::write_images(const std::vector<Figure>& figures) {
  for (const Figure& f : figures) {
    if (f.png.empty() || f.image_hash.empty()) continue;
    const std::string path = figure_path(f.image_hash);
    std::error_code ec;
    if (fs::exists(path, ec) && static_cast<size_t>(fs::file_size(path, ec)) == f.png.size()) continue;
    write_file_atomically(path, f.png, "the figure image");
  }
}

void SqliteStore::insert_figures(const std::string& doc_id, const std::vector<Chunk>& chunks, const std::vector<Figure>& figures) {
  if (figures.empty()) return;
  std::map<std::string, std::string> chunk_of;  // figure id -> its chunk
  for (const Chunk& c : chunks)
    if (!c.figure_id.empty()) chunk_of[c.figure_id] = c.id;
  Stmt ins(db_,
           "INSERT OR REPLACE INTO figures(id, doc_id, seq, kind, source, page, x0, y0, x1, y1, text_offset, label, "
           "caption, alt, refs, text, text_source, ocr_conf, description, visual_kind, table_md, image_hash, width, "
           "height, chunk_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  for (const Figure& f : figures) {
    ins.reset();
    nlohmann::json refs = f.references;
    ins.bind(1, f.id).bind(2, doc_id).bind(3, f.seq).bind(4, std::string(figure_kind_name(f.kind())));
    ins.bind(5, f.source).bind(6, f.page).bind(7, static_cast<double>(f.x0)).bind(8, static_cast<double>(f.y0));
    ins.bind(9, static_cast<double>(f.x1)).bind(10, static_cast<double>(f.y1)).bind(11, f.offset).bind(12, f.label);
    ins.bind(13, f.caption).bind(14, f.alt).bind(15, refs.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    ins.bind(16, f.text).bind(17, f.text_source).bind(18, static_cast<double>(f.ocr_confidence));
    ins.bind(19, f.description).bind(20, f.visual_kind).bind(21, f.table_markdown).bind(22, f.image_hash);
    ins.bind(23, f.width).bind(24, f.height);
    auto it = chunk_of.find(f.id);
    ins.bind(25, it == chunk_of.end() ? std::string() : it->second);
    ins.run();
  }
}

std::vector<StoredFigure> SqliteStore::figures_of(const std::string& doc_id) {
  std::vector<StoredFigure> out;
  Stmt s(db_, std::string("SELECT ") + kFigureCols +
                  " FROM figures f JOIN documents d ON d.id = f.doc_id WHERE f.doc_id = ? ORDER BY f.seq");
  s.bind(1, doc_id);
  while (s.step()) out.push_back(read_figure(s));
  return out;
}

std::vector<StoredFigure> SqliteStore::find_figures(const std::string& key) {
  std::vector<StoredFigure> out;
  Stmt s(db_, std::string("SELECT ") + kFigureCols + " FROM figures f JOIN documents d ON d.id = f.doc_id WHERE f.id = ?");
  s.bind(1, key);
  while (s.step()) out.push_back(read_figure(s));
  if (out.empty() && key.size() >= 4 && key.find_first_not_of("0123456789abcdef") == std::string::npos) {
    Stmt p(db_, std::string("SELECT ") + kFigureCols +
                    " FROM figures f JOIN documents d ON d.id = f.doc_id WHERE substr(f.id, 1, length(?1)) = ?1 ORDER BY f.id");
    p.bind(1, key);
    while (p.step()) out.push_back(read_figure(p));
  }
  return out;
}

std::vector<StoredFigure> SqliteStore::figures_labelled(const std::string& label) {
  std::vector<StoredFigure> out;
  Stmt s(db_, std::string("SELECT ") + kFigureCols +
                  " FROM figures f JOIN documents d ON d.id = f.doc_id WHERE f.label = ? ORDER BY d.name, f.seq");
  s.bind(1, label);
  while (s.step()) out.push_back(read_figure(s));
  return out;
}

int64_t SqliteStore::figure_count() {
  Stmt s(db_, "SELECT count(*) FROM figures");
  return s.step() ? s.i64(0) : 0;
}

std::optional<std::string> SqliteStore::cache_get(const std::string& key) {
  Stmt s(db_, "SELECT value FROM figure_cache WHERE key = ?");
  s.bind(1, key);
  if (s.step()) return s.text(0);
  return std::nullopt;
}

void SqliteStore::cache_put(const std::string& key, const std::string& value) {
  Stmt(db_, "INSERT OR REPLACE INTO figure_cache(key, value) VALUES (?, ?)").bind(1, key).bind(2, value).run();
}

namespace {

/// True for "NAME.tmpPID" or "NAME.tmpPID-N" whose process PID still runs: a writer's temporary
/// file, left alone while its writer lives.
bool live_temp(const std::string& name) {
  const size_t at = name.rfind(".tmp");
  if (at == std::string::npos) return false;
  std::string pid = name.substr(at + 4);
  pid = pid.substr(0, pid.find('-'));
  if (pid.empty() || pid.size() > 9 || pid.find_first_not_of("0123456789") != std::string::npos) return false;
  return ::kill(std::stoi(pid), 0) == 0;
}

}  // namespace

std::vector<std::string> SqliteStore::leftover_files() {
  std::vector<std::string> out;
  std::error_code ec;
  // Temporary files of a vector index save (vectors.idx.tmpPID-N) or any other atomic write in
  // the store folder whose writer died before its rename.
  for (auto it = fs::directory_iterator(dir_, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.find(".tmp") != std::string::npos && it->is_regular_file(ec) && !live_temp(name))
      out.push_back(it->path().string());
  }
  // Figure images no figure refers to: written before their document's transaction, which a kill
  // stopped, or left by a delete that was killed before it cleaned up.
  const fs::path dir = fs::path(dir_) / "figures";
  if (fs::is_directory(dir, ec)) {
    std::set<std::string> used;
    {
      Stmt s(db_, "SELECT DISTINCT image_hash FROM figures WHERE image_hash != ''");
      while (s.step()) used.insert(s.text(0));
    }
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      const std::string name = it->path().filename().string();
      const bool tmp = name.find(".tmp") != std::string::npos;
      if (tmp ? !live_temp(name) : !used.count(name.substr(0, name.find('.')))) out.push_back(it->path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

int SqliteStore::remove_unreferenced_images() {
  if (read_only_) return 0;
  int removed = 0;
  std::error_code ec;
  for (const auto& p : leftover_files())
    if (fs::remove(p, ec)) ++removed;
  return removed;
}

}  // namespace mmkg
