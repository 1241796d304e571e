// mma.sync on the emulator: one warp-wide tensor-core instruction. All 32
// lanes meet (warp_exchange.hpp); each rebuilds the whole A and B from the
// others' registers and computes its own four elements of D with the
// block-FMA model (cudalab/numerics/block_fma.hpp). A call made by fewer
// lanes is a warp_collective report naming the caller's line; D is then NaN.
#include "cudalab/emu/wmma.hpp"
#include "cudalab/numerics.hpp"
#include "warp_exchange.hpp"

namespace cudalab::emu::detail {

namespace {

// Element `element` of 16-bit operands packed two to a register, the lower first.
std::uint32_t half_of(const std::uint32_t* registers, int element) {
  const std::uint32_t reg = registers[element / 2];
  return (element % 2 == 0) ? (reg & 0xffffu) : (reg >> 16);
}

// This lane's four elements of D, from every lane's registers.
void compute_d(const MmaRegisters* const* lanes, MmaShape shape, numerics::MmaFormat format,
               int k_block, unsigned my_lane, const float* c, float* d) {
  using namespace numerics;
  std::uint32_t a[16][16] = {};  // [row][k]
  std::uint32_t b[8][16] = {};   // [column][k]: one column of B is one dot product's operand
  int k = 0;
  if (shape == MmaShape::m16n8k16) {
    k = 16;
    for (int lane = 0; lane < 32; ++lane) {
      for (int e = 0; e < 8; ++e) {
        const MatrixCoord at = m16n8k16_a_element(lane, e);
        a[at.row][at.col] = half_of(lanes[lane]->a, e);
      }
      for (int e = 0; e < 4; ++e) {
        const MatrixCoord at = m16n8k16_b_element(lane, e);
        b[at.col][at.row] = half_of(lanes[lane]->b, e);
      }
    }
  } else {
    k = 8;
    for (int lane = 0; lane < 32; ++lane) {
      for (int e = 0; e < 4; ++e) {
        const MatrixCoord at = m16n8k8_tf32_a_element(lane, e);
        a[at.row][at.col] = lanes[lane]->a[e];
      }
      for (int e = 0; e < 2; ++e) {
        const MatrixCoord at = m16n8k8_tf32_b_element(lane, e);
        b[at.col][at.row] = lanes[lane]->b[e];
      }
    }
  }
  for (int i = 0; i < 4; ++i) {
    const MatrixCoord at = m16n8_c_element(static_cast<int>(my_lane), i);
    d[i] = mma_dot(a[at.row], b[at.col], k, c[i], format, k_block);
  }
}

const char* instruction_name(MmaShape shape, numerics::MmaFormat format) {
  if (shape == MmaShape::m16n8k8) return "mma.sync.m16n8k8 (tf32)";
  return format == numerics::MmaFormat::bf16 ? "mma.sync.m16n8k16 (bf16)"
                                             : "mma.sync.m16n8k16 (f16)";
}

}  // namespace

bool warp_mma(MmaShape shape, numerics::MmaFormat format, int k_block, const MmaRegisters& mine,
              float* d, const std::source_location& site) {
  for (int i = 0; i < 4; ++i) d[i] = numerics::float_from_bits(numerics::fp32_canonical_nan);
  const unsigned my_lane = current_thread ? current_thread->lane : 0;
  return warp_exchange(mine, instruction_name(shape, format), "D is undefined (NaN here)", site,
                       [&](const MmaRegisters* const* lanes) {
                         compute_d(lanes, shape, format, k_block, my_lane, mine.c, d);
                       });
}

}  // namespace cudalab::emu::detail
