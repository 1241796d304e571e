// Harness code for exercise 4: one K-block through the tensor-core
// instruction itself, to compare the student's predict_mma with. Block i of
// the launch is one warp running one mma.sync whose A has the block's a
// vector in row 0, B the b vector in column 0, C c[i] at (0, 0), and zeros
// elsewhere: D(0, 0) is then exactly the K-block's result.
#pragma once

#include <cstdint>
#include <stdexcept>

#include "cudalab/kernel.hpp"
#include "cudalab/mma.hpp"
#include "cudalab/numerics.hpp"

namespace lab02::harness {
inline namespace CUDALAB_BACKEND {

__global__ void mma_instruction_kernel(cudalab::numerics::MmaFormat format, const std::uint32_t* a,
                                       const std::uint32_t* b, const float* c, float* d,
                                       int blocks) {
  namespace nx = cudalab::numerics;
  const int block = blockIdx.x;
  const int lane = threadIdx.x;
  if (block >= blocks) return;
  const int kb = nx::mma_k_block(format);
  const std::uint32_t* a_block = a + static_cast<std::int64_t>(block) * kb;
  const std::uint32_t* b_block = b + static_cast<std::int64_t>(block) * kb;
  std::uint32_t a_regs[4] = {0, 0, 0, 0};
  std::uint32_t b_regs[2] = {0, 0};
  float c_regs[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  float d_regs[4];
  if (lane == 0) c_regs[0] = c[block];  // C(0, 0) is element 0 of lane 0
  if (format == nx::MmaFormat::tf32) {
    for (int i = 0; i < 4; ++i) {
      const nx::MatrixCoord at = nx::m16n8k8_tf32_a_element(lane, i);
      if (at.row == 0) a_regs[i] = a_block[at.col];
    }
    for (int i = 0; i < 2; ++i) {
      const nx::MatrixCoord at = nx::m16n8k8_tf32_b_element(lane, i);
      if (at.col == 0) b_regs[i] = b_block[at.row];
    }
    cudalab::mma_m16n8k8_tf32(d_regs, a_regs, b_regs, c_regs);
  } else {
    for (int i = 0; i < 8; ++i) {
      const nx::MatrixCoord at = nx::m16n8k16_a_element(lane, i);
      if (at.row == 0) a_regs[i / 2] |= (a_block[at.col] & 0xffffu) << (16 * (i % 2));
    }
    for (int i = 0; i < 4; ++i) {
      const nx::MatrixCoord at = nx::m16n8k16_b_element(lane, i);
      if (at.col == 0) b_regs[i / 2] |= (b_block[at.row] & 0xffffu) << (16 * (i % 2));
    }
    if (format == nx::MmaFormat::fp16) {
      cudalab::mma_m16n8k16_f16(d_regs, a_regs, b_regs, c_regs);
    } else {
      cudalab::mma_m16n8k16_bf16(d_regs, a_regs, b_regs, c_regs);
    }
  }
  if (lane == 0) d[block] = d_regs[0];
}

// d[i] = the instruction's result for block i; a and b hold blocks *
// mma_k_block(format) patterns (device pointers).
inline void mma_instruction(cudalab::numerics::MmaFormat format, const std::uint32_t* a,
                            const std::uint32_t* b, const float* c, float* d, int blocks) {
  if (blocks < 0) throw std::invalid_argument("mma_instruction: blocks must be >= 0");
  if (blocks == 0) return;
  mma_instruction_kernel<<<blocks, 32>>>(format, a, b, c, d, blocks);
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab02::harness
