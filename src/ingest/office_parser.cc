// Office documents (Word, PowerPoint, Excel, OpenDocument): LibreOffice converts them to PDF,
// the PDF parser reads that. LibreOffice's layout is the reference rendering of these formats;
// reading their XML ourselves would lose numbering, tables and slides' reading order.
//
// Each conversion runs `soffice --headless --convert-to pdf` in its own process group with a
// private user profile in a fresh temporary folder (LibreOffice refuses to run twice on one
// profile, and parses run on several threads), is killed after the timeout, and its output is
// kept for the error message. The folder is removed afterwards.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ingest/files.h"
#include "ingest/parser.h"

extern char** environ;

namespace mmkg {
namespace {

namespace fs = std::filesystem;

bool executable(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

/// The LibreOffice program: `configured` (a path, or a name looked up in PATH), else soffice or
/// libreoffice from PATH. Empty when there is none.
std::string find_soffice(const std::string& configured) {
  std::vector<std::string> names;
  if (!configured.empty()) {
    if (configured.find('/') != std::string::npos) return executable(configured) ? configured : "";
    names.push_back(configured);
  } else {
    names = {"soffice", "libreoffice"};
  }
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "";
  for (const std::string& name : names) {
    size_t i = 0;
    while (i <= dirs.size()) {
      size_t j = dirs.find(':', i);
      if (j == std::string::npos) j = dirs.size();
      const std::string dir = dirs.substr(i, j - i);
      if (!dir.empty() && executable(dir + "/" + name)) return dir + "/" + name;
      i = j + 1;
    }
  }
  return "";
}

/// A fresh private folder, removed with its contents on destruction.
class TempFolder {
 public:
  TempFolder() {
    std::string tmpl = (fs::temp_directory_path() / "mmkg-office-XXXXXX").string();
    if (!::mkdtemp(tmpl.data()))
      throw IOError(std::string("cannot create a temporary folder for LibreOffice (") + std::strerror(errno) +
                    "); check that TMPDIR is writable");
    path_ = tmpl;
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  ~TempFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

/// The last non-empty lines of LibreOffice's output, on one line (it explains failures there).
std::string log_tail(const fs::path& log) {
  std::string s = read_all(log);
  if (s.size() > 600) s = s.substr(s.size() - 600);
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  const size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

struct Conversion {
  int exit_code = -1;     ///< -1: killed or did not start
  bool timed_out = false;
  std::string log;        ///< what LibreOffice printed (tail)
};

/// Runs LibreOffice on `input`, writing the PDF into `outdir`.
Conversion run_soffice(const std::string& program, const fs::path& tmp, const fs::path& input,
                       const fs::path& outdir, int timeout_seconds) {
  const fs::path log = tmp / "soffice.log";
  const std::vector<std::string> args = {
      program,
      "-env:UserInstallation=file://" + (tmp / "profile").string(),
      "--headless", "--invisible", "--norestore", "--nolockcheck", "--nologo", "--nodefault",
      "--convert-to", "pdf", "--outdir", outdir.string(), input.string()};
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  // Its own process group: on a timeout the whole tree (oosplash, soffice.bin) is killed.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, program.c_str(), &fa, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  Conversion c;
  if (rc != 0) {
    c.log = std::string("cannot start ") + program + " (" + std::strerror(rc) + ")";
    return c;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  int status = 0;
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      c.timed_out = true;
      ::kill(-pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(-pid, SIGKILL);  // anything it left behind in its group
  if (!c.timed_out && WIFEXITED(status)) c.exit_code = WEXITSTATUS(status);
  c.log = log_tail(log);
  return c;
}

class OfficeParser final : public Parser {
 public:
  explicit OfficeParser(OfficeOptions opt) : opt_(std::move(opt)) {}
  const char* name() const override { return "office"; }

  using Parser::parse;
  ParsedDocument parse(const std::string& path, std::string_view bytes, const ParseContext& ctx) const override {
    const std::string file = fs::path(path).filename().string();
    std::string format;
    try {
      format = detect_format(path, bytes);
    } catch (const InputError&) {
    }
    if (!is_office_format(format)) {
      const std::string ext = fs::path(path).extension().string();
      format = ext.size() > 1 ? ext.substr(1) : "docx";
      for (char& ch : format) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
    const std::string program = find_soffice(opt_.soffice);
    if (program.empty())
      throw InputError("cannot read " + file +
                       ": LibreOffice is not installed; install the Debian package libreoffice-core-nogui "
                       "(plus libreoffice-writer-nogui / -impress-nogui / -calc-nogui) or convert it to PDF");

    TempFolder tmp;
    // LibreOffice picks its import filter from the extension (and the content).
    const fs::path input = tmp.path() / ("document." + format);
    const fs::path outdir = tmp.path() / "out";
    {
      std::ofstream f(input, std::ios::binary);
      f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      if (!f) throw IOError("cannot write a temporary copy of " + file + " in " + tmp.path().string() + "; check free space in TMPDIR");
    }
    const Conversion c = run_soffice(program, tmp.path(), input, outdir, opt_.timeout_seconds);
    const fs::path pdf_path = outdir / "document.pdf";
    if (c.timed_out)
      throw InputError("LibreOffice did not finish converting " + file + " to PDF within " +
                       std::to_string(opt_.timeout_seconds) + " s and was stopped; convert it to PDF yourself");
    std::error_code ec;
    if (c.exit_code != 0 || !fs::exists(pdf_path, ec) || fs::file_size(pdf_path, ec) == 0) {
      std::string why = c.exit_code < 0    ? "it crashed"
                        : c.exit_code == 0 ? "it wrote no PDF"
                                           : "exit code " + std::to_string(c.exit_code);
      if (!c.log.empty()) why += ": " + c.log;
      throw InputError("LibreOffice could not convert " + file + " to PDF (" + why +
                       "); the file may be corrupt or password-protected");
    }
    const std::string pdf = read_all(pdf_path);
    ParsedDocument doc;
    try {
      doc = make_pdf_parser()->parse(path, pdf, ctx);
    } catch (const InputError& e) {
      throw InputError("after conversion of " + file + " to PDF by LibreOffice: " + e.what());
    }
    doc.format = format;
    // Page boxes belong to LibreOffice's PDF, which is not kept: nothing to render them on.
    for (Block& b : doc.blocks) b.x0 = b.y0 = b.x1 = b.y1 = 0;
    // LibreOffice titles a PDF with the document's title property, or with the file name it
    // was given ("document"): that one says nothing.
    if (doc.title == "document" || doc.title == "document." + format) doc.title.clear();
    if (doc.title.empty()) {
      for (const Block& b : doc.blocks)
        if (b.kind == BlockKind::Heading) {
          doc.title = b.text;
          break;
        }
    }
    if (doc.title.empty()) doc.title = fs::path(path).stem().string();
    return doc;
  }

 private:
  OfficeOptions opt_;
};

}  // namespace

std::unique_ptr<Parser> make_office_parser(OfficeOptions options) {
  return std::make_unique<OfficeParser>(std::move(options));
}

}  // namespace mmkg
