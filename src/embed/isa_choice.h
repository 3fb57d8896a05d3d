// The kernel family of one kind of product (fp32 or int8): detected once from the CPU, and
// overridable by tests and benches that measure a slower kernel on a CPU that has a faster one.
// `Isa` is an enum whose values are ordered slowest first, the scalar kernel being 0.
#pragma once

#include <atomic>
#include <string>

#include "core/error.h"

namespace mmkg {

template <typename Isa>
class IsaChoice {
 public:
  using Detect = Isa (*)();
  using Name = const char* (*)(Isa);
  IsaChoice(Detect detect, Name name, const char* what) : detected_(detect()), name_(name), what_(what) {}

  /// The fastest kernel this CPU runs, or the override.
  Isa best() const {
    const int o = override_.load();
    return o >= 0 ? static_cast<Isa>(o) : detected_;
  }
  /// Whether this CPU (and this build) can run `isa`.
  bool supported(Isa isa) const { return static_cast<int>(isa) <= static_cast<int>(detected_); }
  /// best() returns `isa` until clear_override(); Error when this CPU cannot run it.
  void set_override(Isa isa) {
    if (!supported(isa)) throw Error(std::string(what_) + " kernel " + name_(isa) + " not supported by this CPU");
    override_ = static_cast<int>(isa);
  }
  void clear_override() { override_ = -1; }

 private:
  const Isa detected_;
  const Name name_;
  const char* what_;
  std::atomic<int> override_{-1};
};

}  // namespace mmkg
