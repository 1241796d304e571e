// What CUDA C++ provides implicitly, for kernels compiled by the host
// compiler against the CPU emulator. cudalab/kernel.hpp includes this when it
// is not compiled by nvcc; lab code never includes it directly.
//
// Provided:
//   * CUDA's own types, unchanged: dim3, uint3, float4, cudaError_t (with its
//     real codes), cudaMemcpyKind, cudaDeviceProp, cudaStream_t, __half,
//     __nv_bfloat16 (vector_types.h, driver_types.h, cuda_fp16.h, cuda_bf16.h).
//   * threadIdx, blockIdx, blockDim, gridDim (of the CUDA thread running now),
//     warpSize.
//   * __syncthreads (+ _count/_and/_or), __syncwarp, __shfl_sync,
//     __shfl_up_sync, __shfl_down_sync, __shfl_xor_sync, __ballot_sync,
//     __any_sync, __all_sync, __activemask.
//   * atomicAdd/Sub/Exch/Min/Max/And/Or/Xor/Inc/Dec/CAS on raw and traced pointers.
//   * the math intrinsics of device_functions.hpp (__expf, __fdividef,
//     rsqrtf, __saturatef, __popc, min/max, ...); the rest comes from <cmath>.
//   * the half and bfloat16 functions cuda_fp16.h/cuda_bf16.h leave to nvcc
//     (__hfma, hexp, h2sqrt, __half2int_rn, ...: half_math.hpp).
//   * device printf and assert, managed memory and the device limits
//     (device_printf.hpp, managed_memory.hpp; docs/emulator.md).
//   * the runtime API subset of runtime.hpp under CUDA's names (macros),
//     stream capture and graph launch among it;
//     every other runtime function (cudaIpcGetMemHandle, cudaGraphAddKernelNode, ...)
//     is a compile error naming it (the generated runtime_not_provided.hpp).
//
// Shared memory:
//   * In a file rewritten by tools/emu_rewrite.py (every lab file, through
//     cudalab_add_lab), `__shared__ T a[N];` and `extern __shared__ T a[];`
//     are already calls into the block's shared-memory arena
//     (shared_memory.hpp), and in an instrumented translation unit every
//     access to them is traced (docs/emulator.md).
//   * In a file that was not rewritten, `__shared__ T a[N];` falls back to
//     `static thread_local T a[N];` below: one array per host worker thread,
//     which runs one block at a time and whose fibers never migrate, so all
//     threads of a block share it, as on the GPU; but it is outside the arena,
//     so an instrumented access to it is reported as an invalid address, and
//     an uninstrumented one is not seen at all.
//   * `__shared__ cudalab::shared_array<T, N...> a;` is the older traced
//     spelling; under nvcc the alias (kernel.hpp) is exactly `T a[N]...`.
// Also: __global__ means `inline` (kernels are defined in headers),
// __restrict__ is dropped (it cannot apply to the traced global_ptr),
// __launch_bounds__(...) too,
// and a kernel is launched with `<<<...>>>` in a rewritten file (or with
// cudalab::launch), never called directly.
#pragma once

// CUDA's types and host-side declarations. cuda_runtime.h declares the global
// cudaMalloc & co (and C++ helpers that call them); the macros at the end
// redirect every use to the emulator's functions or make it a compile error.
// It is included here, before those macros, so that a later #include of it
// is a no-op instead of a header the macros would break.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <driver_types.h>
#include <vector_types.h>

