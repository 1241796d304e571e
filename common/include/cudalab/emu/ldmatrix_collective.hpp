// Internal to cudalab/ldmatrix.hpp: the warp-wide part of ldmatrix on the
// emulator (common/emu/warp_ldmatrix.cpp).
#pragma once

#include <cstdint>
#include <source_location>

#include "cudalab/emu/thread_state.hpp"

namespace cudalab::emu::detail {

// `row` is the 16-byte row this lane read (lanes 0 .. 8 matrices - 1; the
// others' are ignored). Waits for all 32 lanes, then gives this lane its
// `matrices` registers of the 8 x 8 matrices of 16-bit values, transposed
// or not, as PTX's ldmatrix does. A call that not every lane of the warp
// makes is a warp_collective report at `site`, the registers are 0xffffffff
// and the result false.
bool warp_ldmatrix(int matrices, bool transpose, const std::uint32_t (&row)[4],
                   std::uint32_t* destination, const std::source_location& site);

}  // namespace cudalab::emu::detail
