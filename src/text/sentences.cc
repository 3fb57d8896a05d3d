#include "text/sentences.h"

#include <unicode/brkiter.h>
#include <unicode/utext.h>

#include <memory>

namespace mmkg {

namespace {

// ICU's "ss=standard" keyword turns on its abbreviation suppressions ("e.g.", "Fig.", "Dr.") so
// that those periods do not end a sentence.
std::unique_ptr<icu::BreakIterator> make_iterator() {
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<icu::BreakIterator> it(
      icu::BreakIterator::createSentenceInstance(icu::Locale("en@ss=standard"), status));
  if (U_FAILURE(status)) {
    status = U_ZERO_ERROR;
    it.reset(icu::BreakIterator::createSentenceInstance(icu::Locale::getEnglish(), status));
    if (U_FAILURE(status)) it.reset();
  }
  return it;
}

bool space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f'; }

}  // namespace

std::vector<std::pair<size_t, size_t>> split_sentences(std::string_view text) {
  std::vector<std::pair<size_t, size_t>> out;
  auto push = [&](size_t b, size_t e) {
    while (b < e && space(text[b])) ++b;
    while (e > b && space(text[e - 1])) --e;
    if (e > b) out.emplace_back(b, e);
  };
  if (text.empty()) return out;
  thread_local std::unique_ptr<icu::BreakIterator> it = make_iterator();
  if (!it) {
    push(0, text.size());
    return out;
  }
  UErrorCode status = U_ZERO_ERROR;
  UText* ut = utext_openUTF8(nullptr, text.data(), static_cast<int64_t>(text.size()), &status);
  if (U_FAILURE(status)) {
    push(0, text.size());
    return out;
  }
  it->setText(ut, status);
  if (U_FAILURE(status)) {
    utext_close(ut);
    push(0, text.size());
    return out;
  }
  // With a UTF-8 UText, boundaries are native (byte) offsets.
  int32_t start = it->first();
  for (int32_t end = it->next(); end != icu::BreakIterator::DONE; start = end, end = it->next())
    push(static_cast<size_t>(start), static_cast<size_t>(end));
  // Detach the iterator from the UText before closing it.
  UText* empty = utext_openUTF8(nullptr, "", 0, &status);
  it->setText(empty, status);
  utext_close(ut);
  utext_close(empty);
  return out;
}

}  // namespace mmkg
