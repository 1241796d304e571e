// ldmatrix on the emulator: lanes 0..8n-1 have each read one 16-byte row of
// shared memory (in the caller's instrumented code, so the read is traced);
// all 32 lanes meet (warp_exchange.hpp) and each takes its words of the n
// 8 x 8 matrices of 16-bit values, as the PTX ISA lays them out:
//   plain       lane l, register j: row l / 4 of matrix j, values 2 (l % 4) and 2 (l % 4) + 1
//   .trans      the same of the transposed matrix: rows 2 (l % 4) and 2 (l % 4) + 1, value l / 4
// A call made by fewer lanes is a warp_collective report at the caller's
// line; the destination registers are then 0xffffffff.
#include "cudalab/emu/ldmatrix_collective.hpp"
#include "warp_exchange.hpp"

namespace cudalab::emu::detail {

namespace {

std::uint32_t value16(const std::uint32_t* row, unsigned column) {
  return (row[column / 2] >> (16 * (column % 2))) & 0xffffu;
}

const char* instruction_name(int matrices, bool transpose) {
  if (matrices == 1) return transpose ? "ldmatrix.m8n8.x1.trans" : "ldmatrix.m8n8.x1";
  if (matrices == 2) return transpose ? "ldmatrix.m8n8.x2.trans" : "ldmatrix.m8n8.x2";
  return transpose ? "ldmatrix.m8n8.x4.trans" : "ldmatrix.m8n8.x4";
}

struct RowRegisters {
  std::uint32_t words[4];
};

}  // namespace

bool warp_ldmatrix(int matrices, bool transpose, const std::uint32_t (&row)[4],
                   std::uint32_t* destination, const std::source_location& site) {
  for (int j = 0; j < matrices; ++j) destination[j] = 0xffffffffu;
  const unsigned lane = current_thread ? current_thread->lane : 0;
  const RowRegisters mine{{row[0], row[1], row[2], row[3]}};
  return warp_exchange(mine, instruction_name(matrices, transpose),
                       "the destination registers are undefined (0xffffffff here)", site,
                       [&](const RowRegisters* const* lanes) {
                         for (int j = 0; j < matrices; ++j) {
                           const unsigned first_row = 8 * static_cast<unsigned>(j);
                           if (transpose) {
                             const unsigned r = first_row + 2 * (lane % 4);
                             destination[j] = value16(lanes[r]->words, lane / 4) |
                                              value16(lanes[r + 1]->words, lane / 4) << 16;
                           } else {
                             destination[j] = lanes[first_row + lane / 4]->words[lane % 4];
                           }
                         }
                       });
}

}  // namespace cudalab::emu::detail
