#include "ingest/figure_refs.h"

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>

#include "core/error.h"
#include "ingest/image_decode.h"
#include "ingest/markup_scan.h"

namespace mmkg {

namespace fs = std::filesystem;

namespace {

std::string trim_markup(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && is_markup_space(s[b])) ++b;
  while (e > b && is_markup_space(s[e - 1])) --e;
  return std::string(s.substr(b, e - b));
}

/// The scheme of a URL ("http", "data", "file"), lower case; empty for a relative path.
std::string url_scheme(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '+' || s[i] == '-' || s[i] == '.'))
    ++i;
  // One letter before ':' would be a Windows drive ("C:\img.png"), not a scheme.
  if (i < 2 || i >= s.size() || s[i] != ':' || !std::isalpha(static_cast<unsigned char>(s[0]))) return "";
  std::string out(s.substr(0, i));
  for (char& c : out) c = lower_ascii_char(c);
  return out;
}

/// Decodes standard or URL-safe base64, skipping whitespace; false on other characters.
bool base64_decode(std::string_view in, std::string& out) {
  unsigned buf = 0;
  int bits = 0;
  for (char c : in) {
    int v;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '+' || c == '-') v = 62;
    else if (c == '/' || c == '_') v = 63;
    else if (c == '=' || is_markup_space(c)) continue;
    else return false;
    buf = (buf << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buf >> bits) & 0xFF));
    }
  }
  return true;
}

/// Converters often fill alt with the image's file name ("images/image0001.png"): that
/// describes nothing. True for one word ending in an image extension.
bool is_file_name(const std::string& s) {
  if (s.empty() || s.find(' ') != std::string::npos) return false;
  const size_t dot = s.rfind('.');
  if (dot == std::string::npos) return false;
  std::string ext = s.substr(dot + 1);
  for (char& c : ext) c = lower_ascii_char(c);
  for (const char* e : {"png", "jpg", "jpeg", "gif", "bmp", "tif", "tiff", "webp", "svg"})
    if (ext == e) return true;
  return false;
}

std::string mib(int64_t n) { return std::to_string((n + (1 << 19)) >> 20) + " MiB"; }

/// Short, printable form of a reference for messages (data: URIs are long).
std::string shown(const std::string& src) {
  if (src.size() <= 120) return src;
  return src.substr(0, 100) + "...";
}

}  // namespace

// ---- files on disk ----

FileImageSource::FileImageSource(const std::string& doc_path, const ParseContext& ctx)
    : max_bytes_(ctx.max_image_bytes) {
  std::error_code ec;
  fs::path doc = fs::absolute(doc_path, ec);
  dir_ = (ec ? fs::path(doc_path) : doc).parent_path();
  const fs::path root = ctx.root.empty() ? dir_ : fs::absolute(ctx.root, ec);
  root_ = fs::weakly_canonical(root, ec);
  if (ec) root_ = root.lexically_normal();
}

