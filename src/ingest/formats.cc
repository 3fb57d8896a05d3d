// The format registry (formats.h) and content sniffing. Written here rather than taken from
// libmagic: mmkg needs a few dozen signatures and the ZIP/OLE container's inner names to tell
// EPUB, OpenDocument and Office files apart, with an error that names what a file really is.
#include "ingest/formats.h"

#include <algorithm>
#include <filesystem>
#include <initializer_list>

#include "core/error.h"
#include "ingest/byte_order.h"
#include "ingest/image_decode.h"
#include "text/words.h"

namespace mmkg {

namespace fs = std::filesystem;

namespace {

std::vector<FormatInfo> make_formats() {
  auto office = [](const char* name, const char* mime, bool zip) {
    FormatInfo f{name, Reader::Office, {std::string(".") + name}, {}, {mime}};
    f.zip = zip;
    return f;
  };
  std::vector<FormatInfo> v;
  v.push_back({"pdf", Reader::Pdf, {".pdf"}, {}, {"application/pdf"}});
  v.back().paged = true;
  v.back().reader_revision = 2;
  v.push_back({"markdown", Reader::Markdown, {".md", ".markdown"}, {}, {"text/markdown"}});
  v.back().text = v.back().shows_images = true;
  v.push_back({"html", Reader::Html, {".html", ".htm", ".xhtml"}, {}, {"text/html", "application/xhtml+xml"}});
  v.back().text = v.back().shows_images = true;
  v.push_back({"text", Reader::Text, {".txt", ".text"}, {".rst", ".csv", ".log", ".tex"}, {"text/plain"}});
  v.back().text = true;
  v.push_back({"image", Reader::Image, {".png", ".jpg", ".jpeg", ".jpe", ".tif", ".tiff", ".webp", ".gif", ".bmp"}, {},
               {"image/png", "image/jpeg", "image/tiff", "image/webp", "image/gif", "image/bmp"}});
  v.push_back({"epub", Reader::Epub, {".epub"}, {}, {"application/epub+zip"}});
  v.back().zip = true;
  v.push_back(office("docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", false));
  v.push_back(office("pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation", false));
  v.push_back(office("xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", false));
  v.push_back(office("odt", "application/vnd.oasis.opendocument.text", true));
  v.push_back(office("odp", "application/vnd.oasis.opendocument.presentation", true));
  v.push_back(office("ods", "application/vnd.oasis.opendocument.spreadsheet", true));
  v.push_back(office("doc", "application/msword", false));
  v.push_back(office("ppt", "application/vnd.ms-powerpoint", false));
  v.push_back(office("xls", "application/vnd.ms-excel", false));
  return v;
}

/// The extension an upload whose content is an image of `kind` (image_kind()) should carry; the
/// first is the one it gets. Empty for a kind the image parser does not read.
std::vector<std::string> image_extensions(const std::string& kind) {
  if (kind == "PNG") return {".png"};
  if (kind == "JPEG") return {".jpg", ".jpeg", ".jpe"};
  if (kind == "GIF") return {".gif"};
  if (kind == "TIFF") return {".tif", ".tiff"};
  if (kind == "WebP") return {".webp"};
  if (kind == "BMP") return {".bmp"};
  return {};
}

/// Entry names of a ZIP file from its central directory (at most `max`); empty if it has none
/// (truncated file). Bounds-checked: any byte sequence is safe.
std::vector<std::string_view> zip_entry_names(std::string_view b, size_t max = 5000) {
  std::vector<std::string_view> names;
  if (b.size() < 22) return names;
  // End of central directory record: in the last 22 + 65535 (comment) bytes.
  const size_t from = b.size() > 22 + 65535 ? b.size() - 22 - 65535 : 0;
  size_t eocd = b.rfind(std::string_view("PK\x05\x06", 4));
  if (eocd == std::string_view::npos || eocd < from || eocd + 22 > b.size()) return names;
  size_t at = le32(b, eocd + 16);
  const size_t count = le16(b, eocd + 10);
  for (size_t k = 0; k < count && names.size() < max; ++k) {
    if (at + 46 > b.size() || b.compare(at, 4, std::string_view("PK\x01\x02", 4)) != 0) break;
    const size_t name_len = le16(b, at + 28), extra = le16(b, at + 30), comment = le16(b, at + 32);
    if (at + 46 + name_len > b.size()) break;
    names.push_back(b.substr(at + 46, name_len));
    at += 46 + name_len + extra + comment;
  }
  return names;
}

/// The format of a ZIP-based document from its content: EPUB and OpenDocument store a
/// `mimetype` entry first (uncompressed), Office Open XML has its part names. Empty if unknown.
std::string zip_format(std::string_view b) {
  if (b.size() >= 38 && b.compare(30, 8, "mimetype") == 0) {
    const size_t start = 30 + 8 + le16(b, 28);
    const std::string_view type = b.substr(std::min(start, b.size()), 80);
    for (const FormatInfo& f : formats())
      if (f.zip && type.rfind(f.mime_types[0], 0) == 0) return f.name;  // a prefix, as the entry may be padded
  }
  for (std::string_view name : zip_entry_names(b)) {
    if (name == "word/document.xml") return "docx";
    if (name == "ppt/presentation.xml") return "pptx";
    if (name == "xl/workbook.xml") return "xlsx";
  }
  return "";
}

/// The format of a legacy (OLE2) Office file from its stream names, stored as UTF-16LE.
std::string ole_format(std::string_view b) {
  auto has = [&](const char* name) {
    std::string u16;
    for (const char* p = name; *p; ++p) {
      u16.push_back(*p);
      u16.push_back('\0');
    }
    return b.find(u16) != std::string_view::npos;
  };
  if (has("WordDocument")) return "doc";
  if (has("PowerPoint Document")) return "ppt";
  if (has("Workbook") || has("Book")) return "xls";
  return "";
}

}  // namespace

const std::vector<FormatInfo>& formats() {
  static const std::vector<FormatInfo> table = make_formats();
  return table;
}

const FormatInfo* find_format(std::string_view name) {
  for (const FormatInfo& f : formats())
    if (name == f.name) return &f;
  return nullptr;
}

const FormatInfo& format_info(std::string_view name) {
  const FormatInfo* f = find_format(name);
  return f ? *f : *find_format("text");
}

const FormatInfo* format_for_extension(std::string_view ext, bool uploads) {
  const std::string e = lower_ascii(ext);
  for (const FormatInfo& f : formats()) {
    for (const auto& x : f.extensions)
      if (e == x) return &f;
    if (uploads)
      for (const auto& x : f.upload_extensions)
        if (e == x) return &f;
  }
  return nullptr;
}

const FormatInfo* format_for_mime(std::string_view mime) {
  const std::string m = lower_ascii(mime.substr(0, mime.find(';')));
  for (const FormatInfo& f : formats())
    for (const auto& x : f.mime_types)
      if (m == x) return &f;
  return nullptr;
}

bool is_office_format(const std::string& format) {
  const FormatInfo* f = find_format(format);
  return f && f->reader == Reader::Office;
}

std::string sniff_binary(std::string_view b) {
  auto starts = [&](std::string_view m) { return b.substr(0, m.size()) == m; };
  if (starts("\xFF\xD8\xFF")) return "JPEG image";
  if (image_kind(b) == "BMP") return "BMP image";
  if (starts("\x89PNG\r\n\x1a\n")) return "PNG image";
  if (starts("GIF87a") || starts("GIF89a")) return "GIF image";
  if (starts("II*\0") || starts(std::string_view("MM\0*", 4))) return "TIFF image";
  if (starts("RIFF") && b.size() > 12 && b.substr(8, 4) == "WEBP") return "WebP image";
  if (starts("PK\x03\x04")) return "ZIP archive";
  if (starts("\x1f\x8b")) return "gzip archive";
  if (starts("\x7f" "ELF")) return "ELF executable";
  if (starts("BZh")) return "bzip2 archive";
  if (starts("\xFD" "7zXZ")) return "xz archive";
  if (starts("7z\xBC\xAF\x27\x1C")) return "7z archive";
  if (starts("SQLite format 3")) return "SQLite database";
  if (starts("\xD0\xCF\x11\xE0")) return "legacy Office document";
  return "";
}


std::string detect_format(const std::string& path, std::string_view bytes) {
  std::string ext = lower_ascii(fs::path(path).extension().string());
  const std::string ext_format = ext.empty() ? "" : ext.substr(1);
  const std::string what = ext.empty() ? "file" : ext_format + " file";
  // PDF readers accept the header anywhere in the first KiB.
  if (bytes.substr(0, 1024).find("%PDF-") != std::string_view::npos) return "pdf";
  const FormatInfo* by_ext = format_for_extension(ext);
  if (!image_kind(bytes).empty()) {
    // An image under a document's extension is a mistake worth naming.
    if (!by_ext || by_ext->reader == Reader::Image) return "image";
    throw InputError("this " + what + " is really a " + sniff_binary(bytes) +
                     "; give it an image extension (.png, .jpg, ...) to ingest it as an image");
  }
  if (bytes.rfind("PK\x03\x04", 0) == 0) {
    const std::string f = zip_format(bytes);
    if (!f.empty()) return f;
    // Not recognisable (a truncated file?): trust a document extension, the parser explains.
    if (ext_format == "epub" || is_office_format(ext_format)) return ext_format;
  }
  if (bytes.rfind("\xD0\xCF\x11\xE0", 0) == 0) {
    const std::string f = ole_format(bytes);
    if (!f.empty()) return f;
    if (ext_format == "doc" || ext_format == "ppt" || ext_format == "xls") return ext_format;
    throw InputError("this " + what + " is a legacy Office document of unknown kind; name it .doc, .xls or .ppt");
  }
  std::string bin = sniff_binary(bytes);
  if (!bin.empty()) {
    throw InputError("this " + what + " is really a " + bin +
                     "; supported are PDF, text, Markdown, HTML, EPUB, Office documents and images");
  }
  // By the name. A PDF without its header: the PDF parser tries to repair it and explains. Not an
  // image inside an image's name: the image parser says so. Word's "Save as HTML/RTF" files are
  // often named .doc: LibreOffice reads them all.
  if (by_ext) return by_ext->name;
  if (ext.empty()) {
    std::string head = lower_ascii(collapse_ws(bytes.substr(0, 512)));
    if (head.rfind("<!doctype html", 0) == 0 || head.rfind("<html", 0) == 0) return "html";
  }
  return "text";
}

UploadFormat upload_format(const std::string& name, std::string_view bytes) {
  const FormatInfo& format = format_info(detect_format(name, bytes));
  const std::string ext = lower_ascii(fs::path(name).extension().string());
  std::vector<std::string> fits = format.extensions;
  if (format.reader == Reader::Image) {
    const std::string kind = image_kind(bytes);
    fits = image_extensions(kind);
    if (fits.empty()) throw InputError(name + ": not an image the ingest reads (PNG, JPEG, GIF, TIFF, WebP, BMP)");
  }
  fits.insert(fits.end(), format.upload_extensions.begin(), format.upload_extensions.end());
  UploadFormat out;
  out.text = format.text;
  if (std::none_of(fits.begin(), fits.end(), [&](const std::string& x) { return ext == x; })) out.extension = fits[0];
  return out;
}

}  // namespace mmkg