#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
// nvcc --default-stream per-thread defines this macro, and CUDA's headers
// then rename the calls that take a stream (cudaMemcpy -> cudaMemcpy_ptds);
// they are undone here, before the emulator declares its own (one function
// each), and stream 0 means the calling host
// thread's default stream, for the whole process (docs/emulator.md).
#undef cudaMemcpy
#undef cudaMemcpyAsync
#undef cudaMemset
#undef cudaMemsetAsync
#undef cudaStreamSynchronize
#undef cudaStreamQuery
#undef cudaStreamWaitEvent
#undef cudaEventRecord
#undef cudaLaunchHostFunc
#undef cudaGraphLaunch
#undef cudaStreamBeginCapture
#undef cudaStreamEndCapture
#undef cudaStreamIsCapturing
#undef cudaMallocAsync
#undef cudaFreeAsync
#undef cudaMemcpyToSymbol
#undef cudaMemcpyFromSymbol
#undef cudaMemcpyToSymbolAsync
#undef cudaMemcpyFromSymbolAsync
#undef cudaMemcpy2D
#undef cudaMemcpy2DAsync
#undef cudaMemset2D
#undef cudaMemset2DAsync
#undef cudaMemPrefetchAsync
namespace cudalab::emu::detail {
bool make_stream_zero_per_thread() noexcept;
inline const bool stream_zero_is_per_thread = make_stream_zero_per_thread();
}  // namespace cudalab::emu::detail
#endif

#include "cudalab/emu/chevron.hpp"
#include "cudalab/emu/constant_memory.hpp"
#include "cudalab/emu/cooperative_launch.hpp"
#include "cudalab/emu/device_functions.hpp"
#include "cudalab/emu/device_printf.hpp"
#include "cudalab/emu/global_ptr.hpp"
#include "cudalab/emu/half_math.hpp"
#include "cudalab/emu/launch.hpp"
#include "cudalab/emu/managed_memory.hpp"
#include "cudalab/emu/pitched_memory.hpp"
#include "cudalab/emu/recorder.hpp"
#include "cudalab/emu/runtime.hpp"
#include "cudalab/emu/shared_array.hpp"
#include "cudalab/emu/shared_at_namespace.hpp"
#include "cudalab/emu/shared_memory.hpp"
#include "cudalab/emu/thread_state.hpp"
#include "cudalab/emu/wmma.hpp"

// Device functions at global scope, where CUDA code calls them unqualified.
using namespace ::cudalab::emu::device_api;

// ---- builtin variables -------------------------------------------------------------
#if defined(__SANITIZE_THREAD__)
// Instrumented code (cudalab_emu_instrument): values read past the
// instrumentation, so that they cost no hook call (thread_state.hpp).
#define threadIdx (::cudalab::emu::detail::thread_idx())
#define blockIdx (::cudalab::emu::detail::block_idx())
#define blockDim (::cudalab::emu::detail::block_dim())
#define gridDim (::cudalab::emu::detail::grid_dim())
#else
#define threadIdx (::cudalab::emu::detail::current_thread->thread_idx)
#define blockIdx (::cudalab::emu::detail::current_thread->block->block_idx)
#define blockDim (::cudalab::emu::detail::current_thread->block->block_dim)
#define gridDim (::cudalab::emu::detail::current_thread->block->grid_dim)
#endif

// ---- qualifiers ----------------------------------------------------------------------
// Kernels live in headers included by several translation units; `inline`
// keeps their one definition (nvcc needs no such help: its host side emits
// only launch stubs). So do not write `inline __global__` yourself, and mark
// __device__ helpers in headers `inline` or `__forceinline__`.
#undef __global__
#define __global__ inline
#undef __shared__
#define __shared__ static thread_local
#undef __restrict__
#define __restrict__
// Register and occupancy hints mean nothing on the CPU; CUDA's own definition
// becomes an attribute g++ rejects.
#undef __launch_bounds__
#define __launch_bounds__(...)

