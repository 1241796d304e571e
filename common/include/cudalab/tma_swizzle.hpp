// Where the Tensor Memory Accelerator puts the bytes of a box in shared
// memory under CU_TENSOR_MAP_SWIZZLE_32B/64B/128B: the box is laid out
// densely (dimension 0 fastest), and then each 16-byte chunk of it moves
// within its span of 32, 64 or 128 bytes: the chunk index (address bits
// [4, 4 + k)) is XORed with bits [7, 7 + k) of the same shared-memory address,
// k = 1, 2, 3 (CUTLASS's Swizzle<1,4,3>, <2,4,3>, <3,4,3>). The bits are the
// address's, not the offset in the box, so the pattern repeats every 256,
// 512 or 1024 bytes of shared memory: a box aligned to that is swizzled the
// same wherever it is. One function for both backends: the emulator places
// the bytes with it, and the GPU tests compute the layout they expect with it.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define CUDALAB_TMA_SWIZZLE_QUALIFIERS __host__ __device__ constexpr
#else
#define CUDALAB_TMA_SWIZZLE_QUALIFIERS constexpr
#endif

namespace cudalab {

// `address`: a byte's shared-memory address (or offset from a base aligned
// to the pattern's repeat) where the unswizzled box would put it;
// `span_bytes`: 0 (no swizzle), 32, 64 or 128. Returns where it goes.
CUDALAB_TMA_SWIZZLE_QUALIFIERS std::uint32_t tma_swizzled_address(std::uint32_t address,
                                                                  unsigned span_bytes) {
  const std::uint32_t chunks_per_span_less_one = span_bytes / 16 > 0 ? span_bytes / 16 - 1 : 0;
  return address ^ (((address >> 7) & chunks_per_span_less_one) << 4);
}

}  // namespace cudalab

#undef CUDALAB_TMA_SWIZZLE_QUALIFIERS
