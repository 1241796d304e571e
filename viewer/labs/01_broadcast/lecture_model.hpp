// Lab 01's kernel as the lecture's slides show it, computed without the
// emulator: what version 0 of the viewer shows whatever labs/ holds, so a
// student can compare their fixed kernel with the one they started from.
#pragma once

#include <cstdint>

#include "model/kernel_run.hpp"

namespace cudalab::viewer::lab01 {

// The grid the lecture's helper builds for one thread per element of an
// x-by-y tensor: enough blocks of block.x threads, split into y when x
// would pass 65535.
Dim3 lecture_grid(std::uint64_t x, std::uint64_t y, Dim3 block);

// The lecture's index mappings for a (x rows) x (y cols) output, where
// bid = blockIdx.x + blockIdx.y * gridDim.x:
// lecture:   i = bid * blockIdx.x + threadIdx.x, j = i % x, k = i / x % y  (the typo)
// fixed:     i = bid * blockDim.x + threadIdx.x, same j, k                (exercise 1)
// coalesced: i as fixed, k = i % y, j = i / y                             (exercise 3)
enum class Mapping { kLecture, kFixed, kCoalesced };
KernelRun simulate(Mapping mapping, Dim3 grid, Dim3 block, std::uint64_t x, std::uint64_t y);

}  // namespace cudalab::viewer::lab01
