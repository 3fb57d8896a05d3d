// Unicode normalisation shared by the tokenizer and the graph's name keys.
#pragma once

#include <unicode/unistr.h>

namespace mmkg {

/// The NFD form of `s` (canonical decomposition: accents as separate combining marks), or `s`
/// itself when ICU cannot load its normaliser data. The normaliser is fetched once, through a C++
/// function-local static: ICU's own once-initialisation is thread-safe too, but its atomics are
/// inside libicuuc, so ThreadSanitizer (`make tsan`) saw its first use from two threads as a race.
icu::UnicodeString nfd(const icu::UnicodeString& s);

}  // namespace mmkg
