// tl.dot(a, b, acc): acc + a @ b for an [M, K] and a [K, N] block, with an
// fp32 accumulator whatever the inputs (fp32, fp16, bf16).
//
// Two lowerings:
//   * tensor cores, for fp16 and bf16 inputs when M % 32, N % 16 and K % 16
//     are 0: both operands are staged in shared memory (A row-major, B
//     transposed, rows padded by 8 halves so that the fragment reads of a
//     warp hit 32 different banks), then each of the 4 warps computes one
//     (M/2, N/2) quarter of the output with mma.sync m16n8k16 (cudalab/mma.hpp:
//     the instruction on the GPU, its bit-exact model on the emulator);
//   * fused multiply-adds in fp32 otherwise (fp32 inputs, small shapes, the
//     interpreter): the operands staged the same way, each thread computing
//     the output elements it holds.
//
// The accumulator. mma.sync leaves each output element in a register of the
// lane the instruction chooses (the "fragment" layout), not of thread
// e % kThreads. tile::Accumulator<M, N> keeps the output in that layout
// across K steps; Triton chooses this layout for a dot's result by itself, in
// C++ the program names it:
//
//   tile::Accumulator<BM, BN> acc;              // zeros, in the tensor core's layout
//   for (...) acc = tile::dot(a, b, acc);       // no element moves between threads
//   tile::store(c, offsets, acc, mask);         // one conversion, at the end
//
// dot with a Block<float, M, N> accumulator gives the same values, but
// converts the accumulator to the fragment layout and back through shared
// memory at every call.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cudalab/mma.hpp"
#include "cudalab/tile/block.hpp"
#include "cudalab/tile/memory.hpp"

