// The tile programs of tile_programs.cuh behind one interface, whichever
// build runs them: the emulator (tile_programs_emu.cpp), the GPU
// (tile_programs_gpu.cu) or the tile interpreter (tile_programs_interp.cpp).
// Host vectors in and out; each call copies its inputs to the device, runs
// one grid of programs with its output between guard elements
// (cudalab::harness::call_on_output) and copies the output back.
// Backend-free: test_tile.cpp sees only this header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudalab/harness/observation.hpp"

namespace tile_tests {

using cudalab::harness::Observation;
using cudalab::harness::RunOptions;

// A block shape a program is instantiated for: device code needs it at
// compile time, a test names it at run time. A call with a shape not in its
// list throws std::invalid_argument.
template <int... D>
struct Dims {
  static std::vector<int> list() { return {D...}; }
};
template <class... S>
struct Shapes {
  static std::vector<std::vector<int>> list() { return {S::list()...}; }
};

// arange / full / zeros: one block smaller than a program, one a program, one larger.
using CreationSizes = Shapes<Dims<1>, Dims<8>, Dims<128>, Dims<2048>>;
// [M, N] blocks the broadcasts run on: N a multiple of 128 and not, [1, 1], and
// M * N below and above the 128 threads of a program.
using BroadcastShapes =
    Shapes<Dims<1, 1>, Dims<4, 8>, Dims<8, 64>, Dims<8, 256>, Dims<1, 128>, Dims<32, 1>>;
using Reduce1DSizes =
    Shapes<Dims<1>, Dims<2>, Dims<32>, Dims<64>, Dims<128>, Dims<256>, Dims<4096>>;
// Smaller than a program ([4, 8]), rows shorter than a warp ([64, 8]), a
// row per warp ([64, 32]), rows of two warps ([2, 64]), rows of whole
// programs ([8, 256], [16, 1024]), a single row or column.
using Reduce2DShapes = Shapes<Dims<4, 8>, Dims<64, 8>, Dims<64, 32>, Dims<2, 64>, Dims<8, 256>,
                              Dims<1, 128>, Dims<128, 1>, Dims<16, 1024>>;
// Block-pointer windows [BM, BN]: larger than a program, and smaller than a warp.
using WindowShapes = Shapes<Dims<8, 32>, Dims<2, 4>>;
// dot's [M, K] x [K, N] as (M, K, N): [32, 64] x [64, 16] runs on the
// tensor cores for fp16 and bf16 (M % 32, N % 16 and K % 16 are 0), the
// others with FMAs.
using DotShapes = Shapes<Dims<16, 16, 16>, Dims<32, 64, 16>, Dims<1, 32, 1>, Dims<2, 4, 8>>;
// Accumulator<M, N> with K steps of BK, as (M, BK, N): the tensor cores'
// fragment layout (the first three; [128, 64] is converted to the block
// layout in two bands of rows) and the block layout ([4, 8]).
using AccumulatorShapes =
    Shapes<Dims<32, 16, 16>, Dims<64, 16, 32>, Dims<128, 32, 64>, Dims<4, 8, 8>>;

// The element-wise operations of one Elementwise program, each written to
// its own row of the output (out[op * n + i]); a and b are x[i] and y[i].
enum class Op {
  add,                 // a + b
  subtract,            // a - b
  multiply,            // a * b
  divide,              // a / b
  negate,              // -a
  plus_scalar,         // a + 2
  scalar_minus,        // 3 - a
  less,                // a < b (1 or 0)
  less_equal,          // a <= b
  greater,             // a > b
  greater_equal,       // a >= b
  equal,               // a == b
  not_equal,           // a != b
  less_and_positive,   // (a < b) & (b > 0)
  less_or_positive,    // (a < b) | (b > 0)
  not_less,            // !(a < b)
  where_blocks,        // where(a < b, a, b)
  where_block_scalar,  // where(a < b, a, 1)
  where_scalar_block,  // where(a < b, 2, b)
  where_scalars,       // where(a < b, 1, 2)
  maximum,             // maximum(a, b), NaN-propagating
  minimum,             // minimum(a, b), NaN-propagating
  maximum_scalar,      // maximum(a, 0.5)
  scalar_minimum,      // minimum(0.5, a)
  sqrt_abs,            // sqrt(abs(a))
  exp,                 // exp(a)
  exp2,                // exp2(a)
  log_abs,             // log(abs(a))
  abs,                 // abs(a)
  compound,            // c = a; c += b; c *= 2; c -= a; c /= 4
  count                // (the number of operations)
};

// The broadcasts of one Broadcasts<M, N> program, each an [M, N] slab of the
// output (out[case * M * N + r * N + c]), from a column (M values), a row
// (N values), a matrix (M x N) and one scalar value s.
enum class Broadcast {
  column_plus_row,        // [M, 1] + [1, N]
  row_plus_matrix,        // [N] + [M, N]
  row_block_plus_matrix,  // [1, N] + [M, N]
  scalar_plus_matrix,     // [1, 1] + [M, N]
  matrix_minus_column,    // [M, N] - [M, 1]
  column_broadcast,       // broadcast_to<M, N>([M, 1])
  row_broadcast,          // broadcast_to<M, N>([N])
  scalar_broadcast,       // broadcast_to<M, N>([1])
  count
};

// The programs' grid, as tile::Grid (which lives in each backend's namespace).
struct Grid {
  int x = 1, y = 1, z = 1;
};

// A two-dimensional tensor as block pointers see it: element (r, c) at
// r * row_stride + c * column_stride of its storage.
struct StridedTensor {
  int rows = 0, columns = 0;
  int row_stride = 0, column_stride = 0;
  // Elements of storage the layout spans (0 for an empty tensor).
  std::size_t storage() const {
    if (rows == 0 || columns == 0) return 0;
    return static_cast<std::size_t>(rows - 1) * row_stride +
           static_cast<std::size_t>(columns - 1) * column_stride + 1;
  }
};

// The element type of a dot's operands.
enum class Element { fp32, fp16, bf16 };

class Backend : public cudalab::harness::BackendBase {
 public:
  // One program: out[0, n) = arange<n>, out[n, 2n) = full<n>(value),
  // out[2n, 3n) = zeros<n> (n from CreationSizes; out has 3n elements).
  virtual Observation creation(int n, float value, std::vector<float>& out) = 0;
  // Each program p (x fastest) writes program_id(0..2) and
  // num_programs(0..2) to out[6p, 6p + 6). A bad grid throws
  // std::invalid_argument from tile::launch.
  virtual Observation program_ids(Grid grid, std::vector<int>& out) = 0;
  // Integer blocks: out[k * n + i] for i = offsets 0..n-1 of 256-element
  // programs: i % 7, i / 3, i & 5, i | 8, 3 * i - 1, -i on an index block
  // (k = 0..5), then the same on a Block (k = 6..11).
  virtual Observation integer_ops(int n, std::vector<int>& out) = 0;
  // The Op table over x and y (n elements each, 256-element programs, the
  // last one masked); out has Op::count * n elements.
  virtual Observation elementwise(const std::vector<float>& x, const std::vector<float>& y,
                                  std::vector<float>& out) = 0;
  // x.to(fp16 / bf16): out gets the bit patterns.
  virtual Observation cast(Element to, const std::vector<float>& x,
                           std::vector<std::uint16_t>& out) = 0;
  // The Broadcast table; out has Broadcast::count * M * N elements.
  virtual Observation broadcasts(const std::vector<int>& shape, const std::vector<float>& column,
                                 const std::vector<float>& row, const std::vector<float>& matrix,
                                 float scalar, std::vector<float>& out) = 0;
  // One program over an N-element block (N from Reduce1DSizes) loaded from
  // x with the mask offset < x.size() and `other` elsewhere:
  // out = {sum, max, min}.
  virtual Observation reduce_1d(int block, const std::vector<float>& x, float other,
                                std::vector<float>& out) = 0;
  // One program over the [M, N] matrix x: out = sum<0>, max<0>, min<0> (N
  // each), then sum<1>, max<1>, min<1> (M each).
  virtual Observation reduce_2d(const std::vector<int>& shape, const std::vector<float>& x,
                                std::vector<float>& out) = 0;

