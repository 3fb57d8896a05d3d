#include "ingest/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <utility>

#include "core/error.h"
#include "ingest/image_decode.h"
#include "text/words.h"

namespace mmkg {

namespace fs = std::filesystem;

namespace {

constexpr const char* kOfficeFormats[] = {"docx", "pptx", "xlsx", "odt", "odp", "ods", "doc", "ppt", "xls"};
constexpr const char* kImageExt[] = {".png", ".jpg", ".jpeg", ".jpe", ".tif", ".tiff", ".webp", ".gif", ".bmp"};
// Pages that show images by file name (their images are their figures, drop_linked_images).
constexpr const char* kPageExt[] = {".md", ".markdown", ".html", ".htm", ".xhtml"};
// Extensions that say "a document": image content under one of them is a mistake worth naming.
constexpr const char* kDocumentExt[] = {".pdf", ".md", ".markdown", ".txt", ".text", ".html", ".htm",
                                        ".xhtml", ".epub", ".docx", ".pptx", ".xlsx", ".odt", ".odp",
                                        ".ods", ".doc", ".ppt", ".xls"};

template <size_t N>
bool one_of(const std::string& s, const char* const (&list)[N]) {
  return std::any_of(std::begin(list), std::end(list), [&](const char* x) { return s == x; });
}

bool supported_ext(const std::string& ext) {
  const std::string e = lower_ascii(ext);
  return one_of(e, kDocumentExt) || one_of(e, kImageExt);
}

uint32_t le16(std::string_view b, size_t at) {
  return static_cast<uint8_t>(b[at]) | static_cast<uint32_t>(static_cast<uint8_t>(b[at + 1])) << 8;
}
uint32_t le32(std::string_view b, size_t at) { return le16(b, at) | le16(b, at + 2) << 16; }

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
    if (type.rfind("application/epub+zip", 0) == 0) return "epub";
    if (type.rfind("application/vnd.oasis.opendocument.text", 0) == 0) return "odt";
    if (type.rfind("application/vnd.oasis.opendocument.presentation", 0) == 0) return "odp";
    if (type.rfind("application/vnd.oasis.opendocument.spreadsheet", 0) == 0) return "ods";
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

std::string norm(const std::string& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec);
  return (ec ? fs::path(p) : a).lexically_normal().string();
}

/// `path` resolved (every symlink followed), or empty when it cannot be.
std::string real_path(const std::string& path) {
  std::error_code ec;
  fs::path r = fs::canonical(path, ec);
  return ec ? std::string() : r.string();
}

/// True when `path` is `root` or lies below it (both canonical).
bool is_within(const std::string& path, const std::string& root) {
  if (root == "/") return true;
  return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
                          path[root.size()] == '/');
}

struct Walker {
  FileList& out;
  bool follow_symlinks = false;
  std::set<std::pair<dev_t, ino_t>> visited;
  std::string root;  ///< canonical path of the folder named explicitly that is being walked

  void add_error(const std::string& path, const std::string& msg) { out.errors.push_back({path, msg}); }

  void walk_dir(const std::string& dir, struct stat& st) {
    if (!visited.insert({st.st_dev, st.st_ino}).second) {
      add_error(dir, "symlink loop (this directory was already visited); remove the link or ingest the target once");
      return;
    }
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) {
      add_error(dir, "cannot read directory (" + ec.message() + "); check permissions");
      return;
    }
    std::vector<fs::directory_entry> entries;
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      if (ec) {
        add_error(dir, "error while listing (" + ec.message() + ")");
        break;
      }
      entries.push_back(*it);
    }
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return a.path().filename() < b.path().filename(); });
    for (const auto& e : entries) {
      std::string name = e.path().filename().string();
      if (!name.empty() && name[0] == '.') continue;
      if (name.rfind("~$", 0) == 0) continue;  // Office's lock file beside an open document
      visit(e.path().string(), /*explicit_path=*/false);
    }
  }

  /// A symlink inside the walked folder that leads out of it: skipped (with a warning) unless
  /// the user asked to follow links. Ingesting `/etc/passwd` because a folder holds a link to it
  /// would put a file the user never chose into a store that may be served over HTTP.
  bool leads_outside(const std::string& path) {
    struct stat lst {};
    if (follow_symlinks || root.empty() || ::lstat(path.c_str(), &lst) != 0 || !S_ISLNK(lst.st_mode))
      return false;
    const std::string target = real_path(path);
    if (target.empty() || is_within(target, root)) return false;  // broken links: reported below
    out.skipped.push_back({norm(path), "symlink to " + target +
                                           " (outside the folder) skipped; pass --follow-symlinks to ingest it"});
    return true;
  }

  void visit(const std::string& path, bool explicit_path) {
    if (!explicit_path && leads_outside(path)) return;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      int err = errno;
      if (err == ELOOP)
        add_error(path, "symlink loop (too many levels of symbolic links); fix or remove the link");
      else if (err == ENOENT && !explicit_path)
        add_error(path, "broken symlink (its target does not exist)");
      else if (err == ENOENT)
        add_error(path, "no such file or directory");
      else
        add_error(path, std::string("cannot access (") + std::strerror(err) + ")");
      return;
    }
    if (S_ISDIR(st.st_mode)) {
      if (explicit_path) {
        const std::string saved = root;
        root = real_path(path);
        walk_dir(path, st);
        root = saved;
      } else {
        walk_dir(path, st);
      }
      return;
    }
    if (!explicit_path && !supported_ext(fs::path(path).extension().string())) {
      ++out.ignored;
      return;
    }
    out.files.push_back(norm(path));
  }
};

}  // namespace

