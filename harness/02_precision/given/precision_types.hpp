// Lab 02's vocabulary, shared by the lab's files, its harness, its tests and
// the viewer: which GEMM a "mode" is, and how TF32 operands are prepared.
// Backend-free (no CUDA, no emulator headers). The parts only the tests use
// are in tests/02_precision/lab02_test_support.hpp.
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

// Exercise 6: what happens to fp32 operands before a TF32 tensor-core GEMM.
enum class OperandRounding {
  raw,           // passed as they are: the tensor core ignores their low 13 bits
  ties_away,     // wmma::__float_to_tf32 (cvt.rna.tf32.f32)
  nearest_even,  // what cuBLAS does in TF32 mode
};

}  // namespace lab02
