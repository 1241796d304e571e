// mma.sync on the emulator: one warp-wide tensor-core instruction. All 32
// lanes meet (warp_exchange.hpp); the first to resume rebuilds the whole A
// and B from the others' registers, unpacks each operand once, and computes
// all 32 lanes' D with the block-FMA model (cudalab/numerics/block_fma.hpp),
// which is what each lane would get from mma_dot on its own rows and
// columns. A call made by fewer lanes is a warp_collective report naming the
// caller's line; D is then NaN.
#include "cudalab/emu/wmma.hpp"
#include "cudalab/numerics.hpp"
#include "warp_exchange.hpp"

namespace cudalab::emu::detail {

namespace {

using numerics::block_fma_detail::Unpacked;

// Element `element` of 16-bit operands packed two to a register, the lower first.
std::uint32_t half_of(const std::uint32_t* registers, int element) {
  const std::uint32_t reg = registers[element / 2];
  return (element % 2 == 0) ? (reg & 0xffffu) : (reg >> 16);
}

// The instruction's operands, unpacked: A by row, B by column, each [.][k],
// so that one D element's dot product reads two contiguous arrays.
struct Operands {
  Unpacked a[16][16];
  Unpacked b[8][16];
  int k = 0;
};

void gather(const MmaRegisters* const* lanes, MmaShape shape, numerics::MmaFormat format,
            Operands& op) {
  using namespace numerics;
  const auto unpack = [format](std::uint32_t bits) {
    return block_fma_detail::unpack_operand(bits, format);
  };
  if (shape == MmaShape::m16n8k16) {
    op.k = 16;
    for (int lane = 0; lane < 32; ++lane) {
      for (int e = 0; e < 8; ++e) {
        const MatrixCoord at = m16n8k16_a_element(lane, e);
        op.a[at.row][at.col] = unpack(half_of(lanes[lane]->a, e));
      }
      for (int e = 0; e < 4; ++e) {
        const MatrixCoord at = m16n8k16_b_element(lane, e);
        op.b[at.col][at.row] = unpack(half_of(lanes[lane]->b, e));
      }
    }
  } else {
    op.k = 8;
    for (int lane = 0; lane < 32; ++lane) {
      for (int e = 0; e < 4; ++e) {
        const MatrixCoord at = m16n8k8_tf32_a_element(lane, e);
        op.a[at.row][at.col] = unpack(lanes[lane]->a[e]);
      }
      for (int e = 0; e < 2; ++e) {
        const MatrixCoord at = m16n8k8_tf32_b_element(lane, e);
        op.b[at.col][at.row] = unpack(lanes[lane]->b[e]);
      }
    }
  }
}

// mma_dot's chaining of blocks, on unpacked operands.
float dot(const Unpacked* a, const Unpacked* b, int k, float c, int k_block) {
  for (int start = 0; start < k; start += k_block) {
    const int length = k - start < k_block ? k - start : k_block;
    c = numerics::block_fma_detail::block_fma_unpacked(a + start, b + start, length, c);
  }
  return c;
}

const char* instruction_name(MmaShape shape, numerics::MmaFormat format) {
  if (shape == MmaShape::m16n8k8) return "mma.sync.m16n8k8 (tf32)";
  return format == numerics::MmaFormat::bf16 ? "mma.sync.m16n8k16 (bf16)"
                                             : "mma.sync.m16n8k16 (f16)";
}

// Each lane's four D elements.
struct LaneD {
  float d[4];
};

}  // namespace

bool warp_mma(MmaShape shape, numerics::MmaFormat format, int k_block, const MmaRegisters& mine,
              float* d, const std::source_location& site) {
  LaneD result;
  for (float& x : result.d) x = numerics::float_from_bits(numerics::fp32_canonical_nan);
  const bool complete =
      warp_exchange_once(mine, result, instruction_name(shape, format), "D is undefined (NaN here)",
                         site, [&](const MmaRegisters* const* lanes, LaneD* const* destinations) {
                           // One per worker, neither on the fiber's stack nor
                           // initialised per call: gather fills what the shape
                           // uses, and nothing here yields, so no other warp's
                           // instruction can run in between.
                           thread_local Operands op;
                           gather(lanes, shape, format, op);
                           for (int lane = 0; lane < 32; ++lane) {
                             for (int i = 0; i < 4; ++i) {
                               const numerics::MatrixCoord at = numerics::m16n8_c_element(lane, i);
                               destinations[lane]->d[i] = dot(op.a[at.row], op.b[at.col], op.k,
                                                              lanes[lane]->c[i], k_block);
                             }
                           }
                         });
  for (int i = 0; i < 4; ++i) d[i] = result.d[i];
  return complete;
}

}  // namespace cudalab::emu::detail