FileList collect_files(const std::vector<std::string>& paths, bool follow_symlinks) {
  FileList out;
  Walker w{out, follow_symlinks, {}, {}};
  for (const auto& p : paths) w.visit(p, true);
  std::sort(out.files.begin(), out.files.end());
  out.files.erase(std::unique(out.files.begin(), out.files.end()), out.files.end());
  return out;
}

// An image that a Markdown or HTML page of the same batch shows is part of that page (one of its
// figures), not a document of its own: a folder of notes with their screenshots gives one
// document per note, not one more per screenshot. An image named on the command line is always
// a document. A page "shows" an image when its text holds the image's file name; a page larger
// than 4 MiB is not read for this.
void drop_linked_images(FileList& list, const std::vector<std::string>& paths) {
  std::set<std::string> named;
  for (const auto& p : paths) {
    std::error_code ec;
    named.insert(fs::absolute(p, ec).lexically_normal().string());
  }
  std::vector<std::string> pages;
  for (const auto& f : list.files) {
    if (!one_of(lower_ascii(fs::path(f).extension().string()), kPageExt)) continue;
    try {
      pages.push_back(read_file(f, int64_t{4} << 20));
    } catch (const Error&) {  // unreadable: the parser reports it
    }
  }
  if (pages.empty()) return;
  std::erase_if(list.files, [&](const std::string& f) {
    if (named.count(f) || !one_of(lower_ascii(fs::path(f).extension().string()), kImageExt)) return false;
    const std::string name = fs::path(f).filename().string();
    for (const auto& page : pages)
      if (page.find(name) != std::string::npos) return true;
    return false;
  });
}

std::string read_file(const std::string& path, int64_t max_bytes) {
  // O_NONBLOCK so that opening a FIFO cannot hang; the type check below rejects it.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == EACCES || err == EPERM) throw InputError("permission denied; make the file readable (chmod +r) and re-run");
    throw InputError(std::string("cannot open (") + std::strerror(err) + ")");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw InputError("not a regular file (device, socket or pipe); only files and folders can be ingested");
  }
  if (st.st_size == 0) {
    ::close(fd);
    throw InputError("empty file (0 bytes)");
  }
  if (max_bytes > 0 && st.st_size > max_bytes) {
    ::close(fd);
    throw InputError("file is " + std::to_string(st.st_size >> 20) + " MiB, over the size limit of " +
                     std::to_string(max_bytes >> 20) + " MiB; raise it with --max-file-size MB");
  }
  std::string data;
  data.resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < data.size()) {
    ssize_t n = ::read(fd, data.data() + got, data.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      throw InputError(std::string("read error (") + std::strerror(err) + ")");
    }
    if (n == 0) break;  // file shrank while reading
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  data.resize(got);
  if (data.empty()) throw InputError("empty file (0 bytes)");
  return data;
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

bool is_office_format(const std::string& format) { return one_of(format, kOfficeFormats); }

std::string detect_format(const std::string& path, std::string_view bytes) {
  std::string ext = lower_ascii(fs::path(path).extension().string());
  const std::string ext_format = ext.empty() ? "" : ext.substr(1);
  const std::string what = ext.empty() ? "file" : ext_format + " file";
  // PDF readers accept the header anywhere in the first KiB.
  if (bytes.substr(0, 1024).find("%PDF-") != std::string_view::npos) return "pdf";
  if (!image_kind(bytes).empty()) {
    if (!one_of(ext, kDocumentExt)) return "image";
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
  if (ext == ".pdf") return "pdf";  // no header: let the PDF parser try to repair it and explain
  if (ext == ".md" || ext == ".markdown") return "markdown";
  if (ext == ".html" || ext == ".htm" || ext == ".xhtml") return "html";
  if (one_of(ext, kImageExt)) return "image";  // not an image inside: the image parser says so
  if (ext == ".epub") return "epub";
  // Word's "Save as HTML/RTF" files are often named .doc; LibreOffice reads them all.
  if (is_office_format(ext_format)) return ext_format;
  if (ext.empty()) {
    std::string head = lower_ascii(collapse_ws(bytes.substr(0, 512)));
    if (head.rfind("<!doctype html", 0) == 0 || head.rfind("<html", 0) == 0) return "html";
  }
  return "text";
}

}  // namespace mmkg
