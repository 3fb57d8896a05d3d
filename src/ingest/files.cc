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
#include "text/words.h"

namespace mmkg {

namespace fs = std::filesystem;

namespace {

bool supported_ext(const std::string& ext) {
  static const char* kExt[] = {".pdf", ".md", ".markdown", ".txt", ".text", ".html", ".htm", ".xhtml"};
  std::string e = lower_ascii(ext);
  return std::any_of(std::begin(kExt), std::end(kExt), [&](const char* x) { return e == x; });
}

std::string norm(const std::string& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec);
  return (ec ? fs::path(p) : a).lexically_normal().string();
}

struct Walker {
  FileList& out;
  std::set<std::pair<dev_t, ino_t>> visited;

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
      visit(e.path().string(), /*explicit_path=*/false);
    }
  }

  void visit(const std::string& path, bool explicit_path) {
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
      walk_dir(path, st);
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

FileList collect_files(const std::vector<std::string>& paths) {
  FileList out;
  Walker w{out, {}};
  for (const auto& p : paths) w.visit(p, true);
  std::sort(out.files.begin(), out.files.end());
  out.files.erase(std::unique(out.files.begin(), out.files.end()), out.files.end());
  return out;
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
  if (starts("\x89PNG\r\n\x1a\n")) return "PNG image";
  if (starts("GIF87a") || starts("GIF89a")) return "GIF image";
  if (starts("II*\0") || starts(std::string_view("MM\0*", 4))) return "TIFF image";
  if (starts("RIFF") && b.size() > 12 && b.substr(8, 4) == "WEBP") return "WebP image";
  if (starts("PK\x03\x04")) return "ZIP archive (or an Office document)";
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
  // PDF readers accept the header anywhere in the first KiB.
  if (bytes.substr(0, 1024).find("%PDF-") != std::string_view::npos) return "pdf";
  std::string bin = sniff_binary(bytes);
  if (!bin.empty()) {
    std::string what = ext.empty() ? "file" : ext.substr(1) + " file";
    throw InputError("this " + what + " is really a " + bin + "; only PDF, text, Markdown and HTML are supported");
  }
  if (ext == ".pdf") return "pdf";  // no header: let the PDF parser try to repair it and explain
  if (ext == ".md" || ext == ".markdown") return "markdown";
  if (ext == ".html" || ext == ".htm" || ext == ".xhtml") return "html";
  if (ext.empty()) {
    std::string head = lower_ascii(collapse_ws(bytes.substr(0, 512)));
    if (head.rfind("<!doctype html", 0) == 0 || head.rfind("<html", 0) == 0) return "html";
  }
  return "text";
}

}  // namespace mmkg
