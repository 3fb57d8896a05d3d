// EPUB parser. An EPUB is a ZIP of XHTML chapters listed, in reading order, by the package
// document (OPF) that META-INF/container.xml points to. MuPDF opens the ZIP (its archive API,
// bounded reads); each chapter goes through the same HTML walk as .html files (html_blocks.h),
// which keeps real heading levels, lists, tables and figcaptions (MuPDF's own EPUB layout would
// leave only font sizes to guess them from). Images inside the book become Figures.
//
// MuPDF reports errors with setjmp/longjmp: every MuPDF call runs inside `guarded()` with no
// C++ object of its own, and C++ exceptions are only thrown outside of fz_try blocks.
#include <mupdf/fitz.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/encoding.h"
#include "ingest/figure_refs.h"
#include "ingest/formats.h"
#include "ingest/html_blocks.h"
#include "ingest/markup_scan.h"
#include "ingest/mupdf_support.h"
#include "ingest/parser.h"
#include "ingest/tables.h"

namespace mmkg {
namespace {

constexpr size_t kMaxEntryBytes = size_t{64} << 20;   // one chapter or metadata file
constexpr size_t kMaxTextBytes = size_t{512} << 20;   // all chapters together
constexpr size_t kMaxChapters = 10000;
constexpr size_t kMaxChapterWarnings = 10;

using mupdf::guarded;
using mupdf::one_line;

void quiet(void*, const char*) {}

/// The open book: MuPDF context, the ZIP and reads of its entries.
class Book {
 public:
  explicit Book(std::string_view bytes) {
    ctx_ = fz_new_context(nullptr, nullptr, FZ_STORE_DEFAULT);
    if (!ctx_) throw Error("cannot initialise MuPDF (out of memory); retry with fewer parallel jobs");
    fz_set_warning_callback(ctx_, quiet, nullptr);
    fz_set_error_callback(ctx_, quiet, nullptr);
    std::string err;
    const bool ok = guarded(ctx_, &err, [&] {
      stm_ = fz_open_memory(ctx_, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
      zip_ = fz_open_zip_archive_with_stream(ctx_, stm_);
    });
    if (!ok || !zip_) throw InputError("not a valid EPUB (cannot open it as a ZIP archive: " + one_line(err) + ")");
  }
  Book(const Book&) = delete;
  Book& operator=(const Book&) = delete;
  ~Book() {
    if (zip_) fz_drop_archive(ctx_, zip_);
    if (stm_) fz_drop_stream(ctx_, stm_);
    fz_drop_context(ctx_);
  }

  bool has(const std::string& name) const {
    int yes = 0;
    return guarded(ctx_, nullptr, [&] { yes = fz_has_archive_entry(ctx_, zip_, name.c_str()); }) && yes;
  }

  /// Reads entry `name` into `out`, at most `max` bytes. Returns an empty string on success,
  /// else the reason ("not in the book", "over N MiB", MuPDF's message).
  std::string read(const std::string& name, size_t max, std::string& out) const {
    out.clear();
    if (!has(name)) return "not in the book";
    fz_stream* s = nullptr;
    std::string err;
    if (!guarded(ctx_, &err, [&] { s = fz_open_archive_entry(ctx_, zip_, name.c_str()); }) || !s)
      return one_line(err);
    unsigned char buf[65536];
    std::string why;
    for (;;) {
      size_t n = 0;
      if (!guarded(ctx_, &err, [&] { n = fz_read(ctx_, s, buf, sizeof buf); })) {
        why = "cannot decompress it (" + one_line(err) + ")";
        break;
      }
      if (n == 0) break;
      if (out.size() + n > max) {
        why = "it is over " + std::to_string(max >> 20) + " MiB";
        break;
      }
      out.append(reinterpret_cast<const char*>(buf), n);
    }
    fz_drop_stream(ctx_, s);
    return why;
  }

  /// Names of all entries (at most `max`).
  std::vector<std::string> entries(size_t max = 20000) const {
    std::vector<std::string> out;
    int n = 0;
    guarded(ctx_, nullptr, [&] { n = fz_count_archive_entries(ctx_, zip_); });
    for (int i = 0; i < n && out.size() < max; ++i) {
      const char* name = nullptr;
      guarded(ctx_, nullptr, [&] { name = fz_list_archive_entry(ctx_, zip_, i); });
      if (name) out.emplace_back(name);
    }
    return out;
  }

 private:
  fz_context* ctx_ = nullptr;
  fz_stream* stm_ = nullptr;
  fz_archive* zip_ = nullptr;
};

/// `rel` (URL-decoded, '?' and '#' parts removed) resolved against folder `dir` of the book
/// ("" or ending in '/'), "." and ".." applied. False if it climbs out of the book.
bool resolve(const std::string& dir, std::string rel, std::string& out) {
  const size_t cut = rel.find_first_of("?#");
  if (cut != std::string::npos) rel.resize(cut);
  rel = url_decode(rel);
  const std::string joined = !rel.empty() && rel[0] == '/' ? rel.substr(1) : dir + rel;
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= joined.size()) {
    size_t j = joined.find('/', i);
    if (j == std::string::npos) j = joined.size();
    const std::string part = joined.substr(i, j - i);
    if (part == "..") {
      if (parts.empty()) return false;
      parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    i = j + 1;
  }
  out.clear();
  for (const std::string& p : parts) out += (out.empty() ? "" : "/") + p;
  return !out.empty();
}

std::string folder_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

bool has_scheme(const std::string& s) {
  size_t i = 0;
  while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '+' || s[i] == '-' || s[i] == '.')) ++i;
  return i >= 2 && i < s.size() && s[i] == ':';
}

/// Images of the book: `src` as written in the chapter being walked, resolved against its folder.
class BookImages final : public ImageSource {
 public:
  BookImages(const Book& book, int64_t max_bytes) : book_(book), max_bytes_(max_bytes) {}
  std::string chapter_dir;  ///< folder of the chapter whose images are being added

