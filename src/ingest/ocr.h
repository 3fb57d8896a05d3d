// OCR of figure images with Tesseract (LSTM, English), for the text inside figures that have no
// PDF text layer: raster figures, screenshots, scanned plots.
#pragma once

#include <string>

namespace mmkg {

/// What OCR found in one image. Exactly one of three outcomes: `error` set (nothing was read),
/// `blank` (skipped cheaply: no line of text found), or words read (`text` may still be empty when
/// every word was dropped as low-confidence or junk).
struct OcrResult {
  std::string text;         ///< kept words: words joined with ' ', lines with '\n'
  float confidence = -1;    ///< mean confidence 0..100 of the kept words; -1 when none was kept
  int words_kept = 0;
  int words_dropped = 0;    ///< low confidence (< 60) or junk (no letter or digit, stray letters, punctuation)
  bool blank = false;       ///< tiny, uniform, (almost) inkless or without a line of letters: Tesseract was not run
  std::string error;        ///< non-empty: the image could not be read (one line, says what to do)
  // How the image was read, for benchmarks and tests (not part of the cached result):
  int text_lines = 0;       ///< lines of letters the cheap text test found (0: not measured, or none)
  int text_height = 0;      ///< median height (px, as decoded) of the letter-sized ink; 0 if not measured
  double scale = 0;         ///< factor from the decoded image to what Tesseract read; 0 if it did not run
  double prepare_seconds = 0;    ///< this thread's CPU time: decoding, grey, analysis, scaling
  double recognise_seconds = 0;  ///< this thread's CPU time in Tesseract
};

/// True when Tesseract and its English data are usable; otherwise `why` says what to install.
/// Checked once per process (the answer is cached).
bool ocr_available(std::string* why = nullptr);

/// Names the engine, language and settings ("tesseract 5.3.0 eng psm11 v1"): part of the cache
/// key of stored OCR text, so changing any of them re-runs OCR.
std::string ocr_engine_id();

/// OCR of one image (PNG; any format Leptonica decodes works too). Never throws and never
/// crashes on bad bytes: failures come back in `error`. Thread-safe: each thread lazily loads
/// its own Tesseract engine (about 20 MB, kept until the thread ends).
OcrResult ocr_png(const std::string& png_bytes);

}  // namespace mmkg