// ---- runtime API --------------------------------------------------------------------
#define cudaMalloc ::cudalab::emu::cudaMalloc
#define cudaFree ::cudalab::emu::cudaFree
#define cudaMemcpy ::cudalab::emu::cudaMemcpy
#define cudaMemcpyAsync ::cudalab::emu::cudaMemcpyAsync
#define cudaMemset ::cudalab::emu::cudaMemset
#define cudaMemsetAsync ::cudalab::emu::cudaMemsetAsync
#define cudaGetLastError ::cudalab::emu::cudaGetLastError
#define cudaPeekAtLastError ::cudalab::emu::cudaPeekAtLastError
#define cudaGetErrorString ::cudalab::emu::cudaGetErrorString
#define cudaGetErrorName ::cudalab::emu::cudaGetErrorName
#define cudaDeviceSynchronize ::cudalab::emu::cudaDeviceSynchronize
#define cudaStreamSynchronize ::cudalab::emu::cudaStreamSynchronize
#define cudaDeviceReset ::cudalab::emu::cudaDeviceReset
#define cudaGetDeviceCount ::cudalab::emu::cudaGetDeviceCount
#define cudaGetDevice ::cudalab::emu::cudaGetDevice
#define cudaSetDevice ::cudalab::emu::cudaSetDevice
#define cudaGetDeviceProperties ::cudalab::emu::cudaGetDeviceProperties
#define cudaDeviceGetAttribute ::cudalab::emu::cudaDeviceGetAttribute
#define cudaDeviceCanAccessPeer ::cudalab::emu::cudaDeviceCanAccessPeer
#define cudaDeviceEnablePeerAccess ::cudalab::emu::cudaDeviceEnablePeerAccess
#define cudaDeviceDisablePeerAccess ::cudalab::emu::cudaDeviceDisablePeerAccess
#define cudaMemcpyPeer ::cudalab::emu::cudaMemcpyPeer
#define cudaMemcpyPeerAsync ::cudalab::emu::cudaMemcpyPeerAsync
#define cudaPointerGetAttributes ::cudalab::emu::cudaPointerGetAttributes
#define cudaFuncSetAttribute ::cudalab::emu::cudaFuncSetAttribute
#define cudaDeviceSetLimit ::cudalab::emu::cudaDeviceSetLimit
#define cudaDeviceGetLimit ::cudalab::emu::cudaDeviceGetLimit
#define cudaMallocManaged ::cudalab::emu::cudaMallocManaged
#define cudaMemPrefetchAsync ::cudalab::emu::cudaMemPrefetchAsync
#define cudaMemAdvise ::cudalab::emu::cudaMemAdvise
#define cudaMallocHost ::cudalab::emu::cudaMallocHost
#define cudaHostAlloc ::cudalab::emu::cudaHostAlloc
#define cudaFreeHost ::cudalab::emu::cudaFreeHost
#define cudaMallocAsync ::cudalab::emu::cudaMallocAsync
#define cudaFreeAsync ::cudalab::emu::cudaFreeAsync
#define cudaMemcpyToSymbol ::cudalab::emu::cudaMemcpyToSymbol
#define cudaMemcpyToSymbolAsync ::cudalab::emu::cudaMemcpyToSymbolAsync
#define cudaMemcpyFromSymbol ::cudalab::emu::cudaMemcpyFromSymbol
#define cudaMemcpyFromSymbolAsync ::cudalab::emu::cudaMemcpyFromSymbolAsync
#define cudaGetSymbolAddress ::cudalab::emu::cudaGetSymbolAddress
#define cudaGetSymbolSize ::cudalab::emu::cudaGetSymbolSize
#define cudaMallocPitch ::cudalab::emu::cudaMallocPitch
#define cudaMemcpy2D ::cudalab::emu::cudaMemcpy2D
#define cudaMemcpy2DAsync ::cudalab::emu::cudaMemcpy2DAsync
#define cudaMemset2D ::cudalab::emu::cudaMemset2D
#define cudaMemset2DAsync ::cudalab::emu::cudaMemset2DAsync
#define cudaStreamCreate ::cudalab::emu::cudaStreamCreate
#define cudaStreamCreateWithFlags ::cudalab::emu::cudaStreamCreateWithFlags
#define cudaStreamDestroy ::cudalab::emu::cudaStreamDestroy
#define cudaStreamQuery ::cudalab::emu::cudaStreamQuery
#define cudaStreamWaitEvent ::cudalab::emu::cudaStreamWaitEvent
#define cudaLaunchHostFunc ::cudalab::emu::cudaLaunchHostFunc
#define cudaStreamBeginCapture ::cudalab::emu::cudaStreamBeginCapture
#define cudaStreamEndCapture ::cudalab::emu::cudaStreamEndCapture
#define cudaStreamIsCapturing ::cudalab::emu::cudaStreamIsCapturing
#define cudaGraphInstantiate ::cudalab::emu::cudaGraphInstantiate
#define cudaGraphInstantiateWithFlags ::cudalab::emu::cudaGraphInstantiateWithFlags
#define cudaGraphLaunch ::cudalab::emu::cudaGraphLaunch
#define cudaGraphExecDestroy ::cudalab::emu::cudaGraphExecDestroy
#define cudaGraphDestroy ::cudalab::emu::cudaGraphDestroy
#define cudaGraphGetNodes ::cudalab::emu::cudaGraphGetNodes
#define cudaEventCreate ::cudalab::emu::cudaEventCreate
#define cudaEventCreateWithFlags ::cudalab::emu::cudaEventCreateWithFlags
#define cudaEventDestroy ::cudalab::emu::cudaEventDestroy
#define cudaEventRecord ::cudalab::emu::cudaEventRecord
#define cudaEventSynchronize ::cudalab::emu::cudaEventSynchronize
#define cudaEventQuery ::cudalab::emu::cudaEventQuery
#define cudaEventElapsedTime ::cudalab::emu::cudaEventElapsedTime
#define cudaOccupancyMaxActiveBlocksPerMultiprocessor \
  ::cudalab::emu::cudaOccupancyMaxActiveBlocksPerMultiprocessor
