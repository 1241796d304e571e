// Lab 05 behind one interface, whichever backend runs it: the GPU (nvcc),
// the CPU emulator (every access traced) or the tile interpreter (each
// program a loop on one CPU thread). Its entry points are declared once
// here (cudalab/harness/entry_points.hpp) and bound to the lab's code in
// backend_impl.hpp; host vectors in and out; matrices are row-major; fp16
// elements are their 16-bit patterns.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudalab/harness/entry_points.hpp"

namespace lab05::harness {

using cudalab::harness::Entry;
using cudalab::harness::In;
using cudalab::harness::Observation;
using cudalab::harness::Out;
using cudalab::harness::RunOptions;
using cudalab::harness::Temp;

// How programs take the tiles of C (exercise 5).
struct Ordering {
  bool grouped = false;
  int group_m = 8;
};

namespace entry {
// Exercise 1: out = x + y and out = sqrt(x + 1) on n elements. `out` goes
// to the device as it is and comes back.
inline constexpr Entry<void(In<float> x, In<float> y, Out<float> out, int n)> add{"add"};
inline constexpr Entry<void(In<float> x, Out<float> out, int n)> fused_activation{
    "fused_activation"};
// The two-kernel version of the same (lab code, not an exercise), with its
// intermediate in `scratch` (n elements).
inline constexpr Entry<void(In<float> x, Temp<float> scratch, Out<float> out, int n)>
    unfused_activation{"unfused_activation"};

// Exercise 2: out[i] = x[i * stride] for i < n; column sums and maxima of
// the rows x columns matrix x into out (columns elements).
inline constexpr Entry<void(In<float> x, int stride, Out<float> out, int n)> strided_gather{
    "strided_gather"};
inline constexpr Entry<void(In<float> x, int rows, int columns, Out<float> sums)> column_sums{
    "column_sums"};
inline constexpr Entry<void(In<float> x, int rows, int columns, Out<float> maxes)> column_maxes{
    "column_maxes"};

// Exercise 3: row softmax of the rows x columns matrix whose rows lie
// x_row_stride elements apart in x, into out (rows out_row_stride apart;
// the elements between rows must stay as they are).
inline constexpr Entry<void(In<float> x, int rows, int columns, int x_row_stride, Out<float> out,
                            int out_row_stride)>
    softmax{"softmax"};

// Exercises 4 and 5: C (m x n, fp32) = A (m x k) * B (k x n) with fp16 A
// and B, in the given tile order.
inline constexpr Entry<void(int m, int n, int k, In<std::uint16_t> a, In<std::uint16_t> b,
                            Out<float> c, Ordering ordering)>
    matmul{"matmul"};
// The tile sizes the lab's matmul uses (BM, BN, BK).
inline constexpr Entry<std::vector<int>()> matmul_tile{"matmul_tile"};

// Exercise 5: the tile (m, n) of every program id of a grid_m x grid_n
// grid in grouped order, computed on the device: tiles[2 * pid] = m,
// tiles[2 * pid + 1] = n.
inline constexpr Entry<void(int grid_m, int grid_n, int group_m, Out<int> tiles)> grouped_tiles{
    "grouped_tiles"};
// Exercise 5 (host code): blocks the first `wave` programs load under the
// tutorial's cache model, row-major or grouped.
inline constexpr Entry<int(Ordering ordering, int grid_m, int grid_n, int k_blocks, int wave)>
    first_wave_block_loads{"first_wave_block_loads"};
}  // namespace entry

using Backend = cudalab::harness::EntryBackend;

std::unique_ptr<Backend> make_emulator_backend();
std::unique_ptr<Backend> make_gpu_backend(std::string* why_not = nullptr);
std::unique_ptr<Backend> make_interpreter_backend();
// The same over solutions/ (OnBackend::reference()).
std::unique_ptr<Backend> make_reference_emulator_backend();
std::unique_ptr<Backend> make_reference_gpu_backend(std::string* why_not = nullptr);
std::unique_ptr<Backend> make_reference_interpreter_backend();

}  // namespace lab05::harness
