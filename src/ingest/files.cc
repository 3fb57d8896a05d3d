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

// A file's format by its extension (the registry, formats.h); nullptr when mmkg does not read it.
const FormatInfo* format_of_name(const std::string& path) {
  return format_for_extension(fs::path(path).extension().string());
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
    if (!explicit_path && !format_of_name(path)) {
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
    const FormatInfo* fmt = format_of_name(f);
    if (!fmt || !fmt->shows_images) continue;
    try {
      pages.push_back(read_file(f, int64_t{4} << 20));
    } catch (const Error&) {  // unreadable: the parser reports it
    }
  }
  if (pages.empty()) return;
  std::erase_if(list.files, [&](const std::string& f) {
    const FormatInfo* fmt = format_of_name(f);
    if (named.count(f) || !fmt || fmt->reader != Reader::Image) return false;
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

}  // namespace mmkg