namespace cudalab::tile {
inline namespace CUDALAB_BACKEND {

namespace detail {

template <class T>
inline constexpr bool tensor_core_type =
    std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

// The 4 warps of a program as 2 x 2, each owning an (M/2, N/2) quarter made
// of m16 x n8 tiles.
template <int M, int N>
inline constexpr bool fragment_shape = kThreads == 128 && M % 32 == 0 && N % 16 == 0;

// Halves of padding after each staged row (see the header comment).
inline constexpr int kStagePad = 8;

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

// An [M, N] fp32 block in the tensor core's fragment layout when the shape
// allows it (fragment_shape), else in the block layout; zeros when made.
template <int M, int N>
class Accumulator {
 public:
  static constexpr bool fragments = detail::fragment_shape<M, N>;
  static constexpr int size = M * N;
  static constexpr int per_thread = Block<float, M, N>::per_thread;
  static constexpr int tiles_m = M / 32;  // m16 tiles per warp (fragment layout)
  static constexpr int tiles_n = N / 16;  // n8 tiles per warp

  // The row and column of slot s of this thread. Fragment layout: slot
  // (tm * tiles_n + tn) * 4 + j is register c[j] of the m16n8 tile (tm, tn)
  // of this warp's quarter: lane l holds rows l/4 and l/4 + 8, columns
  // 2 (l%4) and 2 (l%4) + 1.
  __device__ static int row(int s) {
    if constexpr (fragments) {
      const int warp = thread_rank() / 32, lane = thread_rank() % 32;
      const int tm = s / 4 / tiles_n;
      return (warp / 2) * (M / 2) + tm * 16 + lane / 4 + (s % 4 >= 2 ? 8 : 0);
    } else {
      return Block<float, M, N>::row(s);
    }
  }
  __device__ static int column(int s) {
    if constexpr (fragments) {
      const int warp = thread_rank() / 32, lane = thread_rank() % 32;
      const int tn = s / 4 % tiles_n;
      return (warp % 2) * (N / 2) + tn * 8 + 2 * (lane % 4) + s % 2;
    } else {
      return Block<float, M, N>::column(s);
    }
  }
  __device__ static bool valid(int s) { return Block<float, M, N>::valid(s); }

  float v[per_thread] = {};
};

namespace detail {

// dest <- src for two layouts of one [M, N] fp32 block (Block and
// Accumulator): every element written to shared memory at its (row, column)
// by the thread that holds it, then read by the thread that is to hold it;
// in bands of rows, since a 128 x 128 fp32 block would not fit the 48 KiB of
// static shared memory.
template <int M, int N, class Dest, class Src>
__device__ inline void relayout(Dest& dest, const Src& src) {
  if constexpr (kThreads == 1 || !Accumulator<M, N>::fragments) {
    for (int s = 0; s < Dest::per_thread; ++s) dest.v[s] = src.v[s];  // one layout
  } else {
    constexpr int kBandBytes = 16 * 1024;
    constexpr int band =
        M * N * 4 <= kBandBytes ? M : (kBandBytes / (N * 4) > 0 ? kBandBytes / (N * 4) : 1);
    float* shared = scratch<float, band * N, 3>();
    for (int first = 0; first < M; first += band) {
      for (int s = 0; s < Src::per_thread; ++s) {
        const int r = Src::row(s) - first;
        if (src.valid(s) && r >= 0 && r < band) shared[r * N + Src::column(s)] = src.v[s];
      }
      sync_program();
      for (int s = 0; s < Dest::per_thread; ++s) {
        const int r = Dest::row(s) - first;
        if (dest.valid(s) && r >= 0 && r < band) dest.v[s] = shared[r * N + Dest::column(s)];
      }
      sync_program();
    }
  }
}

// A staged as (M, K) row-major and B as (N, K) (transposed), rows kStagePad
// halves longer than K, so that the fragments' 32-bit reads are conflict-free.
template <class T, int M, int K, int N>
__device__ inline void stage(const Block<T, M, K>& a, const Block<T, K, N>& b, T* a_shared,
                             T* b_shared) {
  constexpr int stride = K + kStagePad;
  for (int i = 0; i < a.per_thread; ++i) {
    if (a.valid(i)) a_shared[a.row(i) * stride + a.column(i)] = a.v[i];
  }
  for (int i = 0; i < b.per_thread; ++i) {
    if (b.valid(i)) b_shared[b.column(i) * stride + b.row(i)] = b.v[i];
  }
}

// Two consecutive 16-bit elements of shared memory as one 32-bit register,
// the lower-numbered one in the low half (an mma operand register).
template <class T>
__device__ inline std::uint32_t pair_at(const T* p) {
#if CUDALAB_GPU
  return *reinterpret_cast<const std::uint32_t*>(p);
#else
  std::uint32_t bits;
  std::memcpy(&bits, p, sizeof bits);
  return bits;
#endif
}

template <class T>
__device__ inline void mma_16x8x16(float* d, const std::uint32_t* a, const std::uint32_t* b) {
  if constexpr (std::is_same_v<T, __half>) {
    ::cudalab::mma_m16n8k16_f16(d, a, b, d);
  } else {
    ::cudalab::mma_m16n8k16_bf16(d, a, b, d);
  }
}

// acc += a @ b on the tensor cores, acc in the fragment layout.
template <class T, int M, int K, int N>
__device__ inline void dot_mma(const Block<T, M, K>& a, const Block<T, K, N>& b,
                               Accumulator<M, N>& acc) {
  using Acc = Accumulator<M, N>;
  constexpr int stride = K + kStagePad;
  T* a_shared = scratch<T, M * stride, 1>();  // (M, K), padded
  T* b_shared = scratch<T, N * stride, 2>();  // (N, K), padded
  stage(a, b, a_shared, b_shared);
  sync_program();
  const int warp = thread_rank() / 32, lane = thread_rank() % 32;
  const int g = lane / 4, q = lane % 4;
  const int first_row = (warp / 2) * (M / 2), first_column = (warp % 2) * (N / 2);
  for (int k = 0; k < K; k += 16) {
    std::uint32_t a_fragment[Acc::tiles_m][4];
    for (int tm = 0; tm < Acc::tiles_m; ++tm) {
      const T* top = a_shared + (first_row + tm * 16 + g) * stride + k + 2 * q;  // row g
      const T* bottom = top + 8 * stride;                                        // row g + 8
      a_fragment[tm][0] = pair_at(top);
      a_fragment[tm][1] = pair_at(bottom);
      a_fragment[tm][2] = pair_at(top + 8);
      a_fragment[tm][3] = pair_at(bottom + 8);
    }
    for (int tn = 0; tn < Acc::tiles_n; ++tn) {
      const T* column = b_shared + (first_column + tn * 8 + g) * stride + k + 2 * q;
      const std::uint32_t b_fragment[2] = {pair_at(column), pair_at(column + 8)};
      for (int tm = 0; tm < Acc::tiles_m; ++tm) {
        mma_16x8x16<T>(acc.v + (tm * Acc::tiles_n + tn) * 4, a_fragment[tm], b_fragment);
      }
    }
  }
  sync_program();
}

// acc += a @ b with fp32 fused multiply-adds, acc in any layout (Block or
// Accumulator: Acc::row/column say where each slot is).
template <class TA, class TB, int M, int K, int N, class Acc>
__device__ inline void dot_fma(const Block<TA, M, K>& a, const Block<TB, K, N>& b, Acc& acc) {
  if constexpr (kThreads == 1) {
    for (int e = 0; e < M * N; ++e) {
      const int r = e / N, c = e % N;
      float sum = acc.v[e];
      for (int k = 0; k < K; ++k) {
        sum = fmaf(widened(a.v[r * K + k]), widened(b.v[k * N + c]), sum);
      }
      acc.v[e] = sum;
    }
  } else {
    TA* a_shared = scratch<TA, M * K, 1>();  // (M, K)
    TB* b_shared = scratch<TB, K * N, 2>();  // (K, N)
    for (int i = 0; i < a.per_thread; ++i) {
      if (a.valid(i)) a_shared[a.element(i)] = a.v[i];
    }
    for (int i = 0; i < b.per_thread; ++i) {
      if (b.valid(i)) b_shared[b.element(i)] = b.v[i];
    }
    sync_program();
    for (int s = 0; s < Acc::per_thread; ++s) {
      if (!acc.valid(s)) continue;
      const int r = Acc::row(s), c = Acc::column(s);
      float sum = acc.v[s];
      for (int k = 0; k < K; ++k) {
        sum = fmaf(widened(a_shared[r * K + k]), widened(b_shared[k * N + c]), sum);
      }
      acc.v[s] = sum;
    }
    sync_program();
  }
}

}  // namespace detail

// acc + a @ b, the accumulator kept in the tensor core's layout.
template <class TA, class TB, int M, int K, int N>
__device__ inline Accumulator<M, N> dot(const Block<TA, M, K>& a, const Block<TB, K, N>& b,
                                        Accumulator<M, N> acc) {
  if constexpr (std::is_same_v<TA, TB> && detail::tensor_core_type<TA> &&
                Accumulator<M, N>::fragments && K % 16 == 0) {
    detail::dot_mma(a, b, acc);
  } else {
    detail::dot_fma(a, b, acc);
  }
  return acc;
}

// acc + a @ b with the accumulator in the block layout (converted to the
// tensor core's layout and back when the tensor cores compute it).
template <class TA, class TB, int M, int K, int N>
__device__ inline Block<float, M, N> dot(const Block<TA, M, K>& a, const Block<TB, K, N>& b,
                                         Block<float, M, N> acc) {
  if constexpr (std::is_same_v<TA, TB> && detail::tensor_core_type<TA> &&
                Accumulator<M, N>::fragments && K % 16 == 0) {
    Accumulator<M, N> fragments;
    detail::relayout<M, N>(fragments, acc);
    fragments = dot(a, b, fragments);
    detail::relayout<M, N>(acc, fragments);
  } else {
    detail::dot_fma(a, b, acc);
  }
  return acc;
}

// tl.dot(a, b): a @ b from zero.
template <class TA, class TB, int M, int K, int N>
__device__ inline Block<float, M, N> dot(const Block<TA, M, K>& a, const Block<TB, K, N>& b) {
  return dot(a, b, zeros<float, M, N>());
}

// The accumulator in the block layout (element e on thread e % kThreads).
template <int M, int N>
__device__ inline Block<float, M, N> to_block(const Accumulator<M, N>& acc) {
  Block<float, M, N> out;
  detail::relayout<M, N>(out, acc);
  return out;
}

// tl.store of a dot's result: converted to the block layout once, then
// stored like any block.
template <class T, class Offsets, int M, int N, class Mask>
__device__ inline void store(T* ptr, const Offsets& offsets, const Accumulator<M, N>& acc,
                             const Mask& mask) {
  store(ptr, offsets, to_block(acc), mask);
}

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab::tile
