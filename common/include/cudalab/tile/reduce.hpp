// Reductions: sum, max and min of a whole block (a scalar every thread gets)
// or along one axis of a two-dimensional block (a one-dimensional block).
//
// Lowering, in three steps, as a hand-written CUDA reduction does it:
//   1. each thread combines the elements it holds that reduce together;
//   2. the threads of a warp that share an output combine their values with
//      __shfl_xor_sync (no shared memory, no barrier);
//   3. one lane per warp writes its partial result to shared memory,
//      __syncthreads, and the thread that owns each output element (element
//      o on thread o % kThreads, the block layout) combines the partials;
//      a whole-block reduction's partials are read by every thread.
// Along axis 0 of an [M, N] block with N a multiple of kThreads each column
// lives on one thread, and step 1 is all there is.
#pragma once

#include <cmath>
#include <limits>

#include "cudalab/tile/block.hpp"

namespace cudalab::tile {
inline namespace CUDALAB_BACKEND {

namespace detail {

struct SumOp {
  template <class T>
  __device__ static T identity() {
    return T(0);
  }
  template <class T>
  __device__ T operator()(T a, T b) const {
    return a + b;
  }
};
// max and min propagate NaN, as Triton's do.
struct MaxOp {
  template <class T>
  __device__ static T identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
    return std::numeric_limits<T>::lowest();
  }
  template <class T>
  __device__ T operator()(T a, T b) const {
    return nan_max(a, b);
  }
};
struct MinOp {
  template <class T>
  __device__ static T identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) return std::numeric_limits<T>::infinity();
    return std::numeric_limits<T>::max();
  }
  template <class T>
  __device__ T operator()(T a, T b) const {
    return nan_min(a, b);
  }
};

template <class T, class Op>
__device__ inline T warp_combine(T value, Op op, int first_offset, int last_offset) {
#if !CUDALAB_INTERPRET
  for (int offset = first_offset; offset >= last_offset; offset /= 2) {
    value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  }
#endif
  return value;
}

// Reduces each run of Len consecutive elements of x (Rows runs): the rows of
// an [Rows, Len] block, or a whole block as one run. Output element r (the
// Linear layout of Block<T, Rows>) goes to its owner thread, or to every
// thread when Everyone (a whole-block reduction).
template <int Rows, int Len, bool Everyone, class Op, class T, int... S>
__device__ inline Block<T, Rows> reduce_runs(const Block<T, S...>& x, Op op) {
  using X = Block<T, S...>;
  static_assert(X::size == Rows * Len, "reduce_runs: Rows * Len must be the block's size");
  Block<T, Rows> out;
  if constexpr (kThreads == 1) {
    for (int r = 0; r < Rows; ++r) {
      T acc = Op::template identity<T>();
      for (int c = 0; c < Len; ++c) acc = op(acc, x.v[r * Len + c]);
      out.v[r] = acc;
    }
  } else {
    constexpr int G = Len >= kThreads ? Len / kThreads : 1;  // consecutive slots of one run
    constexpr int Parts = X::per_thread / G;                 // runs this thread touches
    constexpr int L = Len < kThreads ? Len : kThreads;       // threads sharing a run per step
    constexpr int W = L < 32 ? L : 32;                       // of them in one warp
    constexpr int Segments = L / W;                          // warps (or parts of one) per run
    const int t = thread_rank();
    T part[Parts];
    for (int j = 0; j < Parts; ++j) {
      part[j] = Op::template identity<T>();
      for (int g = 0; g < G; ++g) {
        if (x.valid(j * G + g)) part[j] = op(part[j], x.v[j * G + g]);
      }
      part[j] = warp_combine(part[j], op, W / 2, 1);
    }
    T* shared = scratch<T, Rows * Segments>();
    if (t % W == 0) {
      for (int j = 0; j < Parts; ++j) {
        const int e = t + j * G * kThreads;
        if (e < X::size) shared[(e / Len) * Segments + (t % L) / W] = part[j];
      }
    }
    sync_program();
    for (int i = 0; i < out.per_thread; ++i) {
      const int o = Everyone ? 0 : out.element(i);
      if (!Everyone && !out.valid(i)) continue;
      T acc = shared[o * Segments];
      for (int q = 1; q < Segments; ++q) acc = op(acc, shared[o * Segments + q]);
      out.v[i] = acc;
    }
    sync_program();
  }
  return out;
}

// Reduces the columns of an [M, N] block (axis 0) into Block<T, N>.
template <class Op, class T, int M, int N>
__device__ inline Block<T, N> reduce_columns(const Block<T, M, N>& x, Op op) {
  Block<T, N> out;
  if constexpr (kThreads == 1) {
    for (int c = 0; c < N; ++c) {
      T acc = Op::template identity<T>();
      for (int r = 0; r < M; ++r) acc = op(acc, x.v[r * N + c]);
      out.v[c] = acc;
    }
  } else if constexpr (N % kThreads == 0) {
    // Column t + k * kThreads is in slots k, k + N / kThreads, ... of thread t:
    // already where the output's layout wants it.
    for (int k = 0; k < out.per_thread; ++k) {
      T acc = Op::template identity<T>();
      for (int i = k; i < x.per_thread; i += out.per_thread) acc = op(acc, x.v[i]);
      out.v[k] = acc;
    }
  } else {
    // Every element of thread t is in column t % N; threads t, t + N, ...
    // share it: lanes first, then one value per warp (or per N threads).
    constexpr int Span = N < 32 ? 32 : N;  // threads per contributor
    constexpr int Contributors = kThreads / Span;
    const int t = thread_rank();
    T acc = Op::template identity<T>();
    for (int i = 0; i < x.per_thread; ++i) {
      if (x.valid(i)) acc = op(acc, x.v[i]);
    }
    if constexpr (N < 32) acc = warp_combine(acc, op, 16, N);
    T* shared = scratch<T, N * Contributors>();
    if (N >= 32 || t % 32 < N) shared[(t % N) * Contributors + t / Span] = acc;
    sync_program();
    if (out.valid(0)) {
      T total = shared[t * Contributors];
      for (int q = 1; q < Contributors; ++q) total = op(total, shared[t * Contributors + q]);
      out.v[0] = total;
    }
    sync_program();
  }
  return out;
}

template <int Axis, class Op, class T, int... Dims>
__device__ inline auto reduce(const Block<T, Dims...>& x, Op op) {
  using X = Block<T, Dims...>;
  static_assert(Axis >= 0 && Axis < X::rank, "tile: the reduction axis is not one of the block's");
  if constexpr (X::rank == 1) {
    return reduce_runs<1, X::size, true>(x, op).v[0];
  } else if constexpr (Axis == 1) {
    return reduce_runs<X::dims[0], X::dims[1], false>(x, op);
  } else {
    return reduce_columns(x, op);
  }
}

}  // namespace detail

// tl.sum(x, axis): a one-dimensional block reduces to a scalar (every thread
// gets it); a two-dimensional one along Axis to a one-dimensional block.
template <int Axis = 0, class T, int... Dims>
__device__ inline auto sum(const Block<T, Dims...>& x) {
  return detail::reduce<Axis>(x, detail::SumOp{});
}
template <int Axis = 0, class T, int... Dims>
__device__ inline auto max(const Block<T, Dims...>& x) {
  return detail::reduce<Axis>(x, detail::MaxOp{});
}
template <int Axis = 0, class T, int... Dims>
__device__ inline auto min(const Block<T, Dims...>& x) {
  return detail::reduce<Axis>(x, detail::MinOp{});
}
// ... of an index block: of its values.
template <int Axis = 0, class F, int... Dims>
__device__ inline auto sum(const IndexBlock<F, Dims...>& x) {
  return sum<Axis>(materialize(x));
}
template <int Axis = 0, class F, int... Dims>
__device__ inline auto max(const IndexBlock<F, Dims...>& x) {
  return max<Axis>(materialize(x));
}
template <int Axis = 0, class F, int... Dims>
__device__ inline auto min(const IndexBlock<F, Dims...>& x) {
  return min<Axis>(materialize(x));
}

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab::tile
