// Hand-made K-blocks whose results follow from the tensor-core model's rules
// (docs/numerics.md works through each). The host test checks the model
// against the expected bits; the GPU test runs them through mma.sync too.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cudalab/numerics.hpp"

namespace cudalab::numerics::test_vectors {

struct EdgeVector {
  std::string name;
  MmaFormat format;
  std::vector<float> a;  // exactly representable in `format`
  std::vector<float> b;
  float c;
  std::uint32_t expected_bits;
};

inline std::uint32_t operand_bits(float value, MmaFormat format) {
  switch (format) {
    case MmaFormat::fp16:
      return fp32_to_fp16_bits(value);
    case MmaFormat::bf16:
      return fp32_to_bf16_bits(value);
    case MmaFormat::tf32:
      return float_bits(value);
  }
  return 0;
}

inline std::vector<std::uint32_t> operand_bits(const std::vector<float>& values, MmaFormat format) {
  std::vector<std::uint32_t> bits;
  for (float v : values) bits.push_back(operand_bits(v, format));
  return bits;
}

// n copies of `value`.
inline std::vector<float> repeat(float value, int n) { return std::vector<float>(n, value); }

inline float two_to(int e) { return std::ldexp(1.0f, e); }

inline std::vector<EdgeVector> edge_vectors() {
  const float tiny = two_to(-13);  // tiny * 2^-12 = 2^-25, tiny * tiny = 2^-26 (fp16 normals)
  std::vector<EdgeVector> v;
  for (MmaFormat f : {MmaFormat::fp16, MmaFormat::bf16, MmaFormat::tf32}) {
    const std::string p = f == MmaFormat::fp16 ? "fp16" : f == MmaFormat::bf16 ? "bf16" : "tf32";
    // Rule 3: 25 fraction bits below the largest exponent survive alignment...
    v.push_back({p + " 1 + 4*2^-25 keeps every term", f, repeat(tiny, 4), repeat(two_to(-12), 4),
                 1.0f, 0x3f800001u});
    // ...and the 26th is cut off, with no sticky bit: the exact sum 1 + 2^-23 is lost.
    v.push_back({p + " 1 + 8*2^-26 truncates every term", f, repeat(tiny, 8), repeat(tiny, 8), 1.0f,
                 0x3f800000u});
    // Rule 4: one rounding, toward zero: 1 + 1.5*2^-23 -> 1 + 2^-23, also when negative.
    v.push_back({p + " 1 + 3*2^-24 rounds toward zero",
                 f,
                 {3 * two_to(-12)},
                 {two_to(-12)},
                 1.0f,
                 0x3f800001u});
    v.push_back({p + " -1 - 3*2^-24 rounds toward zero",
                 f,
                 {-3 * two_to(-12)},
                 {two_to(-12)},
                 -1.0f,
                 0xbf800001u});
    // 2^16 - 2^16 + 2^-24: the small term is truncated before the cancellation.
    v.push_back({p + " 2^16 - 2^16 + 2^-24 (products) is zero",
                 f,
                 {two_to(8), -two_to(8), two_to(-12)},
                 {two_to(8), two_to(8), two_to(-12)},
                 0.0f,
                 0x00000000u});
    v.push_back({p + " 2^16 - 2^16 + 2^-24 (accumulator) is zero",
                 f,
                 {two_to(8), -two_to(8)},
                 {two_to(8), two_to(8)},
                 two_to(-24),
                 0x00000000u});
  }
  // The largest product 1.5 * 1.5 = 2.25 has exponent 0 + 0: terms keep 25
  // bits below 2^0, so eight products of 2^-25 add 2^-22 (one ulp of 2.25).
  v.push_back({"fp16 largest product >= 2 keeps one more bit",
               MmaFormat::fp16,
               {1.5f, tiny, tiny, tiny, tiny, tiny, tiny, tiny, tiny},
               {1.5f, two_to(-12), two_to(-12), two_to(-12), two_to(-12), two_to(-12), two_to(-12),
                two_to(-12), two_to(-12)},
               0.0f,
               0x40100001u});
  return v;
}

}  // namespace cudalab::numerics::test_vectors
