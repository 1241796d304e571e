// wgmma (Hopper's warpgroup tensor-core instruction) on both backends:
// wgmma.cuh holds a GEMM kernel and its launch as plain CUDA, compiled for
// the emulator (wgmma_emu.cpp, rewritten and instrumented) and by nvcc for
// sm_90a (wgmma_gpu.cu); test_wgmma.cpp runs it on both and compares every
// element bit for bit with the tensor-core model, and checks the emulator's
// reports of the planted bugs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cudalab/numerics/block_fma.hpp"
#include "cudalab/numerics/fp8.hpp"

namespace wgmma_tests {

// How the kernel lays out its shared-memory tiles (all K-major).
enum class Layout {
  core_matrices_k_first,     // no swizzle: 8x16-byte core matrices, K neighbours adjacent
  core_matrices_rows_first,  // no swizzle: 8-row neighbours adjacent
  swizzle_128,
  swizzle_64,
  swizzle_32,
};

// A bug planted in the kernel (emulator only: on a GPU each gives garbage).
enum class Planted {
  none,
  wrong_leading_offset,   // the descriptors' LBO twice the layout's
  wrong_stride_offset,    // the descriptors' SBO half the layout's
  missing_fence,          // no wgmma_fence() before the first mma_async
  read_before_wait,       // an accumulator read between commit and wait
  overwrite_before_wait,  // thread 0 stores into the A tile before the wait
  warp_skips_the_wgmma,   // the warpgroup's last warp takes another branch
};

struct Gemm {
  cudalab::numerics::MmaFormat format;
  int m, n, k;  // m a multiple of 64, n of the tile width, k of 16 (of 32 for fp8)
  int tile_n;   // wgmma's N: 8, 16, 32, 64, 128 or 256
  Layout layout;
  int warpgroups = 1;  // per block, each its own 64 rows (m a multiple of 64 x this)
  // fp8 operands (wgmma_e4m3 and the others), A's and B's formats; `format` unused then.
  bool fp8 = false;
  cudalab::numerics::Fp8Format fp8_a = cudalab::numerics::Fp8Format::e4m3;
  cudalab::numerics::Fp8Format fp8_b = cudalab::numerics::Fp8Format::e4m3;
};

// One backend's launches.
struct Kernels {
  // C (m x n, row-major) = A (m x k patterns, row-major) * B, B given as its
  // transpose (n x k patterns); fp16/bf16 patterns in the low 16 bits, fp8 in the low 8.
  std::vector<float> (*gemm)(const Gemm& shape, const std::vector<std::uint32_t>& a,
                             const std::vector<std::uint32_t>& b_transposed, Planted bug);
  // The same for one 64 x N tile (m 64, n tile_n), but each thread's raw
  // accumulator registers: element t * (n / 2) + i is register i of thread t.
  std::vector<float> (*registers)(const Gemm& shape, const std::vector<std::uint32_t>& a,
                                  const std::vector<std::uint32_t>& b_transposed);
};

const Kernels& emulator_kernels();
const Kernels& gpu_kernels();
std::string gpu_unavailable_reason();

// The emulator's reports of a planted bug ("kind: message", one a line),
// whether the launch failed, and C.
struct PlantedReport {
  std::string reports;
  bool failed_launch = false;
  std::vector<float> c;
};
PlantedReport emulator_report(const Gemm& shape, const std::vector<std::uint32_t>& a,
                              const std::vector<std::uint32_t>& b_transposed, Planted bug);

}  // namespace wgmma_tests
