// mma.sync on the emulator: one warp-wide tensor-core instruction. All 32
// lanes meet once (warp_exchange_values, warp_exchange.hpp); the first to
// run after the last arrived rebuilds the whole A, B and C from the lanes'
// registers and computes the warp's 16 x 8 D in one go
// (cudalab/numerics/mma_tile.hpp: the block-FMA model of block_fma.hpp, bit
// for bit, in vectors of eight columns), then every lane takes its four
// elements. A call made by fewer lanes is a warp_collective report naming
// the caller's line; D is then NaN.
#include <cstring>

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
      std::uint32_t* a = tile.a + group * 16 + 2 * t;
      a[0] = r.a[0] & 0xffffu;
      a[1] = r.a[0] >> 16;
      a[8 * 16] = r.a[1] & 0xffffu;
      a[8 * 16 + 1] = r.a[1] >> 16;
      a[8] = r.a[2] & 0xffffu;
      a[9] = r.a[2] >> 16;
      a[8 * 16 + 8] = r.a[3] & 0xffffu;
      a[8 * 16 + 9] = r.a[3] >> 16;
      // B: register q holds rows 2t + 8q and the next, column group.
      std::uint32_t* b = tile.b + 2 * t * 8 + group;
      b[0] = r.b[0] & 0xffffu;
      b[8] = r.b[0] >> 16;
      b[64] = r.b[1] & 0xffffu;
      b[72] = r.b[1] >> 16;
    } else {
      // A: register q holds row group + 8 (q % 2), column t + 4 (q / 2).
      std::uint32_t* a = tile.a + group * 8 + t;
      a[0] = r.a[0];
      a[64] = r.a[1];
      a[4] = r.a[2];
      a[68] = r.a[3];
      // B: register q holds row t + 4q, column group.
      std::uint32_t* b = tile.b + t * 8 + group;
      b[0] = r.b[0];
      b[32] = r.b[1];
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

// All 32 lanes meet; fill(registers) gives this lane's registers. The
// result: this lane's D, or nullptr where the call is incomplete (reported).
template <class Fill>
const MmaD* meet(MmaShape shape, numerics::MmaFormat format, int k_block,
                 const std::source_location& site, Fill&& fill) {
  return warp_exchange_values<MmaRegisters, MmaD>(
      fill, instruction_name(shape, format), "D is undefined (NaN here)", site,
      [&](const MmaRegisters* const* lanes, MmaD* const* results) {
        // One per worker, not on the fiber's stack: nothing here yields, so
        // no other warp's instruction can run in between.
        thread_local Tile t;
        gather(lanes, shape, t);
        numerics::mma_tile_m16n8(format, shape == MmaShape::m16n8k16 ? 16 : 8, k_block, t.a, t.b,
                                 t.c, t.d);
        for (int lane = 0; lane < 32; ++lane) {
          const float* d = t.d + (lane >> 2) * 8 + 2 * (lane & 3);
          float* out = results[lane]->d;
          out[0] = d[0];
          out[1] = d[1];
          out[2] = d[64];
          out[3] = d[65];
        }
      });
}

// What D holds after an incomplete call: the NaN the GPU's units return.
const float kUndefined = numerics::float_from_bits(numerics::fp32_canonical_nan);

}  // namespace

MmaD warp_mma(MmaShape shape, numerics::MmaFormat format, int k_block, MmaRegisters mine,
              const std::source_location& site) {
  const MmaD* d = meet(shape, format, k_block, site, [&](MmaRegisters& r) { r = mine; });
  return d ? *d : MmaD{{kUndefined, kUndefined, kUndefined, kUndefined}};
}

void warp_mma_fragments(MmaShape shape, numerics::MmaFormat format, float* d,
                        const std::uint32_t* a, const std::uint32_t* b, const float* c,
                        bool instrumented, std::source_location site) {
  // As the caller's hooks would with checks and recording off: only a
  // misaligned register matters (mma.hpp reads them itself otherwise).
  const auto address_bits =
      reinterpret_cast<std::uintptr_t>(a) | reinterpret_cast<std::uintptr_t>(b) |
      reinterpret_cast<std::uintptr_t>(c) | reinterpret_cast<std::uintptr_t>(d);
  const bool observed = instrumented && (access_hooks_on || (address_bits & 3u) != 0);
  const void* pc = __builtin_return_address(0);  // in the kernel, at the call
  if (observed) [[unlikely]] {
    for (int i = 0; i < 4; ++i) observe_access(a + i, 4, kRead, pc);
    for (int i = 0; i < 2; ++i) observe_access(b + i, 4, kRead, pc);
    for (int i = 0; i < 4; ++i) observe_access(c + i, 4, kRead, pc);
  }
  const MmaD* result =
      meet(shape, format, numerics::mma_k_block(format), site, [&](MmaRegisters& r) {
        r = MmaRegisters{{a[0], a[1], a[2], a[3]}, {b[0], b[1]}, {c[0], c[1], c[2], c[3]}};
      });
  if (observed) [[unlikely]] {
    for (int i = 0; i < 4; ++i) observe_access(d + i, 4, kWrite, pc);
  }
  if (result) {
    std::memcpy(d, result->d, sizeof result->d);
  } else {
    for (int i = 0; i < 4; ++i) d[i] = kUndefined;
  }
}

}  // namespace cudalab::emu::detail
