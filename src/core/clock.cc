#include "core/clock.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace mmkg {

std::string utc_now_iso(bool micros) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%S", &tm);
  if (!micros) return std::string(b) + "Z";
  const long us = static_cast<long>(
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000);
  char o[48];
  std::snprintf(o, sizeof o, "%s.%06ldZ", b, us);
  return o;
}

}  // namespace mmkg
