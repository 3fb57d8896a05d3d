// Tests for decode_text / is_valid_utf8: BOMs, BOM-less UTF-16, legacy 8-bit, binary refusal.
#include "ingest/encoding.h"

#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>

#include "core/error.h"

namespace mmkg {
namespace {

using namespace std::string_literals;

std::string utf16le(const std::u16string& s) {
  std::string out;
  for (char16_t c : s) {
    out.push_back(static_cast<char>(c & 0xFF));
    out.push_back(static_cast<char>(c >> 8));
  }
  return out;
}

std::string utf16be(const std::u16string& s) {
  std::string out;
  for (char16_t c : s) {
    out.push_back(static_cast<char>(c >> 8));
    out.push_back(static_cast<char>(c & 0xFF));
  }
  return out;
}

std::string decode_error_of(std::string_view bytes) {
  try {
    decode_text(bytes);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(EncodingTest, Utf8WithoutBom) {
  const DecodedText d = decode_text("hello w\xC3\xB6rld \xF0\x9F\x98\x80\n");
  EXPECT_EQ(d.text, "hello w\xC3\xB6rld \xF0\x9F\x98\x80\n");
  EXPECT_EQ(d.encoding, "utf-8");
}

TEST(EncodingTest, Utf8WithBomRemovesBom) {
  const DecodedText d = decode_text("\xEF\xBB\xBF" "caf\xC3\xA9");
  EXPECT_EQ(d.text, "caf\xC3\xA9");
  EXPECT_EQ(d.encoding, "utf-8");
}

TEST(EncodingTest, Utf16LeWithBom) {
  const DecodedText d = decode_text("\xFF\xFE"s + utf16le(u"h\u00e9llo\r\nw\u00f6rld"));
  EXPECT_EQ(d.text, "h\xC3\xA9llo\nw\xC3\xB6rld");
  EXPECT_EQ(d.encoding, "utf-16le");
}

TEST(EncodingTest, Utf16BeWithBom) {
  const DecodedText d = decode_text("\xFE\xFF"s + utf16be(u"\u65e5\u672c語 text"));
  EXPECT_EQ(d.text, "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E text");
  EXPECT_EQ(d.encoding, "utf-16be");
}

TEST(EncodingTest, Utf32LeWithBom) {
  const std::string bytes = "\xFF\xFE\0\0" "A\0\0\0" "\xE9\0\0\0"s;
  const DecodedText d = decode_text(bytes);
  EXPECT_EQ(d.text, "A\xC3\xA9");
  EXPECT_EQ(d.encoding, "utf-32le");
}

TEST(EncodingTest, Utf16LeWithoutBom) {
  const DecodedText d =
      decode_text(utf16le(u"Plain English text saved as UTF-16 by an old editor, caf\u00e9.\r\n"));
  EXPECT_EQ(d.text, "Plain English text saved as UTF-16 by an old editor, caf\xC3\xA9.\n");
  EXPECT_EQ(d.encoding, "utf-16le");
}

TEST(EncodingTest, Utf16BeWithoutBom) {
  const DecodedText d = decode_text(utf16be(u"Big-endian text without a byte order mark."));
  EXPECT_EQ(d.text, "Big-endian text without a byte order mark.");
  EXPECT_EQ(d.encoding, "utf-16be");
}

TEST(EncodingTest, Latin1BecomesUtf8) {
  const DecodedText d = decode_text("caf\xE9 na\xEFve");
  EXPECT_EQ(d.text, "caf\xC3\xA9 na\xC3\xAFve");
  EXPECT_EQ(d.encoding, "windows-1252");
}

TEST(EncodingTest, Windows1252SmartQuotes) {
  const DecodedText d = decode_text("\x93quoted\x94 it\x92s \x96 a \x80 sign");
  EXPECT_EQ(d.text,
            "\xE2\x80\x9Cquoted\xE2\x80\x9D it\xE2\x80\x99s \xE2\x80\x93 a \xE2\x82\xAC sign");
  EXPECT_EQ(d.encoding, "windows-1252");
  EXPECT_TRUE(is_valid_utf8(d.text));
}

TEST(EncodingTest, CrLfAndLoneCrBecomeLf) {
  EXPECT_EQ(decode_text("a\r\nb\rc\n\r\n").text, "a\nb\nc\n\n");
}

TEST(EncodingTest, EmptyInputDecodesToEmpty) {
  EXPECT_EQ(decode_text("").text, "");
}

TEST(EncodingTest, RandomBytesAreBinary) {
  std::mt19937 rng(42);
  std::string bytes(4096, '\0');
  for (char& c : bytes) c = static_cast<char>(rng() & 0xFF);
  const std::string msg = decode_error_of(bytes);
  EXPECT_NE(msg.find("binary"), std::string::npos) << msg;
  EXPECT_NE(msg.find("random bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("supported are PDF, text, Markdown, HTML, EPUB, Office documents and images"), std::string::npos);
}

TEST(EncodingTest, JpegMagicIsNamed) {
  const std::string msg = decode_error_of("\xFF\xD8\xFF\xE0\0\x10JFIF\0\x01\x01\0\0\x01\0\x01\0\0"s);
  EXPECT_NE(msg.find("binary"), std::string::npos) << msg;
  EXPECT_NE(msg.find("JPEG"), std::string::npos) << msg;
}

TEST(EncodingTest, OtherMagicNumbersAreNamed) {
  EXPECT_NE(decode_error_of("\x89PNG\r\n\x1A\n\0\0\0\rIHDR"s).find("PNG"), std::string::npos);
  EXPECT_NE(decode_error_of("PK\x03\x04\x14\0\0\0"s).find("ZIP"), std::string::npos);
  EXPECT_NE(decode_error_of("\x1F\x8B\x08\0\0\0"s).find("gzip"), std::string::npos);
  EXPECT_NE(decode_error_of("\x7F" "ELF\x02\x01\x01\0"s).find("ELF"), std::string::npos);
  // Even an all-ASCII PDF is not text.
  EXPECT_NE(decode_error_of("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n").find("PDF"),
            std::string::npos);
}

TEST(EncodingTest, ControlCharactersAreBinary) {
  std::string bytes;
  for (int i = 0; i < 100; ++i) bytes += "ab\x01\x02\x03";
  EXPECT_NE(decode_error_of(bytes).find("binary"), std::string::npos);
  // A few stray controls and ANSI colour codes are still text.
  EXPECT_NO_THROW(decode_text("\x1B[31mred\x1B[0m and a form\x0C" "feed and one \x07 bell in a "
                              "line long enough to stay under the threshold"));
}

TEST(EncodingTest, NulByteIsBinary) {
  EXPECT_NE(decode_error_of("some text\0more text"s).find("binary"), std::string::npos);
}

TEST(EncodingTest, MixedInvalidUtf8NamesOffset) {
  // "ok é then " is 11 bytes (é is two), so the bad byte 0xFF is at offset 11.
  const std::string msg = decode_error_of("ok \xC3\xA9 then \xFF bad");
  EXPECT_NE(msg.find("invalid UTF-8"), std::string::npos) << msg;
  EXPECT_NE(msg.find("byte offset 11"), std::string::npos) << msg;
  EXPECT_NE(msg.find("iconv"), std::string::npos) << msg;
  // The invalid byte may also come before the first valid sequence.
  EXPECT_NE(decode_error_of("\xE9t\xE9 and \xE2\x82\xAC").find("byte offset 0"), std::string::npos);
}

TEST(EncodingTest, IsValidUtf8) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ascii"));
  EXPECT_TRUE(is_valid_utf8("\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"));
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xE0\x80\xAF"));      // overlong
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // surrogate U+D800
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // > U+10FFFF
  EXPECT_FALSE(is_valid_utf8("abc\xE2\x82"));       // truncated
  EXPECT_FALSE(is_valid_utf8("\x80"));              // lone continuation
}

TEST(EncodingTest, OutputIsCleanUtf8) {
  // A UTF-16 NUL character and an unpaired surrogate: no NUL out, U+FFFD for the surrogate.
  const std::string bytes = "\xFF\xFE"s + utf16le(u"a") + "\0\0"s + utf16le(u"b") + "\x00\xD8"s +
                            utf16le(u"c");
  const DecodedText d = decode_text(bytes);
  EXPECT_EQ(d.text.find('\0'), std::string::npos);
  EXPECT_TRUE(is_valid_utf8(d.text));
  EXPECT_EQ(d.text, "ab\xEF\xBF\xBD" "c");
}

TEST(EncodingTest, LargeLatin1InputIsFast) {
  std::string bytes;
  bytes.reserve(50u << 20);
  while (bytes.size() < (50u << 20)) bytes += "na\xEFve caf\xE9 text on one very long line, ";
  const auto t0 = std::chrono::steady_clock::now();
  const DecodedText d = decode_text(bytes);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(d.encoding, "windows-1252");
  EXPECT_GT(d.text.size(), bytes.size());
  EXPECT_LT(secs, 10.0);
}

}  // namespace
}  // namespace mmkg
