// Encoding detection and conversion to clean UTF-8 (BOM, UTF-8, BOM-less UTF-16, windows-1252),
// with a clear refusal of binary data and of broken UTF-8. Conversion itself is ICU's (ucnv).
#include "ingest/encoding.h"

#include <unicode/ucnv.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"

namespace mmkg {
namespace {

using Bytes = const unsigned char*;

// ----- UTF-8 scanning -------------------------------------------------------------------------

struct Utf8Scan {
  bool valid = true;          ///< no ill-formed sequence at all
  bool has_multibyte = false; ///< at least one well-formed multi-byte sequence
  size_t first_bad = 0;       ///< byte offset of the first ill-formed sequence (if !valid)
};

// ICU's U8_NEXT does the per-sequence validation (overlongs, surrogates, > U+10FFFF); the loop is
// ours because we need the offset of the first bad byte and whether any multi-byte sequence was
// well formed, and an ASCII fast path so a 50 MB file scans in milliseconds.
Utf8Scan scan_utf8(std::string_view s, bool stop_at_first_bad) {
  Utf8Scan r;
  auto p = reinterpret_cast<const uint8_t*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    // ASCII fast path: 8 bytes at a time.
    while (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      if (w & 0x8080808080808080ULL) break;
      i += 8;
    }
    if (i >= n) break;
    if (p[i] < 0x80) { ++i; continue; }
    const size_t start = i;
    UChar32 c;
    U8_NEXT(p, i, n, c);
    if (c < 0) {
      if (r.valid) { r.valid = false; r.first_bad = start; }
      if (stop_at_first_bad || r.has_multibyte) return r;
    } else {
      r.has_multibyte = true;
      if (!r.valid) return r;  // both facts known; nothing more to learn
    }
  }
  return r;
}

// ----- Binary detection ----------------------------------------------------------------------

// Magic numbers of common binary formats people drop into a document folder by mistake.
// `strong` signatures cannot plausibly start a text file and reject it outright; the weak ones
// (ASCII-looking) only name the format once the content is already known to be binary.
const char* sniff_magic(std::string_view b, bool strong_only) {
  auto starts = [&](const char* sig, size_t len, size_t at = 0) {
    return b.size() >= at + len && std::memcmp(b.data() + at, sig, len) == 0;
  };
  if (starts("\xFF\xD8\xFF", 3)) return "a JPEG image";
  if (starts("\x89PNG\r\n\x1A\n", 8)) return "a PNG image";
  if (starts("RIFF", 4) && starts("WEBP", 4, 8)) return "a WebP image";
  if (starts("II*\0", 4) || starts("MM\0*", 4)) return "a TIFF image";
  if (starts("%PDF-", 5)) return "a PDF document; give it a .pdf extension";
  if (starts("PK\x03\x04", 4) || starts("PK\x05\x06", 4))
    return "a ZIP archive (or .docx/.xlsx/.epub)";
  if (starts("\x1F\x8B", 2)) return "gzip-compressed data";
  if (starts("\xFD" "7zXZ\0", 6)) return "xz-compressed data";
  if (starts("\x28\xB5\x2F\xFD", 4)) return "zstd-compressed data";
  if (starts("7z\xBC\xAF\x27\x1C", 6)) return "a 7-Zip archive";
  if (starts("Rar!\x1A\x07", 6)) return "a RAR archive";
  if (starts("\x7F" "ELF", 4)) return "an ELF executable";
  if (starts("\xCF\xFA\xED\xFE", 4) || starts("\xCE\xFA\xED\xFE", 4)) return "a Mach-O executable";
  if (starts("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1", 8)) return "an old Microsoft Office file";
  if (starts("SQLite format 3\0", 16)) return "an SQLite database";
  if (starts("\x1A\x45\xDF\xA3", 4)) return "a Matroska/WebM video";
  if (strong_only) return nullptr;
  if (starts("GIF87a", 6) || starts("GIF89a", 6)) return "a GIF image";
  if (starts("BZh", 3)) return "bzip2-compressed data";
  if (starts("MZ", 2)) return "a Windows executable";
  if (starts("ftyp", 4, 4)) return "an MP4/MOV video or HEIC image";
  if (starts("ID3", 3) || starts("\xFF\xFB", 2)) return "an MP3 audio file";
  if (starts("OggS", 4)) return "an Ogg media file";
  if (starts("wOFF", 4) || starts("wOF2", 4)) return "a web font";
  return nullptr;
}

[[noreturn]] void throw_binary(std::string_view b) {
  const char* what = sniff_magic(b, /*strong_only=*/false);
  throw InputError(std::string("binary content, not text (looks like ") +
                   (what ? what : "random bytes") +
                   "); supported are PDF, text, Markdown, HTML, EPUB, Office documents and images");
}

bool is_bad_control(unsigned char c) {
  // C0 controls that never appear in text. \t \n \v \f \r are layout; ESC shows up in
  // terminal logs with colour codes, which are still text.
  return c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r' && c != 0x1B;
}

/// True when the bytes contain NUL or more than ~5% stray C0 control characters.
bool looks_binary(std::string_view b) {
  size_t controls = 0;
  for (unsigned char c : b) {
    if (c == 0) return true;
    controls += is_bad_control(c);
  }
  return controls * 20 > b.size();
}

// ----- UTF-16 without BOM --------------------------------------------------------------------

/// "utf-16le"/"utf-16be" when the NUL bytes clearly sit on one parity (Latin-script UTF-16),
/// nullptr otherwise. Looks at a prefix: the pattern is obvious within a few KB if it is there.
const char* sniff_utf16(std::string_view b) {
  const size_t n = std::min<size_t>(b.size(), 1 << 16) & ~size_t{1};
  if (n < 4) return nullptr;
  size_t even_nul = 0, odd_nul = 0;
  for (size_t i = 0; i < n; i += 2) {
    even_nul += b[i] == 0;
    odd_nul += b[i + 1] == 0;
  }
  const size_t pairs = n / 2;
  auto many = [&](size_t k) { return k * 10 > pairs * 4; };  // > 40%
  auto few = [&](size_t k) { return k * 20 < pairs; };       // < 5%
  if (many(odd_nul) && few(even_nul)) return "utf-16le";
  if (many(even_nul) && few(odd_nul)) return "utf-16be";
  return nullptr;
}

// ----- Conversion ----------------------------------------------------------------------------

struct ConverterCloser {
  void operator()(UConverter* c) const { ucnv_close(c); }
};
using ConverterPtr = std::unique_ptr<UConverter, ConverterCloser>;

ConverterPtr open_converter(const char* name) {
  UErrorCode st = U_ZERO_ERROR;
  ConverterPtr c(ucnv_open(name, &st));
  if (U_FAILURE(st) || !c) {
    throw Error(std::string("cannot open ICU converter for ") + name + ": " + u_errorName(st) +
                "; check the ICU installation");
  }
  return c;
}

/// Converts `src` (in ICU charset `from`) to UTF-8. Ill-formed input becomes U+FFFD (ICU's
/// default substitution). Streams through a fixed pivot and output chunk, so memory is the
/// output string plus 64 KB.
std::string icu_to_utf8(const char* from, std::string_view src, size_t reserve) {
  ConverterPtr in = open_converter(from);
  ConverterPtr out = open_converter("UTF-8");
  std::string result;
  result.reserve(reserve);

  constexpr size_t kChunk = 64 * 1024;
  auto buf = std::make_unique<char[]>(kChunk);
  UChar pivot[4096];
  UChar* pivot_source = pivot;
  UChar* pivot_target = pivot;
  const char* sp = src.data();
  const char* const se = src.data() + src.size();
  bool reset = true;
  for (;;) {
    UErrorCode st = U_ZERO_ERROR;
    char* tp = buf.get();
    ucnv_convertEx(out.get(), in.get(), &tp, buf.get() + kChunk, &sp, se, pivot, &pivot_source,
                   &pivot_target, pivot + 4096, reset, /*flush=*/true, &st);
    reset = false;
    result.append(buf.get(), tp - buf.get());
    if (st == U_BUFFER_OVERFLOW_ERROR) continue;
    if (U_FAILURE(st)) {
      throw InputError(std::string("cannot convert text from ") + from + ": " + u_errorName(st) +
                       "; convert the file to UTF-8 and re-run");
    }
    break;
  }
  return result;
}

/// In place: CRLF and lone CR → LF, NUL dropped, leading U+FEFF dropped. One pass, no reallocs.
void normalise(std::string& s) {
  size_t r = 0, w = 0;
  const size_t n = s.size();
  if (n >= 3 && s.compare(0, 3, "\xEF\xBB\xBF") == 0) r = 3;
  char* d = s.data();
  for (; r < n; ++r) {
    const char c = d[r];
    if (c == '\r') {
      d[w++] = '\n';
      if (r + 1 < n && d[r + 1] == '\n') ++r;
    } else if (c != '\0') {
      d[w++] = c;
    }
  }
  s.resize(w);
}

/// Binary check for text that came out of a BOM-less UTF-16 guess: 16-bit binary data can
/// show the same NUL pattern, but decodes to mostly control characters.
bool decoded_looks_binary(std::string_view s) {
  size_t controls = 0;
  for (unsigned char c : s) controls += (c == 0 || is_bad_control(c));
  return controls * 20 > s.size();
}

DecodedText convert(const char* icu_name, const char* label, std::string_view body,
                    size_t reserve) {
  DecodedText d;
  d.text = icu_to_utf8(icu_name, body, reserve);
  d.encoding = label;
  normalise(d.text);
  return d;
}

}  // namespace