#define cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags \
  ::cudalab::emu::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags
// The Programming Guide passes the kernel as `(void*)my_kernel`, which would
// lose the parameter types the emulator calls it with: CUDALAB_EMU_KERNEL_OF
// drops a leading parenthesised cast and leaves any other spelling as it is
// (the launch then fails to compile with a message if it is no kernel).
#define cudaLaunchCooperativeKernel(kernel, ...) \
  ::cudalab::emu::cudaLaunchCooperativeKernel(CUDALAB_EMU_KERNEL_OF(kernel), __VA_ARGS__)
// (void*)k -> `1 k` and k -> `0 k`, through a probe that only a leading
// parenthesis expands; the digit then names an empty macro.
#define CUDALAB_EMU_KERNEL_OF(kernel)     \
  CUDALAB_EMU_CAT(CUDALAB_EMU_KERNEL_OF_, \
                  CUDALAB_EMU_SECOND(CUDALAB_EMU_CAST_PROBE kernel, 0 kernel, ~))
#define CUDALAB_EMU_CAST_PROBE(...) ~, 1
#define CUDALAB_EMU_SECOND(...) CUDALAB_EMU_SECOND_OF(__VA_ARGS__)
#define CUDALAB_EMU_SECOND_OF(first, second, ...) second
#define CUDALAB_EMU_CAT(a, b) CUDALAB_EMU_CAT_TOKENS(a, b)
#define CUDALAB_EMU_CAT_TOKENS(a, b) a##b
#define CUDALAB_EMU_KERNEL_OF_0
#define CUDALAB_EMU_KERNEL_OF_1

// Every other runtime function is renamed to <name>_is_not_provided_by_the_cudalab_emulator,
// so that calling it is a compile error naming it. Without this, the call would
// link to the real libcudart that the GPU backend of the same binary brings in,
// and fail far from the cause on a machine without a GPU. The list is generated
// from the toolkit's headers when CMake configures (common/emu/runtime_not_provided.cmake).
#if __has_include("cudalab/emu/runtime_not_provided.hpp")
#include "cudalab/emu/runtime_not_provided.hpp"
#else
#error \
    "cudalab/emu/runtime_not_provided.hpp is generated by CMake: link the target with cudalab::emu"
#endif