  // 256-element programs over out (whole blocks): out[i] = x[i] for i <
  // x.size(), `other` past it. x's allocation holds exactly its elements.
  virtual Observation masked_load(const std::vector<float>& x, float other,
                                  std::vector<float>& out) = 0;
  // out[i] = x[i] where i % 3 != 1, for i < out.size() (= x.size()); the rest
  // of `out` keeps what it held.
  virtual Observation masked_store(const std::vector<float>& x, std::vector<float>& out) = 0;
  // One [16, 64] program over the rows x columns matrix x with leading
  // dimension ld (x holds (rows - 1) * ld + columns elements: the last row
  // ends the allocation): a load masked by rows [16, 1] & columns [1, 64]
  // (`other` elsewhere), stored to out (16 x 64) under the row mask alone:
  // rows past `rows` keep what they held.
  virtual Observation masked_load_2d(const std::vector<float>& x, int rows, int columns, int ld,
                                     float other, std::vector<float>& out) = 0;
  // Deliberately wrong: 256-element programs load x with no mask
  // (out[i] = x[i] for every i of out's whole blocks, past x's end).
  virtual Observation unmasked_load(const std::vector<float>& x, std::vector<float>& out) = 0;
  // Deliberately wrong: a masked load, then a store with no mask past the
  // end of out (256-element programs, out.size() = x.size()).
  virtual Observation unmasked_store(const std::vector<float>& x, std::vector<float>& out) = 0;

