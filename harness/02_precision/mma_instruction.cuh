// Harness code for exercise 4: one K-block through the tensor-core
// instruction itself, to compare the student's predict_mma with. Block i of
// the launch is one warp running one mma.sync whose A has the block's a
// vector in row 0, B the b vector in column 0, C c[i] at (0, 0), and zeros
// elsewhere: D(0, 0) is then exactly the K-block's result.
#pragma once

#include <cstdint>
#include <stdexcept>

#include "cudalab/kernel.hpp"
#include "cudalab/mma_operands.hpp"

namespace lab02::harness {
inline namespace CUDALAB_BACKEND {

__global__ void mma_instruction_kernel(cudalab::numerics::MmaFormat format, const std::uint32_t* a,
                                       const std::uint32_t* b, const float* c, float* d) {
  const int block = blockIdx.x;  // one per K-block: the grid has exactly as many
  const int lane = threadIdx.x;
  const std::int64_t first =
      static_cast<std::int64_t>(block) * cudalab::numerics::mma_k_block(format);
  const auto a_at = [&](int row, int col) { return row == 0 ? a[first + col] : 0u; };
  const auto b_at = [&](int row, int col) { return col == 0 ? b[first + row] : 0u; };
  // C(0, 0) is lane 0's first C element.
  const float c_regs[4] = {lane == 0 ? c[block] : 0.0f, 0.0f, 0.0f, 0.0f};
  float d_regs[4];
  cudalab::mma_sync_on_elements(format, lane, d_regs, a_at, b_at, c_regs);
  if (lane == 0) d[block] = d_regs[0];
}

// d[i] = the instruction's result for block i; a and b hold blocks *
// mma_k_block(format) patterns (device pointers).
inline void mma_instruction(cudalab::numerics::MmaFormat format, const std::uint32_t* a,
                            const std::uint32_t* b, const float* c, float* d, int blocks) {
  if (blocks < 0) throw std::invalid_argument("mma_instruction: blocks must be >= 0");
  if (blocks > 0) mma_instruction_kernel<<<blocks, 32>>>(format, a, b, c, d);
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab02::harness
