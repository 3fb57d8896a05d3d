// IEEE 754 binary16 ("half") storage of float vectors: 2 bytes a value instead of 4, for vectors
// kept where their last bits do not matter (entity-name vectors compared by cosine). Conversion
// rounds to nearest, ties to even (GCC/Clang _Float16, F16C where the CPU has it).
#pragma once

#include <cstdint>
#include <vector>

namespace mmkg {

/// The binary16 bit patterns of `v` (values beyond ±65504 become ±infinity).
std::vector<uint16_t> to_half(const float* v, size_t n);
/// The floats of `n` binary16 bit patterns.
std::vector<float> from_half(const uint16_t* h, size_t n);
/// `v` with every value rounded to binary16 and back: what a vector stored as half reads back as.
void round_to_half(std::vector<float>& v);

}  // namespace mmkg
