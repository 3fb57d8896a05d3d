#include "core/install_paths.h"

#include <unistd.h>

#include <filesystem>

namespace mmkg {

namespace fs = std::filesystem;

std::string executable_dir() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  buf[n] = 0;
  return fs::path(buf).parent_path().string();
}

std::string installed_data_path(std::string_view rel, const std::string& exe_dir) {
  if (exe_dir.empty()) return "";
  const fs::path p = (fs::path(exe_dir) / ".." / "share" / "mmkg" / fs::path(rel)).lexically_normal();
  std::error_code ec;
  return fs::exists(p, ec) ? p.string() : "";
}

}  // namespace mmkg
