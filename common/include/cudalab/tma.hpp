// The Tensor Memory Accelerator on both backends: bulk tensor copies of a
// box (1 to 5 dimensions) between a tensor in global memory, described by a
// CUtensorMap, and shared memory.
//
// Host:
//   CUtensorMap map = cudalab::make_tensor_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, d_ptr,
//                                              {cols, rows}, {row_bytes}, {box_cols, box_rows},
//                                              CU_TENSOR_MAP_SWIZZLE_128B);
//   (cuTensorMapEncodeTiled reached through cudaGetDriverEntryPointByVersion,
//   as CUDA code without libcuda does; dimension 0 is the contiguous one,
//   strides are in bytes, for dimensions 1 and up; a failure throws
//   CudaError naming the argument on the emulator.) Pass it to the kernel as
//   a `const __grid_constant__ CUtensorMap` parameter.
// Device (sm_90):
//   cudalab::tma_load(smem, &map, bar, x[, y[, z[, w[, v]]]])
//       cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes:
//       the box whose first element is at (x, y, ...) to `smem` (128-byte
//       aligned; 1024 for the 128-byte swizzle), completing the box's bytes
//       on `bar` (announce them with mbarrier_arrive_expect_tx); elements
//       outside the tensor read as zero (or NaN, with the NaN fill).
//   cudalab::tma_load_multicast(smem, &map, bar, cta_mask, x[, y[, ...]])
//       the same with .multicast::cluster: the box lands at smem's shared
//       offset in every block of the cluster whose rank's bit is set in the
//       16-bit cta_mask, completing its bytes on the mbarrier at bar's offset
//       in that block (each announces them on its own barrier).
//   cudalab::tma_store(&map, smem, x[, y[, ...]])
//       cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group: the box back,
//       elements outside the tensor skipped. Before it, the threads' shared
//       stores need cudalab::fence_proxy_async_shared() and a __syncthreads().
//   cudalab::bulk_commit_group()        cp.async.bulk.commit_group
//   cudalab::bulk_wait_group_read<N>()  cp.async.bulk.wait_group.read N: the
//                                       shared box of all but N groups may be reused
//   cudalab::bulk_wait_group<N>()       cp.async.bulk.wait_group N: their global writes done
// The shared layout under each swizzle mode: cudalab/tma_swizzle.hpp.
//
// On the emulator (cudalab/emu/tma.hpp) a load lands late on its mbarrier
// like cp.async.bulk, and a store is done when issued, so the wait_groups
// have nothing left to wait for (docs/emulator.md, "TMA").
#pragma once

#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "cudalab/check.hpp"
#include "cudalab/mbarrier.hpp"

#if !defined(__CUDACC__)
#include <source_location>

#include "cudalab/emu/tma.hpp"
#endif

namespace cudalab {
// In the backend's namespace: a test binary links an emulator and a GPU
// translation unit, and each must keep its own (one encodes for the driver,
// the other for the emulator).
inline namespace CUDALAB_BACKEND {

// The tensor map of a tensor at `base` (16-byte aligned) with `dims`
// elements along each dimension (dimension 0 contiguous), `strides` in bytes
// between consecutive indices of dimensions 1 and up (multiples of 16), and a
// box of `box` elements; every element stride 1.
inline CUtensorMap make_tensor_map(
    CUtensorMapDataType type, const void* base, std::initializer_list<std::uint64_t> dims,
    std::initializer_list<std::uint64_t> strides, std::initializer_list<std::uint32_t> box,
    CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE,
    CUtensorMapFloatOOBfill fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) {
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
  CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000,
                                              cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess || !entry) {
    throw CudaError(ErrorSite{"CUDA driver", static_cast<int>(found), "cuTensorMapEncodeTiled",
                              "the driver has no cuTensorMapEncodeTiled (CUDA 12.0 or newer)",
                              "cudaGetDriverEntryPointByVersion", __FILE__, __LINE__});
  }
  using Encode =
      CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                   const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                   CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  const auto encode = reinterpret_cast<Encode>(entry);
  const cuuint32_t element_strides[5] = {1, 1, 1, 1, 1};
  // Never a null array, even for rank 1 (no strides): the driver refused a
  // rank-1 map whose strides were an empty list's null pointer (an H100,
  // 2026-12-07).
  cuuint64_t stride_array[4] = {0, 0, 0, 0};
  std::copy(strides.begin(), strides.begin() + std::min<std::size_t>(strides.size(), 4),
            stride_array);
  const auto rank = static_cast<cuuint32_t>(dims.size());
  const bool shapes_agree = rank == box.size() && rank == strides.size() + 1 && rank <= 5;
  // Encoded in a local of its own: the driver wants a 64-byte aligned map,
  // and the caller's slot for the returned one (a discarded temporary) need
  // not be, with GCC.
  CUtensorMap encoded{};
  const CUresult status = shapes_agree ? encode(&encoded, type, rank, const_cast<void*>(base),
                                                dims.begin(), stride_array, box.begin(),
                                                element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                                swizzle, CU_TENSOR_MAP_L2_PROMOTION_NONE, fill)
                                       : CUDA_ERROR_INVALID_VALUE;
  if (status != CUDA_SUCCESS) {
#if defined(__CUDACC__)
    const std::string refused =
        "the driver refused the arguments (cuTensorMapEncodeTiled's documented requirements)";
#else
    const std::string refused = emu::last_tensor_map_error();
#endif
    throw CudaError(ErrorSite{
        "CUDA driver", static_cast<int>(status), "CUDA_ERROR_INVALID_VALUE",
        shapes_agree ? refused : "dims and box need 1 to 5 entries each, strides one fewer",
        "cuTensorMapEncodeTiled", __FILE__, __LINE__});
  }
  CUtensorMap map = encoded;
  return map;
}

}  // namespace CUDALAB_BACKEND