ImageSource::Loaded FileImageSource::load(const std::string& src_in) const {
  Loaded out;
  std::string src = trim_markup(src_in);
  std::string scheme = url_scheme(src);
  if (src.empty() || src.rfind("//", 0) == 0) return out;  // nothing, or a protocol-relative URL
  if (scheme == "file") {
    src.erase(0, 5);
    if (src.rfind("//localhost/", 0) == 0) src.erase(0, 11);
    else if (src.rfind("//", 0) == 0) src.erase(0, 2);
    if (src.empty() || src[0] != '/') {
      out.status = Status::Failed;
      out.reason = "file: URL names another host; only local files are read";
      return out;
    }
  } else if (!scheme.empty()) {
    return out;  // http:, https:, ftp:, mailto: ... are never fetched
  }
  // In a URL, '?' starts a query and '#' a fragment; a file name holding them is written %3F, %23.
  const size_t cut = src.find_first_of("?#");
  if (cut != std::string::npos) src.resize(cut);
  const std::string decoded = url_decode(src);
  out.status = Status::Failed;
  if (decoded.empty() || decoded.find('\0') != std::string::npos) {
    out.reason = "not a usable file name";
    return out;
  }
  const fs::path p = decoded[0] == '/' ? fs::path(decoded) : dir_ / decoded;
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(p, ec);
  if (ec) {
    out.reason = "cannot resolve the path (" + ec.message() + ")";
    return out;
  }
  // Inside the root: the root's components are a prefix of the image's.
  auto r = root_.begin(), i = real.begin();
  for (; r != root_.end() && i != real.end() && *r == *i; ++r, ++i) {}
  if (r != root_.end() && !(std::next(r) == root_.end() && r->empty())) {
    out.reason = "it resolves to " + real.string() + ", outside " + root_.string() +
                 "; images are read only from inside the ingested folder";
    return out;
  }
  out.key = real.string();
  struct stat st {};
  if (::stat(real.c_str(), &st) != 0) {
    const int err = errno;
    out.reason = err == ENOENT ? "file not found (" + real.string() + ")"
                               : std::string("cannot access it (") + std::strerror(err) + ")";
    return out;
  }
  if (!S_ISREG(st.st_mode)) {
    out.reason = "not a regular file";
    return out;
  }
  if (max_bytes_ > 0 && st.st_size > max_bytes_) {
    out.reason = "it is " + mib(st.st_size) + ", over the image size limit of " + mib(max_bytes_);
    return out;
  }
  std::ifstream f(real, std::ios::binary);
  if (!f) {
    out.reason = std::string("cannot open it (") + std::strerror(errno) + ")";
    return out;
  }
  out.bytes.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  if (f.bad()) {
    out.reason = "read error";
    return out;
  }
  if (out.bytes.empty()) {
    out.reason = "empty file (0 bytes)";
    return out;
  }
  out.status = Status::Ok;
  return out;
}

// ---- the collector ----

FigureCollector::FigureCollector(const ImageSource& source, ParsedDocument& doc, int64_t max_image_bytes)
    : source_(source), doc_(doc), max_bytes_(max_image_bytes) {}

void FigureCollector::warn(const std::string& src, const std::string& reason) {
  if (warnings_ >= kMaxWarnings) {
    ++unreported_;
    return;
  }
  ++warnings_;
  doc_.warnings.push_back("image \"" + shown(src) + "\" skipped: " + reason);
}

void FigureCollector::add(const ImageRef& ref) {
  const std::string src = trim_markup(ref.src);
  if (src.empty()) return;
  ImageSource::Loaded l;
  if (url_scheme(src) == "data") {
    // data:[<type>][;base64],<data>: small images inlined in the document.
    const size_t comma = src.find(',');
    l.key = "data:" + std::to_string(std::hash<std::string>{}(src));
    l.status = ImageSource::Status::Failed;
    const std::string head = comma == std::string::npos ? "" : src.substr(5, comma - 5);
    if (comma == std::string::npos || head.find(";base64") == std::string::npos) {
      l.reason = "data: URI is not base64 image data";
    } else if (max_bytes_ > 0 && static_cast<int64_t>(src.size() - comma) / 4 * 3 > max_bytes_) {
      l.reason = "inline image is over the image size limit of " + mib(max_bytes_);
    } else if (!base64_decode(std::string_view(src).substr(comma + 1), l.bytes) || l.bytes.empty()) {
      l.reason = "data: URI holds invalid base64";
    } else {
      l.status = ImageSource::Status::Ok;
    }
  } else {
    l = source_.load(src);
  }
  if (l.status == ImageSource::Status::Ignored) return;
  // One Figure, or one warning, per image however often it is referenced.
  if (!seen_.insert(l.key.empty() ? "src:" + src : l.key).second) return;
  if (l.status == ImageSource::Status::Failed) return warn(src, l.reason);
  if (doc_.figures.size() >= kMaxFigures) {
    ++over_limit_;
    return;
  }
  DecodedImage img;
  try {
    img = decode_image(l.bytes, "");
  } catch (const InputError& e) {
    return warn(src, e.what());
  }
  if (img.source_width < kMinFigureSide || img.source_height < kMinFigureSide) return;
  for (const std::string& w : img.warnings) doc_.warnings.push_back("image \"" + shown(src) + "\": " + w);
  Figure f;
  f.seq = static_cast<int>(doc_.figures.size());
  f.source = "file";
  f.block = ref.block;
  const std::string alt = is_file_name(trim_markup(ref.alt)) ? "" : trim_markup(ref.alt);
  const std::string title = is_file_name(trim_markup(ref.title)) ? "" : trim_markup(ref.title);
  f.alt = alt.empty() ? title : alt;
  f.caption = trim_markup(!ref.caption.empty() ? ref.caption : !title.empty() ? title : alt);
  f.label = figure_label(f.caption);
  f.png = std::move(img.png);
  f.width = img.width;
  f.height = img.height;
  doc_.figures.push_back(std::move(f));
}

void FigureCollector::finish() {
  if (unreported_ > 0)
    doc_.warnings.push_back(std::to_string(unreported_) + " more images skipped (see the ones above)");
  if (over_limit_ > 0)
    doc_.warnings.push_back(std::to_string(over_limit_) + " images beyond the first " + std::to_string(kMaxFigures) +
                            " of this document were not kept as figures");
  unreported_ = over_limit_ = 0;
}

void add_file_figures(const std::string& doc_path, const ParseContext& ctx, const std::vector<ImageRef>& images,
                      ParsedDocument& doc) {
  if (images.empty()) return;
  FileImageSource source(doc_path, ctx);
  FigureCollector figures(source, doc, ctx.max_image_bytes);
  for (const ImageRef& r : images) figures.add(r);
  figures.finish();
}

// ---- small text helpers ----

std::string figure_label(std::string_view c) {
  size_t i = 0;
  while (i < c.size() && is_markup_space(c[i])) ++i;
  size_t word = i;
  while (i < c.size() && std::isalpha(static_cast<unsigned char>(c[i]))) ++i;
  const std::string_view name = c.substr(word, i - word);
  if (!iequals_ascii(name, "figure") && !iequals_ascii(name, "fig")) return "";
  std::string label(name);
  if (i < c.size() && c[i] == '.') label.push_back(c[i++]);
  while (i < c.size() && is_markup_space(c[i])) ++i;
  // The number: an optional letter (S1, A2), digits, ".digits" parts, an optional letter (2b).
  const size_t num = i;
  if (i < c.size() && std::isalpha(static_cast<unsigned char>(c[i])) && i + 1 < c.size() &&
      std::isdigit(static_cast<unsigned char>(c[i + 1])))
    ++i;
  if (i >= c.size() || !std::isdigit(static_cast<unsigned char>(c[i]))) return "";
  while (i < c.size() && std::isdigit(static_cast<unsigned char>(c[i]))) ++i;
  while (i + 1 < c.size() && (c[i] == '.' || c[i] == '-') && std::isdigit(static_cast<unsigned char>(c[i + 1]))) {
    ++i;
    while (i < c.size() && std::isdigit(static_cast<unsigned char>(c[i]))) ++i;
  }
  if (i < c.size() && std::islower(static_cast<unsigned char>(c[i])) &&
      (i + 1 == c.size() || !std::isalnum(static_cast<unsigned char>(c[i + 1]))))
    ++i;
  if (i < c.size() && std::isalnum(static_cast<unsigned char>(c[i]))) return "";  // "Figure 3x4", "Fig 12abc"
  return label + " " + std::string(c.substr(num, i - num));
}

std::string url_decode(std::string_view s) {
  auto hex = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace mmkg
