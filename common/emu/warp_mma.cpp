// mma.sync on the emulator: one warp-wide tensor-core instruction. All 32
// lanes meet once (warp_exchange_values, warp_exchange.hpp); the first to
// run after the last arrived rebuilds the whole A, B and C from the lanes'
// registers and computes the warp's 16 x 8 D in one go
// (cudalab/numerics/mma_tile.hpp: the block-FMA model of block_fma.hpp, bit
// for bit, in vectors of eight columns), then every lane takes its four
// elements. A call made by fewer lanes is a warp_collective report naming
// the caller's line; D is then NaN.
#include "cudalab/emu/wmma.hpp"
#include "cudalab/numerics.hpp"
#include "cudalab/numerics/mma_tile.hpp"
#include "warp_exchange.hpp"

namespace cudalab::emu::detail {

namespace {

// The warp's operands as mma_tile_m16n8 takes them.
struct Tile {
  std::uint32_t a[16 * 16];  // [row][k]
  std::uint32_t b[16 * 8];   // [k][column]
  float c[16 * 8];           // [row][column]
  float d[16 * 8];
};

// The lanes' registers into the tile, as the PTX ISA lays them out
// (cudalab/numerics/mma_layout.hpp): lane = 4 * group + t holds, of A, rows
// group and group + 8; of B, column group; of C and D, rows group and
// group + 8, columns 2t and 2t + 1. test_tensor_cores and the layout test of
// tests/numerics check it against mma_layout.hpp's functions.
void gather(const MmaRegisters* const* lanes, MmaShape shape, Tile& tile) {
  for (int lane = 0; lane < 32; ++lane) {
    const MmaRegisters& r = *lanes[lane];
    const int group = lane >> 2, t = lane & 3;
    if (shape == MmaShape::m16n8k16) {
      // A: register q holds row group + 8 (q % 2), columns 2t + 8 (q / 2) and
      // the next, the lower-numbered in the low half.
#pragma GCC unroll 4
      for (int q = 0; q < 4; ++q) {
        std::uint32_t* at = tile.a + (group + 8 * (q % 2)) * 16 + 2 * t + 8 * (q / 2);
        at[0] = r.a[q] & 0xffffu;
        at[1] = r.a[q] >> 16;
      }
      // B: register q holds rows 2t + 8q and the next, column group.
#pragma GCC unroll 2
      for (int q = 0; q < 2; ++q) {
        std::uint32_t* at = tile.b + (2 * t + 8 * q) * 8 + group;
        at[0] = r.b[q] & 0xffffu;
        at[8] = r.b[q] >> 16;
      }
    } else {
      // A: register q holds row group + 8 (q % 2), column t + 4 (q / 2).
#pragma GCC unroll 4
      for (int q = 0; q < 4; ++q) tile.a[(group + 8 * (q % 2)) * 8 + t + 4 * (q / 2)] = r.a[q];
        // B: register q holds row t + 4q, column group.
#pragma GCC unroll 2
      for (int q = 0; q < 2; ++q) tile.b[(t + 4 * q) * 8 + group] = r.b[q];
    }
    float* c = tile.c + group * 8 + 2 * t;
    c[0] = r.c[0];
    c[1] = r.c[1];
    c[64] = r.c[2];
    c[65] = r.c[3];
  }
}

const char* instruction_name(MmaShape shape, numerics::MmaFormat format) {
  if (shape == MmaShape::m16n8k8) return "mma.sync.m16n8k8 (tf32)";
  return format == numerics::MmaFormat::bf16 ? "mma.sync.m16n8k16 (bf16)"
                                             : "mma.sync.m16n8k16 (f16)";
}

}  // namespace

MmaD warp_mma(MmaShape shape, numerics::MmaFormat format, int k_block, MmaRegisters mine,
              const std::source_location& site) {
  MmaD result;
  for (float& x : result.d) x = numerics::float_from_bits(numerics::fp32_canonical_nan);
  warp_exchange_values(mine, result, instruction_name(shape, format), "D is undefined (NaN here)",
                       site, [&](const MmaRegisters* const* lanes, MmaD* const* results) {
                         // One per worker, not on the fiber's stack: nothing
                         // here yields, so no other warp's instruction can run
                         // in between.
                         thread_local Tile t;
                         gather(lanes, shape, t);
                         numerics::mma_tile_m16n8(format, shape == MmaShape::m16n8k16 ? 16 : 8,
                                                  k_block, t.a, t.b, t.c, t.d);
                         for (int lane = 0; lane < 32; ++lane) {
                           const float* d = t.d + (lane >> 2) * 8 + 2 * (lane & 3);
                           float* out = results[lane]->d;
                           out[0] = d[0];
                           out[1] = d[1];
                           out[2] = d[64];
                           out[3] = d[65];
                         }
                       });
  return result;
}

}  // namespace cudalab::emu::detail
