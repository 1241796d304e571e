// Floats as bit patterns: the vocabulary of cudalab/numerics.
#pragma once

#include <cstdint>
#include <cstring>

// The numerics functions run on the host (tests, the emulator) and in
// kernels. nvcc needs them marked; the host compiler must not see the marks.
#if defined(__CUDACC__)
#define CUDALAB_HOST_DEVICE __host__ __device__
#else
#define CUDALAB_HOST_DEVICE
#endif

namespace cudalab::numerics {

CUDALAB_HOST_DEVICE inline std::uint32_t float_bits(float value) {
  std::uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

CUDALAB_HOST_DEVICE inline float float_from_bits(std::uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

// The quiet NaN every NVIDIA arithmetic and conversion unit returns for fp32.
inline constexpr std::uint32_t fp32_canonical_nan = 0x7fffffffu;

// Drops the low `dropped` bits of `value`, rounding to nearest, ties to even:
// the one rounding step that every narrowing conversion shares. A carry out
// of the kept bits is wanted: it moves a pattern to the next binade, or to
// infinity, exactly as the encoding needs.
CUDALAB_HOST_DEVICE inline std::uint32_t drop_bits_nearest_even(std::uint32_t value, int dropped) {
  if (dropped <= 0) return value;
  if (dropped >= 32) return 0;  // callers pass values below 2^31: less than half of 2^dropped
  const std::uint32_t kept = value >> dropped;
  const std::uint32_t rest = value & ((1u << dropped) - 1u);
  const std::uint32_t half = 1u << (dropped - 1);
  const bool round_up = rest > half || (rest == half && (kept & 1u) != 0);
  return kept + (round_up ? 1u : 0u);
}

}  // namespace cudalab::numerics
