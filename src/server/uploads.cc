#include "server/uploads.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/error.h"
#include "server/http.h"

namespace mmkg::server {

namespace fs = std::filesystem;

std::string safe_file_name(std::string_view name) {
  // The last component after either kind of separator.
  const size_t cut = name.find_last_of("/\\");
  if (cut != std::string_view::npos) name = name.substr(cut + 1);
  std::string out;
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) continue;
    if (c == ':' || c == '*' || c == '?' || c == '"' || c == '<' || c == '>' || c == '|') c = '_';
    out += static_cast<char>(c);
  }
  size_t lead = 0;
  while (lead < out.size() && (out[lead] == '.' || out[lead] == ' ')) ++lead;
  out.erase(0, lead);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > 120) {
    const size_t dot = out.rfind('.');
    std::string ext = dot != std::string::npos && out.size() - dot <= 10 ? out.substr(dot) : "";
    out = out.substr(0, 120 - ext.size());
    // Do not cut a UTF-8 sequence in two.
    while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
    if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
    out += ext;
  }
  return out;
}

namespace {

bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == 0) return false;
    int n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
    if (n < 0 || (c >= 0x80 && c < 0xC2) || c > 0xF4) return false;
    for (int k = 1; k <= n; ++k) {
      if (i + k >= s.size()) return false;
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n + 1;
  }
  return true;
}

std::string lower_ext(const std::string& name) {
  const size_t dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0) return "";
  std::string e = name.substr(dot);
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return std::tolower(c); });
  return e;
}

}  // namespace

std::string sniff_type(std::string_view bytes) {
  if (bytes.substr(0, 1024).find("%PDF-") != std::string_view::npos) return "pdf";
  if (valid_utf8(bytes)) return "text";
  return "";
}

std::string stored_name(const std::string& name, std::string_view bytes) {
  const std::string type = sniff_type(bytes);
  const std::string ext = lower_ext(name);
  if (type == "pdf") return ext == ".pdf" ? name : name + ".pdf";
  if (ext == ".pdf")
    throw HttpError(415, "unsupported_media_type", name + ": the name says PDF but the bytes are not a PDF");
  if (type != "text")
    throw HttpError(415, "unsupported_media_type",
                    name + ": not a PDF and not UTF-8 text; upload PDF, Markdown, HTML or plain text");
  static const char* kText[] = {".md", ".markdown", ".txt", ".html", ".htm", ".rst", ".csv"};
  for (const char* e : kText)
    if (ext == e) return name;
  return name + ".txt";
}

std::string write_upload(const std::string& dir, const std::string& name, std::string_view bytes) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
    throw Error("upload name '" + name + "' is not a plain file name");
  std::error_code ec;
  fs::create_directories(dir, ec);
  struct stat st{};
  if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw IOError(dir + " is not a folder (a symlink is refused): uploads cannot be stored");
  static std::atomic<unsigned> seq{0};
  const std::string tmp = dir + "/.upload-" + std::to_string(getpid()) + "-" + std::to_string(seq++);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) throw IOError("cannot write " + tmp + ": " + std::strerror(errno));
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t w = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (w < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      throw IOError("cannot write " + tmp + ": " + why);
    }
    off += static_cast<size_t>(w);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmp.c_str());
    throw IOError("cannot write " + tmp + ": " + std::strerror(errno));
  }
  const std::string dst = dir + "/" + name;
  // rename() replaces a symlink at dst itself; it never writes through it.
  if (::rename(tmp.c_str(), dst.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw IOError("cannot store the upload as " + dst + ": " + why);
  }
  return fs::absolute(dst).lexically_normal().string();
}

}  // namespace mmkg::server
