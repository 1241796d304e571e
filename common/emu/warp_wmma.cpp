// wmma's load_matrix_sync and store_matrix_sync on the emulator read and
// write element by element in the caller's instrumented code
// (cudalab/emu/wmma.hpp); what they need from here is only the warp-wide
// rule: all 32 lanes take part (warp_exchange.hpp), or the call is a
// warp_collective report at the caller's line.
#include "cudalab/emu/wmma.hpp"
#include "warp_exchange.hpp"

namespace cudalab::emu::detail {

bool wmma_whole_warp(const char* instruction, const char* when_missing,
                     const std::source_location& site) {
  const int nothing = 0;
  return warp_exchange(nothing, instruction, when_missing, site, [](const int* const*) {});
}

}  // namespace cudalab::emu::detail
