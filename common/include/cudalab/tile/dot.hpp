// tl.dot(a, b, acc): acc + a @ b for an [M, K] and a [K, N] block, with an
// fp32 accumulator whatever the inputs (fp32, fp16, bf16).
//
// Lowering: both operands are staged in shared memory in their row-major
// order (each thread writes the elements it holds: conflict-free), then each
// thread computes the output elements it holds, k by k, with fused
// multiply-adds in fp32 (a product of two fp16 or bf16 values is exact in
// fp32). Each thread's elements of an [M, N] block with N >= 32 share
// columns within a warp, so a warp reads one row element of A (a broadcast)
// and 32 consecutive elements of B per k.
#pragma once

#include <type_traits>

#include "cudalab/tile/block.hpp"

namespace cudalab::tile {
inline namespace CUDALAB_BACKEND {

namespace detail {

template <class T>
__device__ inline float widened(T x) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(x);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(x);
  } else {
    return static_cast<float>(x);
  }
}

}  // namespace detail

template <class TA, class TB, int M, int K, int N>
__device__ inline Block<float, M, N> dot(const Block<TA, M, K>& a, const Block<TB, K, N>& b,
                                         Block<float, M, N> acc) {
  if constexpr (kThreads == 1) {
    for (int r = 0; r < M; ++r) {
      for (int c = 0; c < N; ++c) {
        float sum = acc.v[r * N + c];
        for (int k = 0; k < K; ++k) {
          sum = fmaf(detail::widened(a.v[r * K + k]), detail::widened(b.v[k * N + c]), sum);
        }
        acc.v[r * N + c] = sum;
      }
    }
  } else {
    TA* a_shared = detail::scratch<TA, M * K, 1>();  // (M, K)
    TB* b_shared = detail::scratch<TB, K * N, 2>();  // (K, N)
    for (int i = 0; i < a.per_thread; ++i) {
      if (a.valid(i)) a_shared[a.element(i)] = a.v[i];
    }
    for (int i = 0; i < b.per_thread; ++i) {
      if (b.valid(i)) b_shared[b.element(i)] = b.v[i];
    }
    detail::sync_program();
    for (int i = 0; i < acc.per_thread; ++i) {
      if (!acc.valid(i)) continue;
      const int r = acc.row(i), c = acc.column(i);
      float sum = acc.v[i];
      for (int k = 0; k < K; ++k) {
        sum = fmaf(detail::widened(a_shared[r * K + k]), detail::widened(b_shared[k * N + c]), sum);
      }
      acc.v[i] = sum;
    }
    detail::sync_program();
  }
  return acc;
}

// tl.dot(a, b): a @ b from zero.
template <class TA, class TB, int M, int K, int N>
__device__ inline Block<float, M, N> dot(const Block<TA, M, K>& a, const Block<TB, K, N>& b) {
  return dot(a, b, zeros<float, M, N>());
}

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab::tile
