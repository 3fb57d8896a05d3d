// PLACEHOLDER until the OCR module lands (same API): replaced by the real ocr.h.
#pragma once
#include <string>
namespace mmkg {
struct OcrResult {
  std::string text;
  float confidence = -1;
  int words_kept = 0, words_dropped = 0;
  bool blank = false;
  std::string error;
};
bool ocr_available(std::string* why = nullptr);
std::string ocr_engine_id();
OcrResult ocr_png(const std::string& png_bytes);
}  // namespace mmkg
