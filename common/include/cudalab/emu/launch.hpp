// Launching a kernel on the emulator: what `kernel<<<grid, block, shared,
// stream>>>(args...)` does under nvcc. A rewritten launch reaches it through
// launch_chevron (chevron.hpp), a cooperative one through
// cudaLaunchCooperativeKernel (cooperative_launch.hpp).
#pragma once

#include <driver_types.h>
#include <vector_types.h>

#include <cstddef>
#include <memory>
#include <source_location>
#include <tuple>
#include <type_traits>
#include <utility>

namespace cudalab::emu {

namespace detail {

// A copy made past the compiler's instrumentation: in an instrumented
// translation unit each CUDA thread copies its parameters without a hook
// call per parameter.
template <class T>
#if defined(__SANITIZE_THREAD__)
__attribute__((noinline, no_sanitize("thread")))
#endif
T unseen_copy(const T& from) noexcept(std::is_nothrow_copy_constructible_v<T>) {
  return from;
}

// Checks a launch shape as the GPU does. On a bad shape it sets the last
// error to cudaErrorInvalidValue, as CUDA 13 does (cudaErrorInvalidResourceHandle for
// an unknown stream) and returns false: nothing runs. Dynamic shared memory
// above 48 KiB needs the kernel's cudaFuncAttributeMaxDynamicSharedMemorySize.
bool validate_launch(const void* kernel, dim3 grid, dim3 block, std::size_t shared_bytes,
                     cudaStream_t stream);

// Runs `body` once per CUDA thread of the grid, each on a fiber; blocks go to
// the worker pool. `kernel` names the launch in reports; `context` (of
// `context_bytes`) is the parameter block the threads copy their arguments
// from, which instrumented kernel code may read. On a stream whose work is
// queued (runtime.hpp) the launch keeps a copy of the parameter block, made
// by `copy_context`, and runs at the next synchronisation point.
using ContextCopy = std::shared_ptr<void> (*)(const void* context);

// The source line of the launch this host thread is making, for the
// duration of a chevron launch (launch_chevron sets it: the launch functions
// below take a parameter pack, which leaves no room for a defaulted
// source_location parameter).
class LaunchSite {
 public:
  explicit LaunchSite(const std::source_location& site) noexcept;
  ~LaunchSite();
  LaunchSite(const LaunchSite&) = delete;
  LaunchSite& operator=(const LaunchSite&) = delete;
  // The innermost live LaunchSite's line of this thread; nullptr if none.
  static const std::source_location* current() noexcept;

 private:
  const std::source_location* saved_;
  std::source_location site_;
};
void run_launch(const void* kernel, dim3 grid, dim3 block, std::size_t shared_bytes,
                cudaStream_t stream, void (*body)(void*), void* context, std::size_t context_bytes,
                ContextCopy copy_context);

}  // namespace detail

// The current block's dynamic shared memory (the third chevron argument, in
// bytes). What `extern __shared__ T smem[];` is on the GPU. Accesses through
// it are seen (races, bank conflicts, uninitialised reads) in instrumented
// code (cudalab_emu_instrument).
void* dynamic_shared_memory() noexcept;

namespace detail {

// What every launch ends in: kernel<<<grid, block, shared_bytes, stream>>>(args...)
// once the launch's values are known. The arguments are converted to the
// kernel's parameter types once, on the host, as the GPU's launch does; each
// CUDA thread then gets its own copy of the parameters.
template <class... Params, class... Args>
void launch_with_arguments(void (*kernel)(Params...), dim3 grid, dim3 block,
                           std::size_t shared_bytes, cudaStream_t stream, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args),
                "launch: the number of arguments differs from the kernel's parameters");
  if (!validate_launch(reinterpret_cast<const void*>(kernel), grid, block, shared_bytes, stream)) {
    return;
  }
  using Parameters = std::tuple<std::remove_cvref_t<Params>...>;
  struct Context {
    void (*kernel)(Params...);
    Parameters parameters;
  } context{kernel, Parameters(std::forward<Args>(args)...)};
  auto body = [](void* erased) {
    Context c = unseen_copy(*static_cast<const Context*>(erased));
    std::apply(c.kernel, std::move(c.parameters));  // by-value parameters: a copy per thread
  };
  auto copy_context = [](const void* c) -> std::shared_ptr<void> {
    return std::make_shared<Context>(*static_cast<const Context*>(c));
  };
  run_launch(reinterpret_cast<const void*>(kernel), grid, block, shared_bytes, stream, body,
             &context, sizeof context, copy_context);
}

}  // namespace detail

}  // namespace cudalab::emu
