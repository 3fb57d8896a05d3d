#include "core/half.h"

#include <cstring>

namespace mmkg {

std::vector<uint16_t> to_half(const float* v, size_t n) {
  std::vector<uint16_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const _Float16 h = static_cast<_Float16>(v[i]);
    std::memcpy(&out[i], &h, sizeof h);
  }
  return out;
}

std::vector<float> from_half(const uint16_t* h, size_t n) {
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) {
    _Float16 x;
    std::memcpy(&x, &h[i], sizeof x);
    out[i] = static_cast<float>(x);
  }
  return out;
}

void round_to_half(std::vector<float>& v) {
  for (float& x : v) x = static_cast<float>(static_cast<_Float16>(x));
}

}  // namespace mmkg
