// cudaLaunchCooperativeKernel on the emulator, and the occupancy query a
// cooperative grid is sized with (cudaOccupancyMaxActiveBlocksPerMultiprocessor).
// shim.hpp maps CUDA's names onto these; cooperative_groups::this_grid().sync()
// (cudalab/emu/cooperative_groups.hpp) works only inside such a launch.
//
// A cooperative grid must fit on the GPU at once: the GPU refuses more
// blocks than its multiprocessors keep resident with
// cudaErrorCooperativeLaunchTooLarge, and the emulator refuses the same
// grids, with the H200's limits (common/emu/cooperative_launch.cpp). It then
// runs every block at the same time, so that grid.sync() can wait for all of
// them (docs/emulator.md, "Cooperative groups").
#pragma once

#include <driver_types.h>
#include <vector_types.h>

#include <cstddef>
#include <type_traits>
#include <utility>

#include "cudalab/emu/launch.hpp"
#include "cudalab/emu/runtime.hpp"

namespace cudalab::emu {

// The GPU the limits are the H200's: 132 multiprocessors.
inline constexpr int kCooperativeMultiprocessors = 132;

// Blocks of `threads` threads with `dynamic_shared_bytes` of dynamic shared
// memory that one H200 multiprocessor keeps resident: the least of 32
// blocks, 64 warps, and 228 KiB of shared memory (each block's rounded up to
// 128 bytes, plus the 1 KiB the hardware reserves per block). Registers are
// not counted (the host compiler allocates none for the GPU), nor static
// __shared__ declarations (the emulator learns their size only when the
// kernel runs): the GPU's figure can be lower, never higher.
int max_active_blocks_per_multiprocessor(int threads, std::size_t dynamic_shared_bytes) noexcept;

// cudaOccupancyMaxActiveBlocksPerMultiprocessor(int*, const void*, int,
// std::size_t) is declared from the table runtime_api.def (runtime.hpp); the
// typed overloads below and cudaLaunchCooperativeKernel are its rows for
// this header.
template <class... Params>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, void (*kernel)(Params...),
                                                          int block_size,
                                                          std::size_t dynamic_shared_bytes) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      blocks, reinterpret_cast<const void*>(kernel), block_size, dynamic_shared_bytes);
}
// The flags (cudaOccupancyDefault, cudaOccupancyDisableCachingOverride)
// change nothing the emulator counts.
template <class Kernel>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, Kernel kernel,
                                                                   int block_size,
                                                                   std::size_t dynamic_shared_bytes,
                                                                   unsigned) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel, block_size,
                                                       dynamic_shared_bytes);
}

namespace detail {

// True on the host thread while cudaLaunchCooperativeKernel issues its
// launch: run_launch (recorder.cpp) marks the launch cooperative.
class CooperativeLaunch {
 public:
  CooperativeLaunch() noexcept;
  ~CooperativeLaunch();
  CooperativeLaunch(const CooperativeLaunch&) = delete;
  CooperativeLaunch& operator=(const CooperativeLaunch&) = delete;
  static bool active() noexcept;

 private:
  bool saved_;
};

// What only a cooperative launch is refused for, once its shape is valid:
// more blocks than the GPU keeps resident (cudaErrorCooperativeLaunchTooLarge),
// or more threads than the emulator can park at once
// (cudaErrorLaunchOutOfResources, with a message on stderr that says so).
cudaError_t check_cooperative_launch(const void* kernel, dim3 grid, dim3 block,
                                     std::size_t shared_bytes);

template <class... Params, std::size_t... I>
void launch_from_argument_array(void (*kernel)(Params...), dim3 grid, dim3 block,
                                std::size_t shared_bytes, cudaStream_t stream, void** args,
                                std::index_sequence<I...>) {
  // As on the GPU, args[i] points at the i-th argument, of the parameter's type.
  detail::launch_with_arguments(kernel, grid, block, shared_bytes, stream,
                                *static_cast<std::remove_cvref_t<Params>*>(args[I])...);
}

template <class T>
inline constexpr bool always_false = false;

}  // namespace detail

// cudaLaunchCooperativeKernel(kernel, grid, block, args, shared_bytes, stream).
// shim.hpp's macro strips a leading cast, so the Programming Guide's
// `(void*)my_kernel` arrives here as the kernel itself, with its type.
template <class... Params>
cudaError_t cudaLaunchCooperativeKernel(void (*kernel)(Params...), dim3 grid, dim3 block,
                                        void** args, std::size_t shared_bytes = 0,
                                        cudaStream_t stream = 0) {
  const void* erased = reinterpret_cast<const void*>(kernel);
  if (!detail::validate_launch(erased, grid, block, shared_bytes, stream)) {
    return ::cudalab::emu::cudaPeekAtLastError();  // what validate_launch recorded
  }
  if (!args && sizeof...(Params) > 0) return detail::set_last_error(cudaErrorInvalidValue);
  if (const cudaError_t refused =
          detail::check_cooperative_launch(erased, grid, block, shared_bytes)) {
    return detail::set_last_error(refused);
  }
  const detail::CooperativeLaunch cooperative;
  detail::launch_from_argument_array(kernel, grid, block, shared_bytes, stream, args,
                                     std::index_sequence_for<Params...>{});
  return cudaSuccess;
}

template <class T>
cudaError_t cudaLaunchCooperativeKernel(T*, dim3, dim3, void**, std::size_t = 0, cudaStream_t = 0) {
  static_assert(detail::always_false<T>,
                "cudaLaunchCooperativeKernel on the cudalab emulator needs the kernel itself "
                "(my_kernel, or (void*)my_kernel written in the call), not a void* variable or "
                "reinterpret_cast: the emulator calls the kernel with its parameter types");
  return cudaErrorInvalidDeviceFunction;
}

}  // namespace cudalab::emu
