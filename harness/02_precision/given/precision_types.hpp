// Lab 02's vocabulary, shared by the lab's files, its harness, its tests and
// the viewer: which GEMM a "mode" is, and how TF32 operands are prepared.
// Backend-free (no CUDA, no emulator headers).
#pragma once

#include <array>
#include <string>

#include "cudalab/numerics.hpp"

namespace lab02 {

using cudalab::numerics::MmaFormat;
using cudalab::numerics::Tf32Rounding;

// The five GEMMs of exercise 2, and what selects each in PyTorch.
enum class GemmMode {
  fp32,                  // torch.backends.cuda.matmul.allow_tf32 = False (the default)
  tf32,                  // allow_tf32 = True, or torch.set_float32_matmul_precision("high")
  fp16_fp32_accumulate,  // torch.matmul on fp16 tensors
  bf16_fp32_accumulate,  // torch.matmul on bf16 tensors
  fp16_fp16_accumulate,  // torch.backends.cuda.matmul.allow_fp16_accumulation = True (2.7+)
};

inline constexpr std::array<GemmMode, 5> all_gemm_modes{
    GemmMode::fp32, GemmMode::tf32, GemmMode::fp16_fp32_accumulate, GemmMode::bf16_fp32_accumulate,
    GemmMode::fp16_fp16_accumulate};

inline std::string to_string(GemmMode mode) {
  switch (mode) {
    case GemmMode::fp32:
      return "fp32";
    case GemmMode::tf32:
      return "tf32";
    case GemmMode::fp16_fp32_accumulate:
      return "fp16 (fp32 accumulate)";
    case GemmMode::bf16_fp32_accumulate:
      return "bf16 (fp32 accumulate)";
    case GemmMode::fp16_fp16_accumulate:
      return "fp16 (fp16 accumulate)";
  }
  return "?";
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

// Exercise 6: what happens to fp32 operands before a TF32 tensor-core GEMM.
enum class OperandRounding {
  raw,           // passed as they are: the tensor core ignores their low 13 bits
  ties_away,     // wmma::__float_to_tf32 (cvt.rna.tf32.f32)
  nearest_even,  // what cuBLAS does in TF32 mode
};

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
