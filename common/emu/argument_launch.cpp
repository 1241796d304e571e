// Kernels launched from an array of argument pointers (cudalab/emu/argument_launch.hpp):
// the registry the rewritten kernels fill before main, and cudaLaunchKernel.
#include "cudalab/emu/argument_launch.hpp"

#include <mutex>
#include <unordered_map>

#include "cudalab/emu/runtime.hpp"

namespace cudalab::emu {

namespace detail {

namespace {

std::mutex registry_mutex;

std::unordered_map<const void*, ArgumentLaunch>& registry() {
  static std::unordered_map<const void*, ArgumentLaunch> entries;
  return entries;
}

}  // namespace

bool register_argument_launch(const void* kernel, ArgumentLaunch how) {
  std::lock_guard lock(registry_mutex);
  registry()[kernel] = how;
  return true;
}

const ArgumentLaunch* argument_launch_of(const void* kernel) noexcept {
  std::lock_guard lock(registry_mutex);
  const auto found = registry().find(kernel);
  // Entries are never removed, and an unordered_map keeps its elements in place.
  return found == registry().end() ? nullptr : &found->second;
}

}  // namespace detail

cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args,
                             std::size_t shared_bytes, cudaStream_t stream) {
  // What CUDA 13 answers for an address that is not a kernel's (an H100, 2026-12-07).
  const detail::ArgumentLaunch* how = detail::argument_launch_of(func);
  if (!how) return detail::set_last_error(cudaErrorInvalidResourceHandle);
  if (!args && how->parameter_count > 0) return detail::set_last_error(cudaErrorInvalidValue);
  if (!detail::validate_launch(func, grid, block, shared_bytes, stream)) {
    return cudaPeekAtLastError();  // what validate_launch recorded
  }
  how->launch(grid, block, shared_bytes, stream, args);
  return cudaSuccess;
}

}  // namespace cudalab::emu