#if defined(__CUDACC__)

namespace tma_detail {
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
}  // namespace tma_detail

__device__ __forceinline__ void tma_load(void* smem, const CUtensorMap* map, std::uint64_t* bar,
                                         int x) {
  asm volatile(
      "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2}], [%3];" ::"r"(tma_detail::shared_address(smem)),
      "l"(map), "r"(x), "r"(tma_detail::shared_address(bar))
      : "memory");
}
__device__ __forceinline__ void tma_load(void* smem, const CUtensorMap* map, std::uint64_t* bar,
                                         int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(tma_detail::shared_address(smem)),
      "l"(map), "r"(x), "r"(y), "r"(tma_detail::shared_address(bar))
      : "memory");
}
__device__ __forceinline__ void tma_load(void* smem, const CUtensorMap* map, std::uint64_t* bar,
                                         int x, int y, int z) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(tma_detail::shared_address(smem)),
      "l"(map), "r"(x), "r"(y), "r"(z), "r"(tma_detail::shared_address(bar))
      : "memory");
}
__device__ __forceinline__ void tma_load(void* smem, const CUtensorMap* map, std::uint64_t* bar,
                                         int x, int y, int z, int w) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4, %5}], [%6];" ::"r"(tma_detail::shared_address(smem)),
      "l"(map), "r"(x), "r"(y), "r"(z), "r"(w), "r"(tma_detail::shared_address(bar))
      : "memory");
}
__device__ __forceinline__ void tma_load(void* smem, const CUtensorMap* map, std::uint64_t* bar,
                                         int x, int y, int z, int w, int v) {
  asm volatile(
      "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4, %5, %6}], [%7];" ::"r"(tma_detail::shared_address(smem)),
      "l"(map), "r"(x), "r"(y), "r"(z), "r"(w), "r"(v), "r"(tma_detail::shared_address(bar))
      : "memory");
}

