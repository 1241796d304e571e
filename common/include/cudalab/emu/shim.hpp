// What CUDA C++ provides implicitly, for kernels compiled by the host
// compiler against the CPU emulator. cudalab/kernel.hpp includes this when it
// is not compiled by nvcc; lab code never includes it directly.
//
// Provided:
//   * CUDA's own types, unchanged: dim3, uint3, float4, cudaError_t (with its
//     real codes), cudaMemcpyKind, cudaDeviceProp, cudaStream_t, __half,
//     __nv_bfloat16 (vector_types.h, driver_types.h, cuda_fp16.h, cuda_bf16.h).
//   * threadIdx, blockIdx, blockDim, gridDim (of the CUDA thread running now;
//     in a rewritten file also host variable and member names), warpSize.
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
//   * the runtime API subset of the table runtime_api.def under CUDA's names
//     (macros), stream capture and graph launch among it;
//     every other runtime function (cudaIpcGetMemHandle, cudaGraphAddKernelNode, ...)
//     is a compile error naming it (the generated runtime_api_rename.hpp).
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
// Also: __global__ means `inline` (kernels are defined in headers),
// __restrict__ is dropped (an aliasing promise for the optimiser only),
// __launch_bounds__(...) too,
// and a kernel is launched with `<<<...>>>` in a rewritten file, never
// called directly.
#pragma once

// CUDA's types and host-side declarations. cuda_runtime.h declares the global
// cudaMalloc & co (and C++ helpers that call them); the macros at the end
// redirect every use to the emulator's functions or make it a compile error.
// It is included here, before those macros, so that a later #include of it
// is a no-op instead of a header the macros would break; so is
// cuda_profiler_api.h (cudaProfilerStart/Stop).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <driver_types.h>
#include <vector_types.h>

#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
// nvcc --default-stream per-thread defines this macro, and CUDA's headers
// then rename the calls that take a stream (cudaMemcpy -> cudaMemcpy_ptds);
// they are undone here, before the emulator declares its own (one function
// each), and stream 0 means the calling host
// thread's default stream, for the whole process (docs/emulator.md).
// (Every name runtime_api.def provides: a list generated from the table.)
#include "cudalab/emu/runtime_api_undef.hpp"
namespace cudalab::emu::detail {
bool make_stream_zero_per_thread() noexcept;
inline const bool stream_zero_is_per_thread = make_stream_zero_per_thread();
}  // namespace cudalab::emu::detail
#endif

#include "cudalab/emu/argument_launch.hpp"
#include "cudalab/emu/chevron.hpp"
#include "cudalab/emu/cluster_launch.hpp"
#include "cudalab/emu/constant_memory.hpp"
#include "cudalab/emu/cooperative_launch.hpp"
#include "cudalab/emu/device_functions.hpp"
#include "cudalab/emu/device_printf.hpp"
#include "cudalab/emu/half_math.hpp"
#include "cudalab/emu/launch.hpp"
#include "cudalab/emu/managed_memory.hpp"
#include "cudalab/emu/pitched_memory.hpp"
#include "cudalab/emu/recorder.hpp"
#include "cudalab/emu/runtime.hpp"
#include "cudalab/emu/shared_at_namespace.hpp"
#include "cudalab/emu/shared_memory.hpp"
#include "cudalab/emu/thread_state.hpp"
#include "cudalab/emu/wmma.hpp"

// Device functions at global scope, where CUDA code calls them unqualified.
using namespace ::cudalab::emu::device_api;

// ---- builtin variables -------------------------------------------------------------
// threadIdx, blockIdx, blockDim, gridDim: macros, which a rewritten file's
// host code may still use as names (builtin_variables.hpp).
#include "cudalab/emu/builtin_variables.hpp"

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
// A kernel's compiled-in cluster shape: tools/emu_rewrite.py turns the
// qualifier into a registration (cudalab/emu/cluster_launch.hpp), so it
// reaches this macro only in a file the rewrite did not see.
#undef __cluster_dims__
#define __cluster_dims__(...) cudalab_emulator_needs_cudalab_emu_rewrite_for___cluster_dims__
// A kernel parameter whose address the kernel may take (a CUtensorMap for
// TMA): the emulator's parameters are ordinary objects, addressable anyway.
#undef __grid_constant__
#define __grid_constant__

// ---- runtime API --------------------------------------------------------------------
// Each name of the table runtime_api.def (declared in runtime.hpp) is mapped
// onto cudalab::emu by a macro, `#define cudaMalloc ::cudalab::emu::cudaMalloc`;
// every other runtime function is renamed to
// <name>_is_not_provided_by_the_cudalab_emulator, so that calling it is a
// compile error naming it. Without this, the call would link to the real
// libcudart that the GPU backend of the same binary brings in, and fail far
// from the cause on a machine without a GPU. Both lists are generated from
// the table and the toolkit's headers when CMake configures
// (common/emu/runtime_api.cmake), into the header included at the end.
//
// The Programming Guide passes the kernel as `(void*)my_kernel`, which would
// lose the parameter types the emulator calls it with: a launch's macro (the
// table's _LAUNCH rows: `#define cudaLaunchCooperativeKernel(kernel, ...)
// ::cudalab::emu::cudaLaunchCooperativeKernel(CUDALAB_EMU_KERNEL_OF(kernel),
// __VA_ARGS__)`) passes its kernel through CUDALAB_EMU_KERNEL_OF, which
// drops a leading parenthesised cast and leaves any other spelling as it is
// (the launch then fails to compile with a message if it is no kernel).
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

#if __has_include("cudalab/emu/runtime_api_rename.hpp")
#include "cudalab/emu/runtime_api_rename.hpp"
#else
#error "cudalab/emu/runtime_api_rename.hpp is generated by CMake: link the target with cudalab::emu"
#endif
