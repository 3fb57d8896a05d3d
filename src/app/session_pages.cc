// Session: the page view (a PDF page rendered with a chunk's boxes highlighted) and chunk
// lookups by id.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "app/session.h"
#include "core/error.h"
#include "ingest/ingest.h"
#include "ingest/pdf_render.h"
#include "store/store.h"

namespace mmkg {

namespace fs = std::filesystem;

namespace {

std::string pages_word(int n) { return std::to_string(n) + (n == 1 ? " page" : " pages"); }

}  // namespace

ChunkReport Session::chunk_info(const std::string& chunk_id) {
  auto c = store().chunk(chunk_id);
  if (!c)
    throw NotFoundError("chunk " + chunk_id +
                        ": no such chunk; `mmkg search QUERY --json` shows chunk ids (\"chunk_id\"), and a "
                        "document ingested again has new ones");
  ChunkReport rep;
  rep.chunk = std::move(*c);
  rep.chunk.chunk.boxes = store().chunk_boxes(rep.chunk.rowid);
  if (auto d = store().find_by_id(rep.chunk.chunk.doc_id)) rep.format = d->format;
  return rep;
}

PageImage Session::page_image(const std::string& doc_key, int page, const std::string& chunk_id, double zoom) {
  auto docs = store().resolve(doc_key);
  if (docs.empty())
    throw NotFoundError(doc_key + ": no such document in the store; `mmkg stats` (or GET /api/documents) lists them");
  if (docs.size() > 1)
    throw UsageError(doc_key + ": matches " + std::to_string(docs.size()) + " documents; name it by path or id");
  const DocumentRecord& d = docs.front();
  if (!format_info(d.format).paged)
    throw UsageError(d.name + " is a " + d.format + " document: it has no pages to render (only PDF pages are)");
  if (page < 1 || page > d.pages)
    throw NotFoundError(d.name + ": no page " + std::to_string(page) + "; it has " + pages_word(d.pages));

  PageImage out;
  out.doc = d.name;
  out.doc_id = d.id;
  out.page = page;
  out.pages = d.pages;
  std::vector<PageBox> boxes;
  if (!chunk_id.empty()) {
    auto c = store().chunk(chunk_id);
    if (!c) throw NotFoundError("chunk " + chunk_id + ": no such chunk; a document ingested again has new chunk ids");
    if (c->chunk.doc_id != d.id)
      throw UsageError("chunk " + chunk_id + " belongs to " + c->doc_name + ", not to " + d.name +
                       "; ask for a page of " + c->doc_name);
    if (page < c->chunk.page_start || page > c->chunk.page_end) {
      const Chunk& ch = c->chunk;
      throw UsageError("chunk " + chunk_id + " is on page " +
                       (ch.page_start == ch.page_end ? std::to_string(ch.page_start)
                                                     : std::to_string(ch.page_start) + "-" + std::to_string(ch.page_end)) +
                       " of " + d.name + ", not on page " + std::to_string(page));
    }
    out.chunk_id = chunk_id;
    for (const PageBox& b : store().chunk_boxes(c->rowid))
      if (b.page == page) boxes.push_back(b);
  }

  // The file as it is now; with a chunk to highlight it must be the version that was ingested,
  // or the boxes would mark the wrong places.
  std::string bytes;
  if (auto kept = store().source(d.id)) {  // a shared store keeps the file (ingested elsewhere)
    bytes = std::move(*kept);
  } else {
    std::error_code ec;
    if (!fs::is_regular_file(d.path, ec))
      throw InputError(d.path + ": file not found (moved or deleted since it was ingested); put it back, or ingest it "
                                "again from where it is now");
    std::ifstream in(d.path, std::ios::binary);
    if (!in) throw InputError(d.path + ": cannot read the file; check its permissions");
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (!boxes.empty() && document_id(bytes, "pdf") != d.id)
    throw InputError(d.path + ": the file has changed since it was ingested, so its chunks' places are unknown; "
                              "ingest it again (`mmkg ingest " + d.path + "`)");
  RenderedPage r = render_pdf_page_png(bytes, d.path, page, zoom, boxes);
  out.png = std::move(r.png);
  out.width = r.width;
  out.height = r.height;
  out.zoom = r.zoom;
  out.boxes = r.boxes;
  out.pages = r.pages;
  return out;
}

}  // namespace mmkg
