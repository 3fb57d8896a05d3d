#include "text/unicode.h"

#include <unicode/normalizer2.h>

namespace mmkg {

icu::UnicodeString nfd(const icu::UnicodeString& s) {
  static const icu::Normalizer2* normaliser = [] {
    UErrorCode err = U_ZERO_ERROR;
    const icu::Normalizer2* n = icu::Normalizer2::getNFDInstance(err);
    return U_SUCCESS(err) ? n : nullptr;
  }();
  if (!normaliser) return s;
  UErrorCode err = U_ZERO_ERROR;
  icu::UnicodeString d = normaliser->normalize(s, err);
  return U_SUCCESS(err) ? d : s;
}

}  // namespace mmkg
