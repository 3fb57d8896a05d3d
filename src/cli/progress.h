// A progress bar on stderr when it is a terminal; silent otherwise.
#pragma once

#include <chrono>
#include <string>

#include "app/session.h"

namespace mmkg::cli {

class ProgressBar {
 public:
  /// Active only when `enabled` and stderr is a TTY.
  explicit ProgressBar(bool enabled);
  ~ProgressBar();
  void update(const IngestProgress& p);
  /// Clears the bar line (before printing other output).
  void finish();
  bool active() const { return active_; }

 private:
  bool active_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace mmkg::cli
