// Whole vectors between fp32 and the bit patterns of fp16 and bf16, element
// by element as formats.hpp converts one value (round to nearest even): for
// host code that stages a tensor in a 16-bit format or reads one back.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cudalab/numerics/formats.hpp"

namespace cudalab::numerics {

inline std::vector<std::uint16_t> to_fp16_bits(const std::vector<float>& values) {
  std::vector<std::uint16_t> bits(values.size());
  std::transform(values.begin(), values.end(), bits.begin(), fp32_to_fp16_bits);
  return bits;
}

inline std::vector<std::uint16_t> to_bf16_bits(const std::vector<float>& values) {
  std::vector<std::uint16_t> bits(values.size());
  std::transform(values.begin(), values.end(), bits.begin(), fp32_to_bf16_bits);
  return bits;
}

inline std::vector<float> from_fp16_bits(const std::vector<std::uint16_t>& bits) {
  std::vector<float> values(bits.size());
  std::transform(bits.begin(), bits.end(), values.begin(), fp16_bits_to_fp32);
  return values;
}

inline std::vector<float> from_bf16_bits(const std::vector<std::uint16_t>& bits) {
  std::vector<float> values(bits.size());
  std::transform(bits.begin(), bits.end(), values.begin(), bf16_bits_to_fp32);
  return values;
}

}  // namespace cudalab::numerics
