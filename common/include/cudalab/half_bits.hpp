// fp16 and bf16 data on the host as bit patterns (IEEE binary16, bfloat16),
// so that a Backend interface can carry it without CUDA types and a test's
// reference rounds exactly as the device does. The conversions are
// numerics' (checked against the H200 on all 2^16 patterns,
// docs/numerics.md); this adds the vector forms and the one-rounding add
// the tests need.
#pragma once

#include <cstdint>
#include <vector>

#include "cudalab/numerics/formats.hpp"

namespace cudalab {

inline std::vector<std::uint16_t> to_half_bits(const std::vector<float>& values) {
  std::vector<std::uint16_t> bits(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) bits[i] = numerics::fp32_to_fp16_bits(values[i]);
  return bits;
}

inline std::vector<float> half_bits_to_floats(const std::vector<std::uint16_t>& bits) {
  std::vector<float> values(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) values[i] = numerics::fp16_bits_to_fp32(bits[i]);
  return values;
}

inline std::vector<std::uint16_t> to_bf16_bits(const std::vector<float>& values) {
  std::vector<std::uint16_t> bits(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) bits[i] = numerics::fp32_to_bf16_bits(values[i]);
  return bits;
}

inline std::vector<float> bf16_bits_to_floats(const std::vector<std::uint16_t>& bits) {
  std::vector<float> values(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) values[i] = numerics::bf16_bits_to_fp32(bits[i]);
  return values;
}

// a + b in fp32, rounded to fp16: the device's __hadd whenever the fp32 sum
// is exact, i.e. the operands' exponents differ by at most 12 (true of the
// labs' test data); otherwise this rounds twice.
inline std::uint16_t add_half_bits(std::uint16_t a, std::uint16_t b) {
  return numerics::fp32_to_fp16_bits(numerics::fp16_bits_to_fp32(a) +
                                     numerics::fp16_bits_to_fp32(b));
}

}  // namespace cudalab
