// What lab 02's tests share: a bit pattern as text for failure messages, so
// that a student sees the bits that differ, not two decimals that look alike;
// what a GEMM mode does to its inputs; the name of an operand rounding.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "given/precision_types.hpp"

namespace lab02 {

// "0x3f801000" (digits: 4 for fp16/bf16 patterns, 8 for fp32 ones).
inline std::string hex(std::uint32_t bits, int digits = 8) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%0*x", digits, bits);
  return text;
}

// An input value as a GEMM in `mode` multiplies it: rounded to the mode's
// input type, to nearest even (what the harness does to fp16/bf16 inputs,
// and what cuBLAS does to fp32 operands in TF32 mode).
inline float as_multiplied(GemmMode mode, float x) {
  namespace nx = cudalab::numerics;
  switch (mode) {
    case GemmMode::fp32:
      return x;
    case GemmMode::tf32:
      return nx::fp32_to_tf32(x, nx::Tf32Rounding::nearest_even);
    case GemmMode::fp16_fp32_accumulate:
    case GemmMode::fp16_fp16_accumulate:
      return nx::fp16_bits_to_fp32(nx::fp32_to_fp16_bits(x));
    case GemmMode::bf16_fp32_accumulate:
      return nx::bf16_bits_to_fp32(nx::fp32_to_bf16_bits(x));
  }
  return x;
}

inline std::string to_string(OperandRounding rounding) {
  switch (rounding) {
    case OperandRounding::raw:
      return "raw";
    case OperandRounding::ties_away:
      return "ties away";
    case OperandRounding::nearest_even:
      return "nearest even";
  }
  return "?";
}

}  // namespace lab02
