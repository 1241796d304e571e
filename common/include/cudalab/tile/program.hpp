// A tile program's place in the grid, the threads that run it, and how a
// grid of programs is launched: cudalab::tile's lowering onto CUDA.
//
// One program is one CTA of kThreads threads (Triton's num_warps = 4); the
// program's code runs in all of them, so every tile operation is called by
// the whole CTA together, as Triton code is written. In the interpreter build
// (CUDALAB_INTERPRET=1, like TRITON_INTERPRET=1) a program is a plain call on
// one CPU thread, kThreads is 1, and no CUDA thread exists at all.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"

namespace cudalab::tile {
inline namespace CUDALAB_BACKEND {

#if CUDALAB_INTERPRET
inline constexpr int kThreads = 1;
#else
// Threads of one program: 4 warps, Triton's default num_warps.
inline constexpr int kThreads = 128;
#endif
inline constexpr int kWarps = kThreads < 32 ? 1 : kThreads / 32;

// ceil(a / b) for a grid size: triton.cdiv (for a >= 0, b > 0).
__host__ __device__ constexpr int cdiv(int a, int b) {
  return static_cast<int>((std::int64_t{a} + b - 1) / b);
}

// The grid of programs: up to three axes, like Triton's grid tuple.
struct Grid {
  int x = 1, y = 1, z = 1;
  Grid() = default;
  Grid(int x_, int y_ = 1, int z_ = 1) : x(x_), y(y_), z(z_) {}  // NOLINT: tile::launch(p, n, ...)
};

#if CUDALAB_INTERPRET

namespace detail {
// Which program the interpreter is running.
struct ProgramContext {
  Grid id{0, 0, 0};
  Grid count{1, 1, 1};
};
inline thread_local ProgramContext current_program;
}  // namespace detail

inline int program_id(int axis) {
  const auto& id = detail::current_program.id;
  return axis == 0 ? id.x : axis == 1 ? id.y : id.z;
}
inline int num_programs(int axis) {
  const auto& count = detail::current_program.count;
  return axis == 0 ? count.x : axis == 1 ? count.y : count.z;
}
// This thread's rank inside its program (always 0 in the interpreter).
constexpr int thread_rank() { return 0; }

#else

// tl.program_id(axis): the CTA's index along that axis of the grid.
__device__ inline int program_id(int axis) {
  return static_cast<int>(axis == 0 ? blockIdx.x : axis == 1 ? blockIdx.y : blockIdx.z);
}
// tl.num_programs(axis).
__device__ inline int num_programs(int axis) {
  return static_cast<int>(axis == 0 ? gridDim.x : axis == 1 ? gridDim.y : gridDim.z);
}
__device__ inline int thread_rank() { return static_cast<int>(threadIdx.x); }

#endif

namespace detail {

// Waits for every thread of the program; nothing to wait for in the interpreter.
__device__ inline void sync_program() {
#if !CUDALAB_INTERPRET
  __syncthreads();
#endif
}

// A shared-memory array of N elements of T, one per program, for the
// operations that move elements between threads (broadcasts, reductions,
// dot). Every such operation writes it, syncs, reads, and syncs again before
// returning, so two operations never hold one scratch array at once; Slot
// tells apart arrays one operation needs together (dot's A and B).
template <class T, int N, int Slot = 0>
__device__ inline T* scratch() {
  static_assert(N > 0, "scratch: empty");
#if CUDALAB_GPU
  __shared__ __align__(16) unsigned char bytes[sizeof(T) * N];
  return reinterpret_cast<T*>(bytes);
#else
  auto& bytes = ::cudalab::emu::static_shared<unsigned char[sizeof(T) * N], 16>([] {});
  return reinterpret_cast<T*>(bytes);
#endif
}

template <class Program, class... Args>
__global__ void __launch_bounds__(kThreads) run_program(Program program, Args... args) {
  program(args...);
}

inline void check_grid(const Grid& grid) {
  if (grid.x < 0 || grid.y < 0 || grid.z < 0 || grid.y > 65535 || grid.z > 65535) {
    throw std::invalid_argument("tile::launch: grid (" + std::to_string(grid.x) + ", " +
                                std::to_string(grid.y) + ", " + std::to_string(grid.z) +
                                ") of programs: axes must be >= 0, and axes 1 and 2 at most 65535");
  }
}

}  // namespace detail

// program(args...) once per program of the grid: `kernel[grid](args)` in
// Triton. Program is a class with a `__device__ void operator()(Args...) const`;
// arguments are copied to every program (pointers, sizes, strides).
//
//   struct AddProgram { __device__ void operator()(const float* x, ...) const; };
//   tile::launch(AddProgram{}, tile::cdiv(n, 1024), x, y, out, n);
template <class Program, class... Args>
void launch(Program program, Grid grid, Args... args) {
  detail::check_grid(grid);
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return;
#if CUDALAB_INTERPRET
  auto& context = detail::current_program;
  const detail::ProgramContext saved = context;
  context.count = grid;
  for (int z = 0; z < grid.z; ++z) {
    for (int y = 0; y < grid.y; ++y) {
      for (int x = 0; x < grid.x; ++x) {
        context.id = Grid{x, y, z};
        program(args...);
      }
    }
  }
  context = saved;
#else
  const dim3 programs(static_cast<unsigned>(grid.x), static_cast<unsigned>(grid.y),
                      static_cast<unsigned>(grid.z));
#if CUDALAB_GPU
  // clang-format would split the launch's chevrons in a .hpp file.
  // clang-format off
  detail::run_program<Program, Args...><<<programs, kThreads>>>(program, args...);
  // clang-format on
#else
  // What tools/emu_rewrite.py makes of the launch above: this header is
  // compiled as it is, not rewritten.
  ::cudalab::emu::launch_chevron(detail::run_program<Program, Args...>,
                                 ::cudalab::emu::ChevronConfig{programs, kThreads}, program,
                                 args...);
#endif
  CUDA_CHECK_LAUNCH();
#endif
}

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab::tile
