#include "text/unicode.h"

namespace mmkg {

const icu::Normalizer2* nfd_normalizer() {
  static const icu::Normalizer2* nfd = [] {
    UErrorCode err = U_ZERO_ERROR;
    const icu::Normalizer2* n = icu::Normalizer2::getNFDInstance(err);
    return U_SUCCESS(err) ? n : nullptr;
  }();
  return nfd;
}

}  // namespace mmkg
