// Every agent step runs through Trace::step: it is timed, logged (-v) and recorded for --json.
#pragma once

#include <chrono>
#include <exception>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

namespace mmkg {

class Trace {
 public:
  explicit Trace(bool verbose) : verbose_(verbose) {}

  /// Runs `fn(detail)` as step `name`; `detail` is a JSON object the step fills with what it
  /// did (counts, sizes). The step's wall time is added as "ms".
  template <typename Fn>
  auto step(const std::string& name, Fn&& fn) {
    nlohmann::json detail = nlohmann::json::object();
    auto t0 = std::chrono::steady_clock::now();
    auto finish = [&]() {
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      nlohmann::json rec = {{"step", name}, {"ms", ms}};
      if (round_ > 0) rec["round"] = round_;
      rec.update(detail);
      steps_.push_back(std::move(rec));
      if (verbose_) std::fprintf(stderr, "mmkg: %s: done in %.1f ms\n", name.c_str(), ms);
    };
    try {
      if constexpr (std::is_void_v<decltype(fn(detail))>) {
        fn(detail);
        finish();
      } else {
        auto r = fn(detail);
        finish();
        return r;
      }
    } catch (const std::exception& e) {  // recorded, then passed on
      detail["error"] = e.what();
      finish();
      throw;
    }
  }

  /// The orchestrator's round (1, 2, ...): recorded in every later step; 0 = not recorded.
  void set_round(int round) { round_ = round; }

  /// A human log line on stderr (only with -v), like the seed system's run log.
  template <typename... Args>
  void log(const char* fmt, Args&&... args) const {
    if (!verbose_) return;
    if constexpr (sizeof...(Args) == 0) {
      std::fputs(fmt, stderr);
    } else {
      std::fprintf(stderr, fmt, std::forward<Args>(args)...);
    }
    std::fputc('\n', stderr);
  }

  bool verbose() const { return verbose_; }
  const nlohmann::json& steps() const { return steps_; }

 private:
  bool verbose_;
  int round_ = 0;
  nlohmann::json steps_ = nlohmann::json::array();
};

}  // namespace mmkg
