// What the swizzle view draws: a TMA box of rows x cols elements as it lands
// in shared memory under a swizzle mode, each element with the bank (32
// banks of 4 bytes) its first byte lands in, and what reading it back costs
// the way ldmatrix and wgmma read a tile: 8 rows at a time, 16 bytes of each,
// all from one 16-byte column of the box. The layout is the emulator's own
// (cudalab/tma_swizzle.hpp), so the view shows what the TMA load did.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "palette.hpp"

namespace cudalab::viewer {

struct SwizzleBox {
  unsigned rows = 64, cols = 64;  // cols: the box's dimension 0, contiguous
  unsigned element_bytes = 2;
  unsigned swizzle_bytes = 128;  // 0 (none), 32, 64 or 128
  // Where the box starts in shared memory: the swizzle XORs address bits, so
  // the pattern depends on it (a box aligned to 1024 bytes starts it fresh).
  std::uint32_t shared_offset = 0;
};

// One read of 8 rows x 16 bytes (an ldmatrix 8x8 b16 matrix): each of the 8
// rows' 16 bytes occupies one of the 8 groups of 4 banks; rows that share a
// group go one after another.
struct ColumnRead {
  unsigned first_row = 0;
  unsigned column = 0;       // the 16-byte column of the box, 0 first
  unsigned bank_groups = 0;  // distinct groups the 8 rows hit (8: no conflict)
  unsigned ways = 0;         // the most rows in one group: wavefronts the read needs
};

struct SwizzleLayout {
  SwizzleBox box;
  std::vector<std::uint8_t> banks;  // row-major, the bank of each element's first byte
  std::vector<ColumnRead> reads;    // every full 8-row group x every 16-byte column
  unsigned worst_ways = 0;
  double mean_ways = 0;
  // Why a GPU would not make this box (a row wider than the swizzle span,
  // as cuTensorMapEncodeTiled refuses it); empty when it would.
  std::string not_on_a_gpu;

  unsigned bank(unsigned row, unsigned col) const { return banks[row * box.cols + col]; }
};

inline constexpr unsigned kBanks = 32;
inline constexpr unsigned kBankBytes = 4;

// The layout of `box` (at most 256 x 256 elements; throws std::invalid_argument
// for an element size other than 1, 2, 4 or 8, a swizzle other than 0/32/64/128).
SwizzleLayout swizzle_layout(const SwizzleBox& box);

// The bank's colour (the same for one bank wherever it appears).
Rgba bank_colour(unsigned bank);

// "element (3, 17): shared byte 400 (after the 128-B swizzle; 400 before), bank 4"
std::string describe_element(const SwizzleLayout& layout, unsigned row, unsigned col);
// "8-row reads of 16 bytes: 8 bank groups each, 1 wavefront (no conflict)" ...
std::string describe_reads(const SwizzleLayout& layout);

}  // namespace cudalab::viewer
