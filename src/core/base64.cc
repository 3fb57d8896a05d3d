#include "core/base64.h"

namespace mmkg {

std::string base64_encode(std::string_view in) {
  static constexpr char kTable[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = static_cast<unsigned char>(in[i]) << 16 | static_cast<unsigned char>(in[i + 1]) << 8 |
                       static_cast<unsigned char>(in[i + 2]);
    out += kTable[v >> 18 & 63];
    out += kTable[v >> 12 & 63];
    out += kTable[v >> 6 & 63];
    out += kTable[v & 63];
  }
  if (i < in.size()) {  // one or two bytes left: pad to four characters
    const bool two = i + 1 < in.size();
    const unsigned v = static_cast<unsigned char>(in[i]) << 16 | (two ? static_cast<unsigned char>(in[i + 1]) << 8 : 0u);
    out += kTable[v >> 18 & 63];
    out += kTable[v >> 12 & 63];
    out += two ? kTable[v >> 6 & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace mmkg