__device__ __forceinline__ void tma_load_multicast(void* smem, const CUtensorMap* map,
                                                   std::uint64_t* bar, std::uint16_t cta_mask,
                                                   int x) {
  asm volatile(
      "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3}], [%4], %2;" ::"r"(tma_detail::shared_address(smem)),
      "l"(map), "h"(cta_mask), "r"(x), "r"(tma_detail::shared_address(bar))
      : "memory");
}
__device__ __forceinline__ void tma_load_multicast(void* smem, const CUtensorMap* map,
                                                   std::uint64_t* bar, std::uint16_t cta_mask,
                                                   int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4}], [%5], %2;" ::"r"(tma_detail::shared_address(smem)),
      "l"(map), "h"(cta_mask), "r"(x), "r"(y), "r"(tma_detail::shared_address(bar))
      : "memory");
}
__device__ __forceinline__ void tma_load_multicast(void* smem, const CUtensorMap* map,
                                                   std::uint64_t* bar, std::uint16_t cta_mask,
                                                   int x, int y, int z) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4, %5}], [%6], %2;" ::"r"(
          tma_detail::shared_address(smem)),
      "l"(map), "h"(cta_mask), "r"(x), "r"(y), "r"(z), "r"(tma_detail::shared_address(bar))
      : "memory");
}
__device__ __forceinline__ void tma_load_multicast(void* smem, const CUtensorMap* map,
                                                   std::uint64_t* bar, std::uint16_t cta_mask,
                                                   int x, int y, int z, int w) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4, %5, %6}], [%7], %2;" ::"r"(
          tma_detail::shared_address(smem)),
      "l"(map), "h"(cta_mask), "r"(x), "r"(y), "r"(z), "r"(w), "r"(tma_detail::shared_address(bar))
      : "memory");
}
__device__ __forceinline__ void tma_load_multicast(void* smem, const CUtensorMap* map,
                                                   std::uint64_t* bar, std::uint16_t cta_mask,
                                                   int x, int y, int z, int w, int v) {
  asm volatile(
      "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4, %5, %6, %7}], [%8], %2;" ::"r"(
          tma_detail::shared_address(smem)),
      "l"(map), "h"(cta_mask), "r"(x), "r"(y), "r"(z), "r"(w), "r"(v),
      "r"(tma_detail::shared_address(bar))
      : "memory");
}

__device__ __forceinline__ void tma_store(const CUtensorMap* map, const void* smem, int x) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];" ::"l"(map),
               "r"(tma_detail::shared_address(smem)), "r"(x)
               : "memory");
}
__device__ __forceinline__ void tma_store(const CUtensorMap* map, const void* smem, int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(map),
      "r"(tma_detail::shared_address(smem)), "r"(x), "r"(y)
      : "memory");
}
__device__ __forceinline__ void tma_store(const CUtensorMap* map, const void* smem, int x, int y,
                                          int z) {
  asm volatile(
      "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(map),
      "r"(tma_detail::shared_address(smem)), "r"(x), "r"(y), "r"(z)
      : "memory");
}
__device__ __forceinline__ void tma_store(const CUtensorMap* map, const void* smem, int x, int y,
                                          int z, int w) {
  asm volatile(
      "cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];" ::"l"(
          map),
      "r"(tma_detail::shared_address(smem)), "r"(x), "r"(y), "r"(z), "r"(w)
      : "memory");
}
__device__ __forceinline__ void tma_store(const CUtensorMap* map, const void* smem, int x, int y,
                                          int z, int w, int v) {
  asm volatile(
      "cp.async.bulk.tensor.5d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5, %6}], [%1];" ::
          "l"(map),
      "r"(tma_detail::shared_address(smem)), "r"(x), "r"(y), "r"(z), "r"(w), "r"(v)
      : "memory");
}

__device__ __forceinline__ void bulk_commit_group() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
template <int N>
__device__ __forceinline__ void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}

#else

// noinline: the return address is the kernel's call, where the copy's
// accesses are traced and reported (inlined, they would name this line).
namespace tma_detail {
using Here = std::source_location;
}

[[gnu::noinline]] inline void tma_load(void* smem, const CUtensorMap* map, std::uint64_t* bar,
                                       int x, tma_detail::Here site = tma_detail::Here::current()) {
  const int c[] = {x};
  emu::tensor_load(smem, map, 1, c, bar, __builtin_return_address(0), site);
}
[[gnu::noinline]] inline void tma_load(void* smem, const CUtensorMap* map, std::uint64_t* bar,
                                       int x, int y,
                                       tma_detail::Here site = tma_detail::Here::current()) {
  const int c[] = {x, y};
  emu::tensor_load(smem, map, 2, c, bar, __builtin_return_address(0), site);
}
[[gnu::noinline]] inline void tma_load(void* smem, const CUtensorMap* map, std::uint64_t* bar,
                                       int x, int y, int z,
                                       tma_detail::Here site = tma_detail::Here::current()) {
  const int c[] = {x, y, z};
  emu::tensor_load(smem, map, 3, c, bar, __builtin_return_address(0), site);
}
[[gnu::noinline]] inline void tma_load(void* smem, const CUtensorMap* map, std::uint64_t* bar,
                                       int x, int y, int z, int w,
                                       tma_detail::Here site = tma_detail::Here::current()) {
  const int c[] = {x, y, z, w};
  emu::tensor_load(smem, map, 4, c, bar, __builtin_return_address(0), site);
}
[[gnu::noinline]] inline void tma_load(void* smem, const CUtensorMap* map, std::uint64_t* bar,
                                       int x, int y, int z, int w, int v,
                                       tma_detail::Here site = tma_detail::Here::current()) {
  const int c[] = {x, y, z, w, v};
  emu::tensor_load(smem, map, 5, c, bar, __builtin_return_address(0), site);
}

