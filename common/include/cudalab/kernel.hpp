// The one header a lab's kernel file (.cuh) includes.
//
// A lab's kernels are compiled twice: by nvcc for the GPU and by the host
// compiler for the CPU emulator. This header picks the backend and gives both
// the same vocabulary:
//
//   cudalab::global_ptr<T>    a pointer to global memory. Under nvcc it *is*
//                             T*, so GPU code pays nothing; under the emulator
//                             every access through it is traced and checked.
//   cudalab::launch(k, shape, args...)
//                             the host-side launch. Under nvcc it is exactly
//                             k<<<shape.grid, shape.block, shape.shared_bytes,
//                             shape.stream>>>(args...).
//   cudalab::dynamic_shared<T>()
//                             the block's dynamic shared memory, what
//                             `extern __shared__ T smem[];` gives in CUDA.
//   cudalab::shared_array<T, N[, M]>
//                             a static shared-memory array: write
//                             `__shared__ cudalab::shared_array<float, 32, 33> tile;`
//                             It is T[N][M] under nvcc; the emulator checks
//                             its bounds and counts bank conflicts.
//   cudalab::reinterpret_global<U>(p)
//                             view global memory as another type (float4 for
//                             16-byte accesses), keeping the emulator's trace.
//
// Everything whose definition differs between the backends lives in the
// inline namespace CUDALAB_BACKEND (on_gpu / on_emu), so one test binary can
// link both builds of a lab without two definitions of one name. The same
// binary also links the lab's reference (solutions/) built a second time,
// with CUDALAB_REFERENCE=1, in on_gpu_reference / on_emu_reference: the tests
// grade each exercise against the reference for the parts it does not own.
#pragma once

#include <cstddef>
#include <utility>

#ifndef CUDALAB_REFERENCE
#define CUDALAB_REFERENCE 0
#endif
// CUDALAB_INTERPRET=1: the tile library's interpreter build (lab 05), whose
// programs run as plain loops on one CPU thread over emulator memory; its
// names live in on_interp / on_interp_reference.
#ifndef CUDALAB_INTERPRET
#define CUDALAB_INTERPRET 0
#endif

#if defined(__CUDACC__)
#define CUDALAB_GPU 1
#if CUDALAB_REFERENCE
#define CUDALAB_BACKEND on_gpu_reference
#else
#define CUDALAB_BACKEND on_gpu
#endif
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#else
#define CUDALAB_GPU 0
#if CUDALAB_INTERPRET && CUDALAB_REFERENCE
#define CUDALAB_BACKEND on_interp_reference
#elif CUDALAB_INTERPRET
#define CUDALAB_BACKEND on_interp
#elif CUDALAB_REFERENCE
#define CUDALAB_BACKEND on_emu_reference
#else
#define CUDALAB_BACKEND on_emu
#endif
#include "cudalab/emu/shim.hpp"
#endif

namespace cudalab {
inline namespace CUDALAB_BACKEND {

// Grid, block, dynamic shared memory and stream of one launch: the four
// arguments between <<< and >>>.
struct LaunchShape {
  dim3 grid;
  dim3 block;
  std::size_t shared_bytes = 0;
  cudaStream_t stream = nullptr;
};

#if CUDALAB_GPU

template <class T>
using global_ptr = T*;

template <class T, std::size_t N, std::size_t M = 0>
struct shared_array_of {
  using type = T[N][M];
};
template <class T, std::size_t N>
struct shared_array_of<T, N, 0> {
  using type = T[N];
};

template <class To, class From>
__host__ __device__ inline To* reinterpret_global(From* p) {
  return reinterpret_cast<To*>(p);
}

template <class T>
__device__ inline T* dynamic_shared() {
  extern __shared__ unsigned char cudalab_dynamic_shared_memory[];
  return reinterpret_cast<T*>(cudalab_dynamic_shared_memory);
}

template <class... Params, class... Args>
void launch(void (*kernel)(Params...), LaunchShape shape, Args&&... args) {
  kernel<<<shape.grid, shape.block, shape.shared_bytes, shape.stream>>>(
      std::forward<Args>(args)...);
}

#else

template <class T>
using global_ptr = ::cudalab::emu::global_ptr<T>;

template <class T, std::size_t N, std::size_t M = 0>
struct shared_array_of {
  using type = ::cudalab::emu::shared_array<T, N, M>;
};
template <class T, std::size_t N>
struct shared_array_of<T, N, 0> {
  using type = ::cudalab::emu::shared_array<T, N>;
};

template <class To, class From>
inline global_ptr<To> reinterpret_global(global_ptr<From> p) {
  return ::cudalab::emu::reinterpret_global<To>(p);
}

template <class T>
inline T* dynamic_shared() {
  return static_cast<T*>(::cudalab::emu::dynamic_shared_memory());
}

template <class... Params, class... Args>
void launch(void (*kernel)(Params...), LaunchShape shape, Args&&... args) {
  ::cudalab::emu::launch_kernel(kernel, shape.grid, shape.block, shape.shared_bytes, shape.stream,
                                std::forward<Args>(args)...);
}

#endif

template <class T, std::size_t N, std::size_t M = 0>
using shared_array = typename shared_array_of<T, N, M>::type;

// The chevron form's two-argument shorthand.
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, Args&&... args) {
  launch(kernel, LaunchShape{grid, block}, std::forward<Args>(args)...);
}

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab
