// Kernel runs computed from a description of each thread's index arithmetic,
// without the emulator: known inputs for the unit tests, and lab 01's
// lecture kernel exactly as the slides show it.
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

}  // namespace cudalab::viewer