bool is_valid_utf8(std::string_view s) { return scan_utf8(s, /*stop_at_first_bad=*/true).valid; }

DecodedText decode_text(std::string_view b) {
  auto starts = [&](const char* sig, size_t len) {
    return b.size() >= len && std::memcmp(b.data(), sig, len) == 0;
  };

  // 1. Byte order marks. UTF-32LE's BOM begins with UTF-16LE's, so test it first.
  if (starts("\xEF\xBB\xBF", 3)) {
    std::string_view body = b.substr(3);
    if (is_valid_utf8(body)) {
      DecodedText d{std::string(body), "utf-8"};
      normalise(d.text);
      return d;
    }
    // The BOM declares UTF-8, so trust it and substitute U+FFFD for the damaged bytes.
    return convert("UTF-8", "utf-8", body, body.size());
  }
  if (starts("\xFF\xFE\0\0", 4) && b.size() % 4 == 0)
    return convert("UTF-32LE", "utf-32le", b.substr(4), b.size() / 2);
  if (starts("\0\0\xFE\xFF", 4)) return convert("UTF-32BE", "utf-32be", b.substr(4), b.size() / 2);
  if (starts("\xFF\xFE", 2)) return convert("UTF-16LE", "utf-16le", b.substr(2), b.size());
  if (starts("\xFE\xFF", 2)) return convert("UTF-16BE", "utf-16be", b.substr(2), b.size());

  // 2. Known binary formats, even if they happen to be mostly ASCII (e.g. an uncompressed PDF).
  if (sniff_magic(b, /*strong_only=*/true)) throw_binary(b);

  // 3. UTF-16 without BOM: ASCII-range UTF-16 is also valid UTF-8 (with NULs), so test first.
  if (const char* enc = sniff_utf16(b)) {
    const bool le = std::strcmp(enc, "utf-16le") == 0;
    DecodedText d = convert(le ? "UTF-16LE" : "UTF-16BE", enc, b, b.size());
    if (decoded_looks_binary(d.text)) throw_binary(b);
    return d;
  }

  // 4. Binary: NUL bytes or many stray control characters.
  if (looks_binary(b)) throw_binary(b);

  // 5. UTF-8.
  const Utf8Scan scan = scan_utf8(b, /*stop_at_first_bad=*/false);
  if (scan.valid) {
    DecodedText d{std::string(b), "utf-8"};
    normalise(d.text);
    return d;
  }
  if (scan.has_multibyte) {
    throw InputError("invalid UTF-8 at byte offset " + std::to_string(scan.first_bad) +
                     "; convert the file to UTF-8 (e.g. iconv -f <enc> -t UTF-8) and re-run");
  }

  // 6. High bytes but not one well-formed UTF-8 sequence: a legacy 8-bit file. windows-1252 is
  // a superset of Latin-1's printable range and the most common such encoding by far.
  return convert("windows-1252", "windows-1252", b, b.size() + b.size() / 4);
}

std::string decode_text_file(std::string_view bytes, std::vector<std::string>& warnings) {
  DecodedText dec = decode_text(bytes);
  if (dec.text.find_first_not_of(" \t\n\f\v") == std::string::npos) throw InputError("empty file (no text)");
  if (dec.encoding == "windows-1252") warnings.push_back("not UTF-8; decoded as windows-1252 (Latin-1)");
  return std::move(dec.text);
}

}  // namespace mmkg