[[gnu::noinline]] inline void tma_load_multicast(
    void* smem, const CUtensorMap* map, std::uint64_t* bar, std::uint16_t cta_mask, int x,
    tma_detail::Here site = tma_detail::Here::current()) {
  const int c[] = {x};
  emu::tensor_load_multicast(smem, map, 1, c, bar, cta_mask, __builtin_return_address(0), site);
}
[[gnu::noinline]] inline void tma_load_multicast(
    void* smem, const CUtensorMap* map, std::uint64_t* bar, std::uint16_t cta_mask, int x, int y,
    tma_detail::Here site = tma_detail::Here::current()) {
  const int c[] = {x, y};
  emu::tensor_load_multicast(smem, map, 2, c, bar, cta_mask, __builtin_return_address(0), site);
}
[[gnu::noinline]] inline void tma_load_multicast(
    void* smem, const CUtensorMap* map, std::uint64_t* bar, std::uint16_t cta_mask, int x, int y,
    int z, tma_detail::Here site = tma_detail::Here::current()) {
  const int c[] = {x, y, z};
  emu::tensor_load_multicast(smem, map, 3, c, bar, cta_mask, __builtin_return_address(0), site);
}
[[gnu::noinline]] inline void tma_load_multicast(
    void* smem, const CUtensorMap* map, std::uint64_t* bar, std::uint16_t cta_mask, int x, int y,
    int z, int w, tma_detail::Here site = tma_detail::Here::current()) {
  const int c[] = {x, y, z, w};
  emu::tensor_load_multicast(smem, map, 4, c, bar, cta_mask, __builtin_return_address(0), site);
}
[[gnu::noinline]] inline void tma_load_multicast(
    void* smem, const CUtensorMap* map, std::uint64_t* bar, std::uint16_t cta_mask, int x, int y,
    int z, int w, int v, tma_detail::Here site = tma_detail::Here::current()) {
  const int c[] = {x, y, z, w, v};
  emu::tensor_load_multicast(smem, map, 5, c, bar, cta_mask, __builtin_return_address(0), site);
}

[[gnu::noinline]] inline void tma_store(const CUtensorMap* map, const void* smem, int x,
                                        tma_detail::Here site = tma_detail::Here::current()) {
  const int c[] = {x};
  emu::tensor_store(map, 1, c, smem, __builtin_return_address(0), site);
}
[[gnu::noinline]] inline void tma_store(const CUtensorMap* map, const void* smem, int x, int y,
                                        tma_detail::Here site = tma_detail::Here::current()) {
  const int c[] = {x, y};
  emu::tensor_store(map, 2, c, smem, __builtin_return_address(0), site);
}
[[gnu::noinline]] inline void tma_store(const CUtensorMap* map, const void* smem, int x, int y,
                                        int z,
                                        tma_detail::Here site = tma_detail::Here::current()) {
  const int c[] = {x, y, z};
  emu::tensor_store(map, 3, c, smem, __builtin_return_address(0), site);
}
[[gnu::noinline]] inline void tma_store(const CUtensorMap* map, const void* smem, int x, int y,
                                        int z, int w,
                                        tma_detail::Here site = tma_detail::Here::current()) {
  const int c[] = {x, y, z, w};
  emu::tensor_store(map, 4, c, smem, __builtin_return_address(0), site);
}
[[gnu::noinline]] inline void tma_store(const CUtensorMap* map, const void* smem, int x, int y,
                                        int z, int w, int v,
                                        tma_detail::Here site = tma_detail::Here::current()) {
  const int c[] = {x, y, z, w, v};
  emu::tensor_store(map, 5, c, smem, __builtin_return_address(0), site);
}

// A store is done when issued: nothing is left to wait for.
inline void bulk_commit_group() {}
template <int N>
inline void bulk_wait_group_read() {}
template <int N>
inline void bulk_wait_group() {}

#endif

}  // namespace cudalab
