// Kernel runs with known answers for the model tests: a 1-D grid where thread
// i = blockIdx.x * blockDim.x + threadIdx.x writes one element of a rows x
// cols output (through model/synthetic_runs.hpp, no emulator).
#pragma once

#include <functional>

#include "model/synthetic_runs.hpp"

namespace cudalab::viewer::testing {

// The element thread i writes, or nullopt when it writes none.
using ElementOf = std::function<std::optional<Cell>(std::uint64_t i)>;

inline KernelRun run_of(std::uint32_t blocks, std::uint32_t block, std::uint64_t rows,
                        std::uint64_t cols, const ElementOf& element_of) {
  return simulate_broadcast(
      "known", {blocks, 1, 1}, {block, 1, 1}, rows, cols,
      [&](Dim3 b, Dim3 t, Dim3, Dim3 bd) { return element_of(std::uint64_t{b.x} * bd.x + t.x); });
}

inline std::uint32_t blocks_for(std::uint64_t elements, std::uint32_t block) {
  return static_cast<std::uint32_t>((elements + block - 1) / block);
}

// Consecutive threads write consecutive elements of a row: coalesced.
inline KernelRun row_major(std::uint64_t rows, std::uint64_t cols, std::uint32_t block) {
  return run_of(blocks_for(rows * cols, block), block, rows, cols,
                [=](std::uint64_t i) -> std::optional<Cell> {
                  if (i >= rows * cols) return std::nullopt;
                  return Cell{i / cols, i % cols};
                });
}

// Consecutive threads walk down a column: every element once, uncoalesced.
inline KernelRun column_major(std::uint64_t rows, std::uint64_t cols, std::uint32_t block) {
  return run_of(blocks_for(rows * cols, block), block, rows, cols,
                [=](std::uint64_t i) -> std::optional<Cell> {
                  if (i >= rows * cols) return std::nullopt;
                  return Cell{i % rows, i / rows};
                });
}

}  // namespace cudalab::viewer::testing
