// Launchers of the plain-CUDA kernels in plain_kernels.cpp, the translation
// unit compiled with the emulator's instrumentation (cudalab_emu_instrument).
// Each runs one launch on the emulator; the `*_line` constants are the source
// lines of the accesses the tests expect reports to name.
#pragma once

#include <driver_types.h>

#include <cstddef>

namespace plain_kernels {

extern const char* const kFile;  // __FILE__ of plain_kernels.cpp

void scale(const float* x, float* y, int n, float a, unsigned blocks, unsigned threads);

// Sum of in[0..n) into *out, one block of `threads`; the warps' partial sums
// go through a plain __shared__ int[32] (or dynamic shared memory), with or
// without the __syncthreads() between writing and reading them.
void block_sum(const int* in, int* out, int n, unsigned threads, bool dynamic, bool synchronise);
extern const int block_sum_write_line;
extern const int block_sum_read_line;
extern const int block_sum_dynamic_write_line;
extern const int block_sum_dynamic_read_line;

// A 32x32 transpose through a shared tile of 32 or 33 columns, a
// __shared__ array or dynamic shared memory.
void transpose(const float* in, float* out, bool padded, bool dynamic);

void write_past_end(float* a, int n);  // a[n] = 1 as well
extern const int write_past_end_line;

void copy(const float* in, float* out, int n);
extern const int copy_read_line;

// Reads a static __shared__ float before any thread wrote it.
void read_shared_unwritten(float* out);
extern const int read_shared_unwritten_line;

// Each thread stores into and loads from a plain __shared__ array declared in
// unrewritten_shared.hpp, a header the rewrite did not see.
void unrewritten_shared(float* out);
extern const char* const unrewritten_shared_file;
extern const int unrewritten_shared_write_line;

// counts[keys[i]] += 1 with atomicAdd, then out[i] = keys[i].
void histogram(const int* keys, int* counts, int* out, int n);

// float4 load from p + 1 (misaligned).
void load_float4(const float* p, float* out);
extern const int load_float4_line;

// Writes the last int of `bytes` of dynamic shared memory, then *out = it.
void touch_dynamic_shared(std::size_t bytes, int* out);
// cudaFuncSetAttribute(touch_dynamic_shared's kernel, MaxDynamicSharedMemorySize, bytes).
cudaError_t allow_dynamic_shared(int bytes);

// out[0] = blockIdx.x in every block.
void every_block_writes(int* out, unsigned blocks);

// A __device__ int counted up by each block, a __device__ const table read
// into out[0..32); returns the counter.
int device_variables(float* out);  // out: 96 floats

// __syncthreads() reached by 16 of 32 threads.
void barrier_in_branch(float* out);
extern const int barrier_in_branch_line;

// 52 KiB of static __shared__ memory.
void too_much_static_shared(float* out);

// s[index] = 1 for a __shared__ float s[32].
void shared_index_past_end(float* out, int index);
extern const int shared_index_past_end_line;

}  // namespace plain_kernels