  Loaded load(const std::string& src) const override {
    Loaded out;
    if (src.empty() || has_scheme(src) || src.rfind("//", 0) == 0) return out;  // remote: never fetched
    out.status = Status::Failed;
    if (!resolve(chapter_dir, src, out.key)) {
      out.reason = "it points outside the book";
      return out;
    }
    const size_t max = max_bytes_ > 0 ? static_cast<size_t>(max_bytes_) : kMaxEntryBytes;
    out.reason = book_.read(out.key, max, out.bytes);
    if (out.reason.empty()) out.status = Status::Ok;
    return out;
  }

 private:
  const Book& book_;
  int64_t max_bytes_;
};

/// XHTML writes empty elements as <div/>; an HTML parser reads that as an opening tag, and for
/// <title/> or <script/> as the start of raw text running to the end. Rewrites <x .../> as
/// <x ...></x> for elements that are not void.
std::string expand_empty_elements(std::string_view h) {
  static const char* const kVoid[] = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                                      "meta", "param", "source", "track", "wbr"};
  std::string out;
  out.reserve(h.size() + h.size() / 64);
  size_t copied = 0;  // h before this offset is in `out`
  TagScanner scan(h);
  MarkupTag t;
  while (scan.next(t)) {
    if (t.closing || !t.self_closing) continue;
    std::string name(t.name);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool is_void = std::any_of(std::begin(kVoid), std::end(kVoid), [&](const char* v) { return name == v; });
    out.append(h.substr(copied, t.end - copied));
    if (!is_void) out += "</" + name + ">";
    copied = t.end;
  }
  out.append(h.substr(copied));
  return out;
}

