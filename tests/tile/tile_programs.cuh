// The tile programs test_tile.cpp runs: small programs that each exercise a
// part of cudalab::tile. One source, three builds linked into one test
// program, each inside its inline namespace CUDALAB_BACKEND: nvcc
// (tile_programs_gpu.cu), the emulator's rewritten and instrumented copy
// (tile_programs_emu.cpp) and the tile interpreter (tile_programs_interp.cpp).
// tile_backend_impl.hpp launches them; tile_backend.hpp says what each writes.
#pragma once

#include "cudalab/tile/tile.hpp"
#include "tile_backend.hpp"

namespace tile_tests {
inline namespace CUDALAB_BACKEND {

namespace tile = ::cudalab::tile;

// 256 elements per program: two slots per thread, and a masked last program
// for any size that is not a multiple of it.
inline constexpr int kBlock = 256;

// The offsets of this program's kBlock elements: pid * kBlock + arange (an
// index block, as arange's arithmetic is).
__device__ inline auto block_offsets() {
  return tile::program_id(0) * kBlock + tile::arange<kBlock>();
}

// The row-major offsets r * columns + c of an [M, N] block.
template <int M, int N>
__device__ inline auto matrix_offsets(int columns) {
  return tile::as_column(tile::arange<M>()) * columns + tile::as_row(tile::arange<N>());
}

template <int N>
struct Creation {
  __device__ void operator()(float* out, float value) const {
    const auto offsets = tile::arange<N>();
    tile::store(out, offsets, tile::cast<float>(tile::arange<N>()));
    tile::store(out, offsets + N, tile::full<float, N>(value));
    tile::store(out, offsets + 2 * N, tile::zeros<float, N>());
  }
};

struct ProgramIds {
  __device__ void operator()(int* out) const {
    const int ids[6] = {tile::program_id(0),   tile::program_id(1),   tile::program_id(2),
                        tile::num_programs(0), tile::num_programs(1), tile::num_programs(2)};
    const int program = (ids[2] * ids[4] + ids[1]) * ids[3] + ids[0];
    const auto k = tile::arange<8>();
    const auto values = tile::map([&](int j) { return j < 6 ? ids[j] : 0; }, k);
    tile::store(out, program * 6 + k, values, k < 6);
  }
};

// The same integer operations on an index block (arange's arithmetic,
// computed where it is used) and on a Block holding the same values.
struct IntegerOps {
  __device__ void operator()(int* out, int n) const {
    const auto i = block_offsets();
    const auto mask = i < n;
    int row = 0;
    const auto put = [&](const auto& values) { tile::store(out, i + (row++) * n, values, mask); };
    const auto put_operations = [&](const auto& x) {
      put(x % 7);
      put(x / 3);
      put(x & 5);
      put(x | 8);
      put(3 * x - 1);
      put(-x);
    };
    put_operations(i);
    put_operations(tile::materialize(i));
  }
};

struct Elementwise {
  __device__ void operator()(const float* x, const float* y, float* out, int n) const {
    const auto offsets = block_offsets();
    const auto mask = offsets < n;
    const auto a = tile::load(x, offsets, mask);
    const auto b = tile::load(y, offsets, mask);
    const auto put = [&](Op op, const auto& values) {
      tile::store(out, offsets + static_cast<int>(op) * n, values, mask);
    };
    put(Op::add, a + b);
    put(Op::subtract, a - b);
    put(Op::multiply, a * b);
    put(Op::divide, a / b);
    put(Op::negate, -a);
    put(Op::plus_scalar, a + 2.0f);
    put(Op::scalar_minus, 3.0f - a);
    put(Op::less, a < b);
    put(Op::less_equal, a <= b);
    put(Op::greater, a > b);
    put(Op::greater_equal, a >= b);
    put(Op::equal, a == b);
    put(Op::not_equal, a != b);
    put(Op::less_and_positive, (a < b) & (b > 0.0f));
    put(Op::less_or_positive, (a < b) | (b > 0.0f));
    put(Op::not_less, !(a < b));
    put(Op::where_blocks, tile::where(a < b, a, b));
    put(Op::where_block_scalar, tile::where(a < b, a, 1.0f));
    put(Op::where_scalar_block, tile::where(a < b, 2.0f, b));
    put(Op::where_scalars, tile::where(a < b, 1.0f, 2.0f));
    put(Op::maximum, tile::maximum(a, b));
    put(Op::minimum, tile::minimum(a, b));
    put(Op::maximum_scalar, tile::maximum(a, 0.5f));
    put(Op::scalar_minimum, tile::minimum(0.5f, a));
    put(Op::sqrt_abs, tile::sqrt(tile::abs(a)));
    put(Op::exp, tile::exp(a));
    put(Op::exp2, tile::exp2(a));
    put(Op::log_abs, tile::log(tile::abs(a)));
    put(Op::abs, tile::abs(a));
    auto c = a;
    c += b;
    c *= 2.0f;
    c -= a;
    c /= 4.0f;
    put(Op::compound, c);
  }
};

template <class Half>
struct CastTo {
  __device__ void operator()(const float* x, Half* out, int n) const {
    const auto offsets = block_offsets();
    const auto mask = offsets < n;
    tile::store(out, offsets, tile::cast<Half>(tile::load(x, offsets, mask)), mask);
  }
};

template <int M, int N>
struct Broadcasts {
  __device__ void operator()(const float* column, const float* row, const float* matrix,
                             const float* scalar, float* out) const {
    const auto offsets = matrix_offsets<M, N>(N);                 // (M, N)
    const auto c = tile::load(column, tile::arange<M>());         // (M)
    const auto r = tile::load(row, tile::arange<N>());            // (N)
    const auto m = tile::load(matrix, offsets);                   // (M, N)
    const auto s = tile::load(scalar, tile::zeros<int, 1, 1>());  // (1, 1)
    const auto s1 = tile::load(scalar, tile::zeros<int, 1>());    // (1)
    const auto put = [&](Broadcast which, const auto& values) {
      tile::store(out, offsets + static_cast<int>(which) * (M * N), values);
    };
    put(Broadcast::column_plus_row, tile::as_column(c) + tile::as_row(r));
    put(Broadcast::row_plus_matrix, r + m);
    put(Broadcast::row_block_plus_matrix, tile::as_row(r) + m);
    put(Broadcast::scalar_plus_matrix, s + m);
    put(Broadcast::matrix_minus_column, m - tile::as_column(c));
    put(Broadcast::column_broadcast, tile::broadcast_to<M, N>(tile::as_column(c)));
    put(Broadcast::row_broadcast, tile::broadcast_to<M, N>(r));
    put(Broadcast::scalar_broadcast, tile::broadcast_to<M, N>(s1));
  }
};

template <int N>
struct Reduce1D {
  __device__ void operator()(const float* x, int n, float other, float* out) const {
    const auto offsets = tile::arange<N>();
    const auto a = tile::load(x, offsets, offsets < n, other);
    const float total = tile::sum(a), largest = tile::max(a), smallest = tile::min(a);
    const auto k = tile::arange<4>();
    tile::store(out, k, tile::where(k == 0, total, tile::where(k == 1, largest, smallest)), k < 3);
  }
};

template <int M, int N>
struct Reduce2D {
  __device__ void operator()(const float* x, float* out) const {
    const auto a = tile::load(x, matrix_offsets<M, N>(N));  // (M, N)
    const auto columns = tile::arange<N>();
    const auto rows = tile::arange<M>() + 3 * N;
    tile::store(out, columns, tile::sum<0>(a));
    tile::store(out, columns + N, tile::max<0>(a));
    tile::store(out, columns + 2 * N, tile::min<0>(a));
    tile::store(out, rows, tile::sum<1>(a));
    tile::store(out, rows + M, tile::max<1>(a));
    tile::store(out, rows + 2 * M, tile::min<1>(a));
  }
};

struct MaskedLoad {
  __device__ void operator()(const float* x, int n, float other, float* out) const {
    const auto offsets = block_offsets();
    tile::store(out, offsets, tile::load(x, offsets, offsets < n, other));
  }
};

struct MaskedStore {
  __device__ void operator()(const float* x, int n, float* out) const {
    const auto offsets = block_offsets();
    const auto mask = (offsets < n) & (offsets % 3 != 1);
    tile::store(out, offsets, tile::load(x, offsets, mask), mask);
  }
};

struct MaskedLoad2D {
  static constexpr int kRows = 16, kColumns = 64;
  __device__ void operator()(const float* x, int rows, int columns, int ld, float other,
                             float* out) const {
    const auto row_mask = tile::as_column(tile::arange<kRows>() < rows);        // (16, 1)
    const auto column_mask = tile::as_row(tile::arange<kColumns>() < columns);  // (1, 64)
    const auto values = tile::load(x, matrix_offsets<kRows, kColumns>(ld), row_mask & column_mask,
                                   other);  // (16, 64)
    // The store's mask broadcasts too.
    tile::store(out, matrix_offsets<kRows, kColumns>(kColumns), values, row_mask);
  }
};

struct UnmaskedLoad {
  __device__ void operator()(const float* x, float* out) const {
    const auto offsets = block_offsets();
    tile::store(out, offsets, tile::load(x, offsets));
  }
};

struct UnmaskedStore {
  __device__ void operator()(const float* x, int n, float* out) const {
    const auto offsets = block_offsets();
    tile::store(out, offsets, tile::load(x, offsets, offsets < n));
  }
};

template <int BM, int BN>
struct BlockPtrLoad {
  __device__ void operator()(const float* x, int rows, int columns, int row_stride,
                             int column_stride, int row0, int column0, bool pad_with_nan,
                             float* out) const {
    const int i = tile::program_id(0), j = tile::program_id(1);
    const auto window =
        tile::advance(tile::make_block_ptr<BM, BN>(x, rows, columns, row_stride, column_stride,
                                                   row0 + i * BM, column0),
                      0, j * BN);
    const auto values = tile::load(window, pad_with_nan ? tile::Padding::nan : tile::Padding::zero);
    const int program = i * tile::num_programs(1) + j;
    tile::store(out, program * (BM * BN) + matrix_offsets<BM, BN>(BN), values);
  }
};

template <int BM, int BN>
struct BlockPtrStore {
  __device__ void operator()(const float* x, float* out, int rows, int columns, int row_stride,
                             int column_stride, int row0, int column0) const {
    const int i = tile::program_id(0), j = tile::program_id(1);
    const auto from = tile::make_block_ptr<BM, BN>(x, rows, columns, row_stride, column_stride,
                                                   row0 + i * BM, column0 + j * BN);
    const auto to = tile::advance(
        tile::make_block_ptr<BM, BN>(out, rows, columns, row_stride, column_stride, row0, column0),
        i * BM, j * BN);
    tile::store(to, tile::load(from) + 1.0f);
  }
};

template <class T, int M, int K, int N>
struct Dot {
  __device__ void operator()(const T* a, const T* b, const float* acc, float* out) const {
    const auto a_block = tile::load(a, matrix_offsets<M, K>(K));  // (M, K)
    const auto b_block = tile::load(b, matrix_offsets<K, N>(N));  // (K, N)
    const auto offsets = matrix_offsets<M, N>(N);                 // (M, N)
    // The branch is the same in every thread, as every tile operation must be.
    const auto c = acc == nullptr ? tile::dot(a_block, b_block)
                                  : tile::dot(a_block, b_block, tile::load(acc, offsets));
    tile::store(out, offsets, c);
  }
};

// out (M x N) = a (M x k) @ b (k x N), K steps of BK accumulated in a
// tile::Accumulator (the tensor cores' layout where the shape allows), the
// K tail masked with other = 0, stored under a mask of the first `rows` rows.
template <class T, int M, int BK, int N>
struct AccumulatedDot {
  __device__ void operator()(const T* a, const T* b, int k, int rows, float* out) const {
    const auto m = tile::arange<M>();
    const auto n = tile::arange<N>();
    tile::Accumulator<M, N> acc;
    for (int k0 = 0; k0 < k; k0 += BK) {
      const auto ks = k0 + tile::arange<BK>();
      const auto a_block = tile::load(a, tile::as_column(m) * k + tile::as_row(ks),
                                      tile::as_row(ks < k), T(0.0f));  // (M, BK)
      const auto b_block = tile::load(b, tile::as_column(ks) * N + tile::as_row(n),
                                      tile::as_column(ks < k), T(0.0f));  // (BK, N)
      acc = tile::dot(a_block, b_block, acc);
    }
    tile::store(out, matrix_offsets<M, N>(N), acc, tile::as_column(m < rows));
  }
};

struct StridedCopy {
  __device__ void operator()(const float* x, int stride, float* out) const {
    const auto offsets = tile::arange<1024>();
    tile::store(out, offsets, tile::load(x, offsets * stride));
  }
};

}  // namespace CUDALAB_BACKEND
}  // namespace tile_tests
