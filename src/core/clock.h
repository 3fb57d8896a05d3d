// Wall-clock time as text, for records and API answers.
#pragma once

#include <string>

namespace mmkg {

/// Now in UTC, ISO-8601 / RFC 3339: "2026-11-27T02:34:45Z", or with `micros`
/// "2026-11-27T02:34:45.123456Z" (Ollama's created_at).
std::string utc_now_iso(bool micros = false);

}  // namespace mmkg
