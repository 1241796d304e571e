// Launchers of emu_bench's plain-CUDA kernels (emu_bench_plain.cpp, the
// instrumented translation unit).
#pragma once

#include <vector_types.h>

namespace emu_bench {

constexpr int kReduceBlock = 256;
constexpr int kBarriersPerThread = 9;  // one before the loop, one per halving step (8)
constexpr int kMmaBlock = 128;         // 4 warps

namespace plain {
void axpy(dim3 grid, dim3 block, float a, const float* x, float* y, long long n);
void block_sum(dim3 grid, const float* in, float* out, long long n);
// `repeats` fp16 mma.sync m16n8k16 per warp in blocks of kMmaBlock threads;
// out gets one float per thread (16 * repeats when right).
void mma_chain(dim3 grid, float* out, int repeats);
}  // namespace plain

}  // namespace emu_bench
