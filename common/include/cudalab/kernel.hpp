// The one header a lab's kernel file (.cuh) includes.
//
// A lab's kernels are plain CUDA (`T*` pointers, `__shared__` arrays,
// `k<<<grid, block, shared_bytes, stream>>>(args...)`), compiled twice: by
// nvcc for the GPU and by the host compiler for the CPU emulator, whose build
// rewrites the launches and __shared__ declarations (tools/emu_rewrite.py) and
// instruments every access (docs/emulator.md). This header picks the backend
// and gives both the same few extra names:
//
//   cudalab::LaunchShape      the four values between <<< and >>>, to pass a
//                             launch's shape around as one value.
//   cudalab::dynamic_shared<T>()
//                             the block's dynamic shared memory, what
//                             `extern __shared__ T smem[];` gives in CUDA.
//
// Everything whose definition differs between the backends lives in the
// inline namespace CUDALAB_BACKEND (on_gpu / on_emu), so one test binary can
// link both builds of a lab without two definitions of one name. The same
// binary also links the lab's reference (solutions/) built a second time,
// with CUDALAB_REFERENCE=1, in on_gpu_reference / on_emu_reference: the tests
// grade each exercise against the reference for the parts it does not own.
#pragma once

#include <cstddef>

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
__device__ inline T* dynamic_shared() {
  extern __shared__ unsigned char cudalab_dynamic_shared_memory[];
  return reinterpret_cast<T*>(cudalab_dynamic_shared_memory);
}
#else
template <class T>
inline T* dynamic_shared() {
  return static_cast<T*>(::cudalab::emu::dynamic_shared_memory());
}
#endif

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab
