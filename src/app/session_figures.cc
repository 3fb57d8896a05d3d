// Session: figures and documents as Markdown (mmkg figure, mmkg export, the MCP server's resources).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include "app/session.h"
#include "core/error.h"
#include "store/sqlite_util.h"
#include "store/store.h"

namespace mmkg {

namespace fs = std::filesystem;

FigureReport Session::figure(const std::string& id, const std::string& out_file) {
  auto found = store().find_figures(id);
  if (found.empty())
    throw NotFoundError("figure " + id + ": no such figure; `mmkg search QUERY --json` shows figure ids (\"figure_id\")");
  if (found.size() > 1)
    throw UsageError("figure " + id + ": matches " + std::to_string(found.size()) + " figures; give more of its id");
  FigureReport rep;
  rep.figure = std::move(found.front());
  if (!rep.figure.figure.image_hash.empty()) rep.image_path = store().figure_path(rep.figure.figure.image_hash);
  if (!out_file.empty()) {
    if (rep.image_path.empty())
      throw UsageError("figure " + id + ": this table has no image; its rows are in `mmkg figure " + id + " --json`");
    std::error_code ec;
    if (!fs::exists(rep.image_path, ec))
      throw IOError(rep.image_path + ": the figure's image is missing from the store; ingest its document again");
    fs::copy_file(rep.image_path, out_file, fs::copy_options::overwrite_existing, ec);
    if (ec) throw IOError(out_file + ": cannot write the image (" + ec.message() + ")");
    rep.written = out_file;
  }
  return rep;
}

namespace {

std::string stem_of(const std::string& name) {
  auto dot = name.rfind('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

// Under a figure in the annotated export: what was read in it and what a vision model saw.
std::string annotation(const Figure& f) {
  std::string out;
  auto quote = [&](const std::string& title, const std::string& body) {
    if (body.empty()) return;
    out += "\n> **" + title + ":**";
    size_t pos = 0;
    bool first = true;
    while (pos <= body.size()) {
      size_t nl = body.find('\n', pos);
      std::string line = body.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      out += first ? " " + line : "\n> " + line;
      first = false;
      if (nl == std::string::npos) break;
      pos = nl + 1;
    }
    out += "\n";
  };
  std::string src = f.text_source == "ocr" ? "Text in the figure (OCR)" : "Text in the figure";
  quote(src, f.text);
  if (!f.description.empty()) quote("Description" + (f.visual_kind.empty() ? std::string() : " (" + f.visual_kind + ")"), f.description);
  return out;
}

/// The one document `key` names: NotFoundError (`missing_is_usage`: UsageError) when none does,
/// UsageError when several do.
DocumentRecord one_document(Store& store, const std::string& key, bool missing_is_usage) {
  auto docs = store.resolve(key);
  if (docs.empty()) {
    const std::string msg = key + ": no such document in the store; `mmkg stats` lists them";
    if (missing_is_usage) throw UsageError(msg);
    throw NotFoundError(msg);
  }
  if (docs.size() > 1)
    throw UsageError(key + ": matches " + std::to_string(docs.size()) + " documents; name it by path or id");
  return docs.front();
}

/// Gives the Markdown link target of a figure with an image (copying it where the link points,
/// for the export); `page0` is its 0-based page, `k` its number on that page.
using FigureLink = std::function<std::string(const Figure& f, int page0, int k)>;

/// Document `d` as Markdown: its body with its figures in place (tables as their rows), each
/// figure's text and description under it when `annotated`.
std::string document_as_markdown(Store& store, const DocumentRecord& d, bool annotated, const FigureLink& link) {
  const std::string text = store.document_text(d.id);
  // The body ends where the figures' own chunks (appended after it) begin.
  size_t body_end = text.size();
  for (const StoredChunk& c : store.chunks_of(d.id))
    if (!c.chunk.figure_id.empty()) body_end = std::min(body_end, static_cast<size_t>(std::max<int64_t>(0, c.chunk.start - 2)));
  std::vector<StoredFigure> figs = store.figures_of(d.id);
  std::stable_sort(figs.begin(), figs.end(), [](const StoredFigure& a, const StoredFigure& b) {
    return a.figure.offset < b.figure.offset;
  });
  std::map<int, int> per_page;  // figures numbered per page, as pymupdf4llm does
  std::string md;
  size_t pos = 0;
  for (const StoredFigure& sf : figs) {
    const Figure& f = sf.figure;
    size_t at = std::min(body_end, static_cast<size_t>(std::max<int64_t>(0, f.offset)));
    if (at > pos) {
      md.append(text, pos, at - pos);
      pos = at;
    }
    if (!md.empty() && md.back() != '\n') md += "\n\n";
    if (f.image_hash.empty()) {
      // A table without image: its rows left the body text for its own chunk; they go back here.
      if (!f.table_markdown.empty()) md += f.table_markdown + "\n\n";
      continue;
    }
    const int page0 = f.page > 0 ? f.page - 1 : 0;
    md += "![](" + link(f, page0, per_page[page0]++) + ")\n";
    if (annotated) md += annotation(f);
    md += "\n";
  }
  if (pos < body_end) md.append(text, pos, body_end - pos);
  if (md.empty() || md.back() != '\n') md += "\n";
  return md;
}

}  // namespace

ExportReport Session::export_markdown(const ExportRequest& req) {
  const DocumentRecord d = one_document(store(), req.doc, true);
  ExportReport rep;
  rep.doc = d.name;
  std::error_code ec;
  const fs::path dir(req.out_dir);
  fs::create_directories(dir / "images", ec);
  if (ec) throw IOError(req.out_dir + ": cannot create the export folder (" + ec.message() + ")");
  const std::string md = document_as_markdown(store(), d, req.annotated, [&](const Figure& f, int page0, int k) {
    const std::string name = d.name + "-" + std::to_string(page0) + "-" + std::to_string(k) + ".png";
    const fs::path target = dir / "images" / name;
    std::error_code err;
    fs::copy_file(store().figure_path(f.image_hash), target, fs::copy_options::overwrite_existing, err);
    if (err) throw IOError(target.string() + ": cannot write the image (" + err.message() + "); is the store complete? `mmkg check`");
    rep.images.push_back(target.string());
    ++rep.figures;
    return "images/" + name;
  });
  const fs::path out = dir / (stem_of(d.name) + (req.annotated ? "_annotated.md" : "_raw.md"));
  {
    std::ofstream o(out, std::ios::binary | std::ios::trunc);
    o << md;
    if (!o) throw IOError(out.string() + ": cannot write the Markdown file (disk full?)");
  }
  rep.markdown = out.string();
  return rep;
}

DocumentMarkdown Session::document_markdown(const std::string& doc_key, const std::string& figure_uri_prefix) {
  DocumentMarkdown rep;
  rep.doc = one_document(store(), doc_key, false);
  rep.markdown = document_as_markdown(store(), rep.doc, true,
                                      [&](const Figure& f, int, int) { return figure_uri_prefix + f.id; });
  return rep;
}

}  // namespace mmkg
