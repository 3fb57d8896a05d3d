#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

namespace mmkg::cli {

ProgressBar::ProgressBar(bool enabled) : active_(enabled && ::isatty(STDERR_FILENO)) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(const IngestProgress& p) {
  if (!active_) return;
  auto now = std::chrono::steady_clock::now();
  bool last = p.files_done == p.files_total && p.embed_total == 0;
  if (!last && drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const int width = 24;
  double frac = p.files_total ? static_cast<double>(p.files_done) / static_cast<double>(p.files_total) : 1.0;
  int fill = static_cast<int>(frac * width);
  std::string bar(static_cast<size_t>(fill), '#');
  bar.resize(width, '.');
  double pps = p.seconds > 0 ? static_cast<double>(p.pages) / p.seconds : 0;
  double eta = frac > 0 ? p.seconds * (1 - frac) / frac : 0;
  std::string name = std::filesystem::path(p.current).filename().string();
  if (name.size() > 30) name = name.substr(0, 27) + "...";
  if (p.embed_total > 0) {
    std::fprintf(stderr, "\r\033[K[%s] %zu/%zu files  %lld pages  embedding %lld/%lld chunks  %s", bar.c_str(),
                 p.files_done, p.files_total, static_cast<long long>(p.pages), static_cast<long long>(p.embed_done),
                 static_cast<long long>(p.embed_total), name.c_str());
  } else {
    std::fprintf(stderr, "\r\033[K[%s] %zu/%zu files  %lld pages  %.0f pages/s  ETA %.0fs  %s", bar.c_str(),
                 p.files_done, p.files_total, static_cast<long long>(p.pages), pps, eta, name.c_str());
  }
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (active_ && drawn_) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    drawn_ = false;
  }
}

}  // namespace mmkg::cli
