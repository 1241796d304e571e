// fp16 values on the host as IEEE binary16 bit patterns, converted by CUDA's
// own host functions (round to nearest even), so that a test's reference
// rounds exactly as the device does and a Backend interface can carry fp16
// data without CUDA types.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>
#include <vector>

namespace cudalab {

inline std::uint16_t float_to_half_bits(float value) {
  return __half_as_ushort(__float2half_rn(value));
}

inline float half_bits_to_float(std::uint16_t bits) { return __half2float(__ushort_as_half(bits)); }

inline std::vector<std::uint16_t> to_half_bits(const std::vector<float>& values) {
  std::vector<std::uint16_t> bits(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) bits[i] = float_to_half_bits(values[i]);
  return bits;
}

inline std::vector<float> half_bits_to_floats(const std::vector<std::uint16_t>& bits) {
  std::vector<float> values(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) values[i] = half_bits_to_float(bits[i]);
  return values;
}

// a + b rounded to fp16 once, as the device's __hadd does.
inline std::uint16_t add_half_bits(std::uint16_t a, std::uint16_t b) {
  return float_to_half_bits(half_bits_to_float(a) + half_bits_to_float(b));
}

}  // namespace cudalab
