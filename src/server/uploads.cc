#include "server/uploads.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "app/session.h"
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

// UTF-8 without NUL bytes: what ingest reads as text (it refuses other encodings).
bool utf8_text(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == 0) return false;
    const int n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
    if (n < 0 || (c >= 0x80 && c < 0xC2) || c > 0xF4) return false;
    for (int k = 1; k <= n; ++k)
      if (i + k >= s.size() || (static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n + 1;
  }
  return true;
}

}  // namespace

std::string stored_name(const std::string& name, std::string_view bytes) {
  std::string ext = fs::path(name).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == ".pdf" && bytes.substr(0, 1024).find("%PDF-") == std::string_view::npos)
    throw HttpError(415, "unsupported_media_type", name + ": the name says PDF but the bytes are not a PDF");
  UploadFormat format;
  try {
    format = upload_format(name, bytes);
  } catch (const InputError& e) {
    throw HttpError(415, "unsupported_media_type", name + ": " + e.what());
  }
  if (format.text && !utf8_text(bytes))
    throw HttpError(415, "unsupported_media_type",
                    name + ": not UTF-8 text and not a format mmkg reads (PDF, EPUB, Office, images); "
                           "convert it to UTF-8 or upload the original document");
  return name + format.extension;
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
