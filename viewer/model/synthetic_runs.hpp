// Kernel runs computed from a description of each thread's index arithmetic,
// without the emulator. The unit tests use them as known inputs, and the
// viewer falls back to them for lab 01's lecture kernel when the lab's
// harness is not built.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "kernel_run.hpp"

namespace cudalab::viewer {

struct Cell {
  std::uint64_t row, col;
};

// Where one thread writes in a rows x cols output, or nullopt if it returns
// early. Arguments: blockIdx, threadIdx, gridDim, blockDim.
using ThreadMapping = std::function<std::optional<Cell>(Dim3, Dim3, Dim3, Dim3)>;

// Runs `mapping` for every thread of the grid and records, like the lecture's
// `a[IDX2D(j, k, y)] += b[k]`, three access sites: load b[col], load a[row,col]
// and store a[row,col] (fp32, a and b 256-byte aligned).
KernelRun simulate_broadcast(std::string kernel, Dim3 grid, Dim3 block, std::uint64_t rows,
                             std::uint64_t cols, const ThreadMapping& mapping);

// Lab 01's three index mappings for a (x rows) x (y cols) output.
// lecture:   i = (bid) * blockIdx.x + threadIdx.x, j = i % x, k = i / x % y  (the typo)
// fixed:     i = (bid) * blockDim.x + threadIdx.x, same j, k           (exercise 1)
// coalesced: i as fixed, k = i % y, j = i / y                          (exercise 3)
// where bid = blockIdx.x + blockIdx.y * gridDim.x.
enum class Lab01Mapping { kLecture, kFixed, kCoalesced };
KernelRun simulate_lab01(Lab01Mapping mapping, Dim3 grid, Dim3 block, std::uint64_t x,
                         std::uint64_t y);

}  // namespace cudalab::viewer
