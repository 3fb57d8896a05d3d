// Characters of PDF text: MuPDF's code points to clean UTF-8 (controls dropped, spaces and soft
// hyphens told apart), accents drawn as separate glyphs composed with their letter, metadata
// strings sanitised. Inline: map_char runs once per character of every page.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace mmkg::pdf {

// ---- characters ----

inline size_t encode_utf8(uint32_t c, char* out) {
  if (c < 0x80) {
    out[0] = static_cast<char>(c);
    return 1;
  }
  if (c < 0x800) {
    out[0] = static_cast<char>(0xC0 | (c >> 6));
    out[1] = static_cast<char>(0x80 | (c & 0x3F));
    return 2;
  }
  if (c < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (c >> 12));
    out[1] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (c & 0x3F));
    return 3;
  }
  out[0] = static_cast<char>(0xF0 | (c >> 18));
  out[1] = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
  out[2] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
  out[3] = static_cast<char>(0x80 | (c & 0x3F));
  return 4;
}

/// A TeX font without a Unicode map (a Type3 bitmap font that pdfTeX or dvips embedded) gives
/// its ligature glyphs as their slot numbers: ff, fi, fl, ffi, ffl at 0x1B-0x1F in T1 (Cork)
/// encoding and at 0x0B-0x0F in OT1 (Computer Modern). MuPDF passes the slots on as control
/// characters, which were dropped ("di\x1Berent" became "dierent") or taken for spaces ("signi
/// cant"). Next to a letter they are the ligature (the caller checks that); elsewhere nullptr.
/// OT1 puts æ œ ø there instead of T1's ligatures, and T1 accents and quotes at 0x0B-0x0F: in
/// a word, English text far more often has the ligature.
inline const char* tex_ligature(int c) {
  static const char* const kLig[] = {"ff", "fi", "fl", "ffi", "ffl"};
  if (c >= 0x1B && c <= 0x1F) return kLig[c - 0x1B];
  if (c >= 0x0B && c <= 0x0F) return kLig[c - 0x0B];
  return nullptr;
}
/// An ASCII letter (a code point, or a byte of UTF-8 text: a byte of a multi-byte character is none).
inline bool is_ascii_alpha(uint32_t c) { return c < 0x80 && (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }

enum class CharKind { Drop, Unmapped, Space, SoftHyphen, Text };

/// Classifies one extracted code point; for Text writes its clean UTF-8 form into `out`.
inline CharKind map_char(int ci, char* out, size_t* len) {
  if (ci < 0 || ci > 0x10FFFF) return CharKind::Drop;
  uint32_t c = static_cast<uint32_t>(ci);
  if (c < 0x20) return (c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')
                           ? CharKind::Space : CharKind::Drop;
  if (c == ' ') return CharKind::Space;
  if (c < 0x7F) {
    out[0] = static_cast<char>(c);
    *len = 1;
    return CharKind::Text;
  }
  if (c <= 0x9F) return CharKind::Drop;  // DEL and C1 controls
  if (c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
      c == 0x202F || c == 0x205F || c == 0x3000)
    return CharKind::Space;
  if (c == 0xAD) return CharKind::SoftHyphen;
  if ((c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x206F) ||
      c == 0xFEFF || c == 0xFFFE || c == 0xFFFF || (c >= 0xD800 && c <= 0xDFFF) ||
      (c >= 0xFE00 && c <= 0xFE0F))
    return CharKind::Drop;
  if (c == 0xFFFD) return CharKind::Unmapped;
  const char* rep = nullptr;
  switch (c) {
    case 0xFB00: rep = "ff"; break;
    case 0xFB01: rep = "fi"; break;
    case 0xFB02: rep = "fl"; break;
    case 0xFB03: rep = "ffi"; break;
    case 0xFB04: rep = "ffl"; break;
    case 0xFB05: case 0xFB06: rep = "st"; break;
    case 0x2010: case 0x2011: rep = "-"; break;
    case 0xF0B7: case 0xF0A7: case 0xF06C: rep = "\xE2\x80\xA2"; break;  // Symbol/Wingdings bullets
    default: break;
  }
  if (rep) {
    *len = std::strlen(rep);
    std::memcpy(out, rep, *len);
    return CharKind::Text;
  }
  if (c >= 0xE000 && c <= 0xF8FF) return CharKind::Unmapped;  // private use: no meaning
  *len = encode_utf8(c, out);
  return CharKind::Text;
}

// ---- accents drawn as separate glyphs (TeX, troff): "M" + "¨" + "o" -> "Mö" ----

inline bool is_spacing_accent(uint32_t c) {
  switch (c) {
    case 0x60: case 0xA8: case 0xAF: case 0xB4: case 0xB8: case 0x2C6: case 0x2C7: case 0x2D8:
    case 0x2D9: case 0x2DA: case 0x2DC: case 0x2DD:
      return true;
    default:
      return false;
  }
}

/// Precomposed letter for an accent over a base letter, or 0.
inline uint32_t compose_accent(uint32_t accent, uint32_t base) {
  // Each table: pairs of base letter and composed letter.
  static const uint16_t kGrave[] = {'A', 0xC0, 'E', 0xC8, 'I', 0xCC, 'O', 0xD2, 'U', 0xD9, 'a', 0xE0,
                                    'e', 0xE8, 'i', 0xEC, 0x131, 0xEC, 'o', 0xF2, 'u', 0xF9, 0};
  static const uint16_t kAcute[] = {'A', 0xC1, 'E', 0xC9, 'I', 0xCD, 'O', 0xD3, 'U', 0xDA, 'Y', 0xDD,
                                    'a', 0xE1, 'e', 0xE9, 'i', 0xED, 0x131, 0xED, 'o', 0xF3, 'u', 0xFA,
                                    'y', 0xFD, 'C', 0x106, 'c', 0x107, 'N', 0x143, 'n', 0x144, 'S', 0x15A,
                                    's', 0x15B, 'Z', 0x179, 'z', 0x17A, 'L', 0x139, 'l', 0x13A, 'R', 0x154,
                                    'r', 0x155, 0};
  static const uint16_t kCircumflex[] = {'A', 0xC2, 'E', 0xCA, 'I', 0xCE, 'O', 0xD4, 'U', 0xDB, 'a', 0xE2,
                                         'e', 0xEA, 'i', 0xEE, 0x131, 0xEE, 'o', 0xF4, 'u', 0xFB, 0};
  static const uint16_t kTilde[] = {'A', 0xC3, 'N', 0xD1, 'O', 0xD5, 'a', 0xE3, 'n', 0xF1, 'o', 0xF5, 0};
  static const uint16_t kDiaeresis[] = {'A', 0xC4, 'E', 0xCB, 'I', 0xCF, 'O', 0xD6, 'U', 0xDC, 'Y', 0x178,
                                        'a', 0xE4, 'e', 0xEB, 'i', 0xEF, 0x131, 0xEF, 'o', 0xF6, 'u', 0xFC,
                                        'y', 0xFF, 0};
  static const uint16_t kCedilla[] = {'C', 0xC7, 'c', 0xE7, 'S', 0x15E, 's', 0x15F, 0};
  static const uint16_t kCaron[] = {'C', 0x10C, 'c', 0x10D, 'E', 0x11A, 'e', 0x11B, 'S', 0x160, 's', 0x161,
                                    'Z', 0x17D, 'z', 0x17E, 'R', 0x158, 'r', 0x159, 'N', 0x147, 'n', 0x148,
                                    'D', 0x10E, 'd', 0x10F, 0};
  static const uint16_t kRing[] = {'A', 0xC5, 'a', 0xE5, 'U', 0x16E, 'u', 0x16F, 0};
  static const uint16_t kBreve[] = {'A', 0x102, 'a', 0x103, 'G', 0x11E, 'g', 0x11F, 0};
  static const uint16_t kMacron[] = {'A', 0x100, 'a', 0x101, 'E', 0x112, 'e', 0x113, 'I', 0x12A, 'i', 0x12B,
                                     'O', 0x14C, 'o', 0x14D, 'U', 0x16A, 'u', 0x16B, 0};
  static const uint16_t kDoubleAcute[] = {'O', 0x150, 'o', 0x151, 'U', 0x170, 'u', 0x171, 0};
  static const uint16_t kDot[] = {'Z', 0x17B, 'z', 0x17C, 'I', 0x130, 'E', 0x116, 'e', 0x117, 'C', 0x10A,
                                  'c', 0x10B, 'G', 0x120, 'g', 0x121, 0};
  const uint16_t* t = nullptr;
  switch (accent) {
    case 0x60: t = kGrave; break;
    case 0xB4: t = kAcute; break;
    case 0x2C6: t = kCircumflex; break;
    case 0x2DC: t = kTilde; break;
    case 0xA8: t = kDiaeresis; break;
    case 0xB8: t = kCedilla; break;
    case 0x2C7: t = kCaron; break;
    case 0x2DA: t = kRing; break;
    case 0x2D8: t = kBreve; break;
    case 0xAF: t = kMacron; break;
    case 0x2DD: t = kDoubleAcute; break;
    case 0x2D9: t = kDot; break;
    default: return 0;
  }
  for (; *t; t += 2)
    if (t[0] == base) return t[1];
  return 0;
}

/// Sanitised, UTF-8-valid, single-line version of a metadata string.
inline std::string clean_metadata(std::string_view s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int n = c < 0x80 ? 1 : (c >= 0xC2 && c < 0xE0) ? 2 : (c >= 0xE0 && c < 0xF0) ? 3
          : (c >= 0xF0 && c < 0xF5) ? 4 : 0;
    uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    bool valid = n > 0 && i + n <= s.size();
    for (int k = 1; valid && k < n; ++k) {
      unsigned char d = static_cast<unsigned char>(s[i + k]);
      valid = (d & 0xC0) == 0x80;
      cp = (cp << 6) | (d & 0x3F);
    }
    if (valid && ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))))
      valid = false;
    if (!valid) {
      ++i;
      continue;
    }
    i += n;
    char buf[8];
    size_t len = 0;
    switch (map_char(static_cast<int>(cp), buf, &len)) {
      case CharKind::Space:
        if (!out.empty() && out.back() != ' ') out.push_back(' ');
        break;
      case CharKind::Text:
        out.append(buf, len);
        break;
      default:
        break;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace mmkg::pdf
