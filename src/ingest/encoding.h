// Decoding text files in any common encoding to clean UTF-8.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mmkg {

struct DecodedText {
  std::string text;      ///< valid UTF-8, BOM removed, CRLF/CR normalised to LF, NUL-free
  std::string encoding;  ///< "utf-8", "utf-16le", "utf-16be", "utf-32le", "utf-32be", "windows-1252"
};

/// Detects the encoding (BOM, UTF-8 validity, UTF-16 without BOM, binary content) and converts.
/// Throws InputError for binary data ("binary content, not text") and for files that mix valid
/// multi-byte UTF-8 with invalid sequences (names the byte offset).
DecodedText decode_text(std::string_view bytes);

/// The text of a text-format file (plain text, Markdown, HTML): decode_text(), InputError "empty
/// file (no text)" when it holds only white space, and in `warnings` the note that a file that is
/// not UTF-8 was read as windows-1252.
std::string decode_text_file(std::string_view bytes, std::vector<std::string>& warnings);

/// True if `s` is entirely valid UTF-8 (no overlongs, no surrogates).
bool is_valid_utf8(std::string_view s);

}  // namespace mmkg