/// Text of the first element named `tag` (namespace prefix ignored), markup removed.
std::string element_text(std::string_view xml, std::string_view tag) {
  TagScanner scan(xml);
  MarkupTag t;
  while (scan.next(t)) {
    if (t.closing || t.local_name() != tag) continue;
    if (t.self_closing || !t.terminated) return "";
    const size_t end = xml.find("</", t.end);
    std::string text = decode_entities(xml.substr(t.end, end == std::string_view::npos ? 0 : end - t.end));
    std::string out;
    for (char c : text) {
      const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
      if (space && (out.empty() || out.back() == ' ')) continue;
      out.push_back(space ? ' ' : c);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  }
  return "";
}

/// Encrypted content (DRM) is listed in META-INF/encryption.xml; fonts are often "obfuscated"
/// the same way, which is harmless. True if any other resource is encrypted.
bool drm_protected(const Book& book) {
  std::string xml;
  if (!book.read("META-INF/encryption.xml", kMaxEntryBytes, xml).empty()) return false;
  for (const TagAttrs& a : scan_tags(xml, "CipherReference")) {
    const std::string* uri = find_attr(a, "uri");
    if (!uri) continue;
    std::string u = *uri;
    for (char& c : u) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    static const char* const kFonts[] = {".ttf", ".otf", ".woff", ".woff2"};
    const bool font = std::any_of(std::begin(kFonts), std::end(kFonts), [&](const char* e) {
      return u.size() >= std::strlen(e) && u.compare(u.size() - std::strlen(e), std::string::npos, e) == 0;
    });
    if (!font) return true;
  }
  return false;
}

/// The path of the package document: named by the container, else the first .opf in the
/// archive; empty when there is neither.
std::string package_path(const Book& book) {
  std::string opf_path, xml;
  if (book.read("META-INF/container.xml", kMaxEntryBytes, xml).empty()) {
    for (const TagAttrs& a : scan_tags(xml, "rootfile")) {
      const std::string* p = find_attr(a, "full-path");
      if (p && resolve("", *p, opf_path)) break;
    }
  }
  if (opf_path.empty() || !book.has(opf_path)) {
    opf_path.clear();
    for (const std::string& e : book.entries())
      if (e.size() > 4 && e.compare(e.size() - 4, 4, ".opf") == 0) {
        opf_path = e;
        break;
      }
  }
  return opf_path;
}

/// The chapters of the spine, in reading order: the (X)HTML items of the manifest that the
/// package document `opf` (in folder `opf_dir`) lists, resolved to paths in the book.
std::vector<std::string> spine_chapters(const std::string& opf, const std::string& opf_dir) {
  struct Item {
    std::string href, type;
  };
  std::map<std::string, Item> manifest;
  for (const TagAttrs& a : scan_tags(opf, "item")) {
    const std::string* id = find_attr(a, "id");
    const std::string* href = find_attr(a, "href");
    const std::string* type = find_attr(a, "media-type");
    if (id && href) manifest[*id] = {*href, type ? *type : ""};
  }
  std::vector<std::string> chapters;
  for (const TagAttrs& a : scan_tags(opf, "itemref", kMaxChapters)) {
    const std::string* idref = find_attr(a, "idref");
    if (!idref) continue;
    auto it = manifest.find(*idref);
    if (it == manifest.end()) continue;
    const std::string& type = it->second.type;
    const FormatInfo* as = type.empty() ? nullptr : format_for_mime(type);
    if (!type.empty() && (!as || as->reader != Reader::Html)) continue;
    std::string p;
    if (resolve(opf_dir, it->second.href, p)) chapters.push_back(p);
  }
  return chapters;
}

/// The chapters' blocks and figures, appended to `doc` in spine order. A chapter that cannot be
/// read is skipped with a warning (the first kMaxChapterWarnings of them).
struct ChapterReader {
  const Book& book;
  const ParseContext& ctx;
  ParsedDocument& doc;
  std::string first_h1, first_title;
  size_t failed = 0;

  void run(const std::vector<std::string>& chapters) {
    BookImages source(book, ctx.max_image_bytes);
    FigureCollector figures(source, doc, ctx.max_image_bytes);
    size_t text_bytes = 0;
    std::string chapter;
    for (const std::string& ch : chapters) {
      std::vector<ImageRef> images;
      std::string why = book.read(ch, kMaxEntryBytes, chapter);
      if (why.empty()) {
        text_bytes += chapter.size();
        if (text_bytes > kMaxTextBytes)
          throw InputError("EPUB chapters hold more than " + std::to_string(kMaxTextBytes >> 20) +
                           " MiB of text; this is not a book that can be read whole");
        why = read_chapter(chapter, images);
      }
      if (!why.empty()) {
        if (++failed <= kMaxChapterWarnings) doc.warnings.push_back("chapter " + ch + " skipped: " + why);
        continue;
      }
      source.chapter_dir = folder_of(ch);
      for (const ImageRef& r : images) figures.add(r);
    }
    figures.finish();
  }

  /// One chapter's blocks and image references; the reason it is unreadable, else "".
  std::string read_chapter(const std::string& chapter, std::vector<ImageRef>& images) {
    try {
      const DecodedText dec = decode_text(chapter);
      const HtmlTitles t = html_blocks(expand_empty_elements(dec.text), doc, ctx.figures ? &images : nullptr);
      if (first_h1.empty()) first_h1 = t.first_h1;
      if (first_title.empty()) first_title = t.title;
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
};

class EpubParser final : public Parser {
 public:
  const char* name() const override { return "epub"; }

  using Parser::parse;
  ParsedDocument parse(const std::string&, std::string_view bytes, const ParseContext& ctx) const override {
    if (bytes.rfind("PK\x03\x04", 0) != 0)
      throw InputError("not a valid EPUB (an EPUB is a ZIP archive, this file does not start like one)");
    Book book(bytes);
    if (drm_protected(book))
      throw InputError("DRM-protected EPUB (its chapters are encrypted); only DRM-free books can be read");

    const std::string opf_path = package_path(book);
    std::string opf;
    if (opf_path.empty() || !book.read(opf_path, kMaxEntryBytes, opf).empty())
      throw InputError("not a valid EPUB (no package document: META-INF/container.xml names none and "
                       "there is no .opf file); the file may be truncated or not an EPUB");
    const std::vector<std::string> chapters = spine_chapters(opf, folder_of(opf_path));
    if (chapters.empty())
      throw InputError("not a valid EPUB (the package document " + opf_path + " lists no chapters in its spine)");

    ParsedDocument doc;
    doc.format = "epub";
    ChapterReader reader{book, ctx, doc, {}, {}, 0};
    reader.run(chapters);
    if (ctx.figures) tables_from_blocks(doc);
    const size_t failed = reader.failed;
    if (failed > kMaxChapterWarnings)
      doc.warnings.push_back(std::to_string(failed - kMaxChapterWarnings) + " more chapters skipped");
    if (doc.blocks.empty()) {
      if (failed == chapters.size())
        throw InputError("no chapter of the EPUB could be read (" + std::to_string(failed) + " failed); the file may be corrupt");
      throw InputError("no readable text in EPUB (only images or markup?)");
    }
    doc.title = element_text(opf, "title");
    if (doc.title.empty()) doc.title = !reader.first_h1.empty() ? reader.first_h1 : reader.first_title;
    return doc;
  }
};

}  // namespace

std::unique_ptr<Parser> make_epub_parser() { return std::make_unique<EpubParser>(); }

}  // namespace mmkg