  // Block pointers over `tensor` (storage x): program (i, j) loads the
  // window make_block_ptr at (row0 + i * BM, column0) advanced by (0, j *
  // BN), padded with zero or NaN, into out[(i * grid.y + j) * BM * BN, ...).
  virtual Observation block_ptr_load(const std::vector<int>& window, const StridedTensor& tensor,
                                     const std::vector<float>& x, int row0, int column0, Grid grid,
                                     bool pad_with_nan, std::vector<float>& out) = 0;
  // Program (i, j) copies x's window at (row0, column0) + (i * BM, j * BN)
  // plus one into the same window of out (same layout as x), through block
  // pointers whose stores skip what lies outside the tensor.
  virtual Observation block_ptr_store(const std::vector<int>& window, const StridedTensor& tensor,
                                      const std::vector<float>& x, int row0, int column0, Grid grid,
                                      std::vector<float>& out) = 0;

  // out (M x N) = dot(a (M x K), b (K x N)) [+ acc (M x N) when acc is not
  // empty], with a and b rounded to `inputs` on the host first (nearest even).
  virtual Observation dot(Element inputs, const std::vector<int>& mkn, const std::vector<float>& a,
                          const std::vector<float>& b, const std::vector<float>& acc,
                          std::vector<float>& out) = 0;

  // out (M x N) = a (M x k) @ b (k x N) accumulated in a tile::Accumulator
  // over K steps of BK (shape = (M, BK, N); k need not be a multiple of BK),
  // stored under a mask of rows < `rows`; a and b rounded to `inputs` on the
  // host first.
  virtual Observation accumulated_dot(Element inputs, const std::vector<int>& shape, int k,
                                      const std::vector<float>& a, const std::vector<float>& b,
                                      int rows, std::vector<float>& out) = 0;

  // One program: out[i] = x[i * stride] for a 1024-element block.
  virtual Observation strided_copy(const std::vector<float>& x, int stride, std::vector<float>& out,
                                   const RunOptions& options) = 0;
};

std::unique_ptr<Backend> make_emulator_backend();
std::unique_ptr<Backend> make_gpu_backend(std::string* why_not);
std::unique_ptr<Backend> make_interpreter_backend();

}  // namespace tile_tests
