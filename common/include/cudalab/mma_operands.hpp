// One mma.sync whose format is chosen at run time, on operands given
// element by element, on both backends: each lane gathers its A and B
// fragment registers from A(row, col) and B(row, col) as the PTX ISA lays
// them out (cudalab/numerics/mma_layout.hpp) and runs the format's
// instruction (cudalab/mma.hpp).
//
//   const auto a_at = [&](int row, int col) -> std::uint32_t { ... };  // A: 16 x K
//   const auto b_at = [&](int row, int col) -> std::uint32_t { ... };  // B: K x 8
//   cudalab::mma_sync_on_elements(format, lane, d, a_at, b_at, c);
//
// Operands are bit patterns: fp16/bf16 in the low 16 bits, TF32 as an fp32
// pattern; K is numerics::mma_k_block(format) (16, or 8 for TF32). c and d
// are the lane's four C and D elements (numerics::m16n8_c_element). For
// kernels that ask the tensor core what it makes of given operands (tests
// against the model, a lab's harness); a GEMM kernel loads its fragments
// its own way (ldmatrix, shared memory). All 32 lanes must call together.
#pragma once

#include <cstdint>

#include "cudalab/kernel.hpp"
#include "cudalab/mma.hpp"
#include "cudalab/numerics/block_fma.hpp"
#include "cudalab/numerics/mma_layout.hpp"

namespace cudalab {
inline namespace CUDALAB_BACKEND {

template <class AAt, class BAt>
__device__ inline void mma_sync_on_elements(numerics::MmaFormat format, int lane, float* d,
                                            const AAt& a_at, const BAt& b_at, const float* c) {
  namespace nx = cudalab::numerics;
  std::uint32_t a[4] = {0, 0, 0, 0};
  std::uint32_t b[2] = {0, 0};
  if (format == nx::MmaFormat::tf32) {
    for (int i = 0; i < 4; ++i) {
      const nx::MatrixCoord at = nx::m16n8k8_tf32_a_element(lane, i);
      a[i] = a_at(at.row, at.col);
    }
    for (int i = 0; i < 2; ++i) {
      const nx::MatrixCoord at = nx::m16n8k8_tf32_b_element(lane, i);
      b[i] = b_at(at.row, at.col);
    }
    mma_m16n8k8_tf32(d, a, b, c);
    return;
  }
  // Two 16-bit elements per register, the lower-numbered one in the low half.
  for (int i = 0; i < 8; ++i) {
    const nx::MatrixCoord at = nx::m16n8k16_a_element(lane, i);
    a[i / 2] |= (a_at(at.row, at.col) & 0xffffu) << (16 * (i % 2));
  }
  for (int i = 0; i < 4; ++i) {
    const nx::MatrixCoord at = nx::m16n8k16_b_element(lane, i);
    b[i / 2] |= (b_at(at.row, at.col) & 0xffffu) << (16 * (i % 2));
  }
  if (format == nx::MmaFormat::fp16) {
    mma_m16n8k16_f16(d, a, b, c);
  } else {
    mma_m16n8k16_bf16(d, a, b, c);
  }
}

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab
