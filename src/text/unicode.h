// Shared ICU objects.
#pragma once

#include <unicode/normalizer2.h>

namespace mmkg {

/// ICU's NFD normaliser, or nullptr when ICU cannot load its data. Fetched once, through a C++
/// function-local static: ICU's own once-initialisation is thread-safe too, but its atomics are
/// inside libicuuc, so ThreadSanitizer (`make tsan`) saw its first use from two threads as a race.
const icu::Normalizer2* nfd_normalizer();

}  // namespace mmkg
