// The CUDA runtime API subset the emulator provides, with CUDA's names,
// signatures and error codes, in namespace cudalab::emu: declared from the
// table runtime_api.def, which lists every provided function (and so also
// the ones that are not). shim.hpp maps the global names onto these with
// macros generated from the same table (`cudaMalloc` ->
// cudalab::emu::cudaMalloc) so that the real libcudart symbols are never
// defined here: one binary can link the GPU build of a lab and the emulator
// build side by side.
//
// Streams and events (docs/emulator.md, "The device model"): work issued on
// a stream is queued and runs at the next host synchronisation point, in an
// order a scheduler picks among those that respect stream order, events and
// the default-stream rules (Options::schedule, CUDALAB_EMU_SCHEDULE); a race
// checker reports two unordered operations of different streams touching the
// same bytes. While no stream was created (every single-stream program) and
// nothing is queued, work on the default streams runs at once, before the
// call returns, as it always did.
//
// Errors. API misuse returns its error and also sets the "last error", as in
// CUDA. A fault inside a kernel (out-of-bounds or freed memory:
// cudaErrorIllegalAddress; a misaligned access: cudaErrorMisalignedAddress;
// divergent barrier or broken warp collective: cudaErrorLaunchFailure) is
// returned by the next cudaDeviceSynchronize,
// synchronous cudaMemcpy/cudaMemset or cudaGetLastError. Unlike a GPU the
// error is not sticky: returning it once clears it, so one test process can
// plant a bug and carry on.
#pragma once

#include <driver_types.h>
#include <vector_types.h>

#include <cstddef>

namespace cudalab::emu {

// The name cudaGetDeviceProperties reports.
inline constexpr const char* kDeviceName = "cudalab CPU emulator";
// Largest shared memory per block (static + dynamic) a launch may use: the
// H100's and H200's opt-in limit (cudaDevAttrMaxSharedMemoryPerBlockOptin).
// Dynamic shared memory above 48 KiB needs cudaFuncSetAttribute first, as on
// the GPU.
inline constexpr std::size_t kMaxDynamicSharedBytes = 227 * 1024;

// The CUDA runtime functions, one declaration per row of the table
// runtime_api.def (with each function's notes). Written by hand below: the
// template overloads the table names for this header, and what is not CUDA.
#define CUDALAB_EMU_RUNTIME(name, support, implemented_in, return_type, parameters) \
  return_type name parameters;
#define CUDALAB_EMU_RUNTIME_TEMPLATE(name, support, implemented_in, declared_in)
#define CUDALAB_EMU_RUNTIME_LAUNCH(name, support, implemented_in, declared_in)
#include "cudalab/emu/runtime_api.def"
#undef CUDALAB_EMU_RUNTIME
#undef CUDALAB_EMU_RUNTIME_TEMPLATE
#undef CUDALAB_EMU_RUNTIME_LAUNCH

// ---- template overloads (runtime_api.def's rows for runtime.hpp) -------------------
template <class T>
cudaError_t cudaMalloc(T** ptr, std::size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), bytes);
}
template <class T>
cudaError_t cudaMallocHost(T** ptr, std::size_t bytes, unsigned int flags = 0) {
  return ::cudalab::emu::cudaMallocHost(reinterpret_cast<void**>(ptr), bytes, flags);
}
template <class T>
cudaError_t cudaHostAlloc(T** ptr, std::size_t bytes, unsigned int flags) {
  return ::cudalab::emu::cudaHostAlloc(reinterpret_cast<void**>(ptr), bytes, flags);
}
namespace detail {
// `caller`: where host code made the call, for reports.
cudaError_t malloc_async(void** ptr, std::size_t bytes, cudaStream_t stream, const void* caller);
}  // namespace detail
template <class T>
[[gnu::noinline]] cudaError_t cudaMallocAsync(T** ptr, std::size_t bytes, cudaStream_t stream) {
  return detail::malloc_async(reinterpret_cast<void**>(ptr), bytes, stream,
                              __builtin_return_address(0));
}
template <class... Params>
cudaError_t cudaFuncSetAttribute(void (*kernel)(Params...), cudaFuncAttribute attr, int value) {
  return ::cudalab::emu::cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), attr, value);
}

// ---- not CUDA ------------------------------------------------------------------------
// A test harness's guard bytes. The first `front` and last `back`
// bytes of the cudaMalloc allocation at `base` belong to no tensor the
// kernel was given: a kernel access there is an out-of-bounds error, as
// outside the allocation, while host copies still reach them. Where a guard
// is only compared afterwards, a read of it (a tail done by over-reading a
// whole float4) goes unseen.
cudaError_t set_guard_bytes(void* base, std::size_t front, std::size_t back);
// How many bytes of device memory start at `p`, to the end of its
// cudaMalloc allocation (less any guard bytes); 0 when `p` is not device
// memory a kernel may touch. Library stand-ins (cudalab::blas for cuBLAS)
// check the extent of their arguments with it, where the GPU would fault.
std::size_t device_bytes_from(const void* p) noexcept;

namespace detail {
// True for the default streams (0, cudaStreamLegacy, cudaStreamPerThread).
bool is_default_stream(cudaStream_t stream) noexcept;
// Records an API error as the last error and returns it.
cudaError_t set_last_error(cudaError_t error) noexcept;
}  // namespace detail

}  // namespace cudalab::emu
