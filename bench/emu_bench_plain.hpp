// Launchers of emu_bench's plain-CUDA kernels (emu_bench_plain.cpp, the
// instrumented translation unit).
#pragma once

#include <vector_types.h>

namespace emu_bench {

constexpr int kReduceBlock = 256;
constexpr int kBarriersPerThread = 9;  // one before the loop, one per halving step (8)

namespace plain {
void axpy(dim3 grid, dim3 block, float a, const float* x, float* y, long long n);
void block_sum(dim3 grid, const float* in, float* out, long long n);
}  // namespace plain

}  // namespace emu_bench
