// Plain-CUDA kernels, as a student writes them: plain pointers, `__shared__`
// and `extern __shared__` arrays, triple-chevron launches (template kernels,
// dynamic shared memory, a stream argument). The test builds the copy that
// tools/emu_rewrite.py makes of this file (its #line keeps these lines) with
// cudalab_emu_instrument: every access is seen by the hooks.
// Tests assert the source lines below; keep each *_line next to its access.
#include "plain_kernels.hpp"

#include "cudalab/kernel.hpp"
#include "unrewritten_shared.hpp"

namespace plain_kernels {

const char* const kFile = __FILE__;

// Not in an anonymous namespace: reports name kernels through their
// exported symbols.
namespace device {

__global__ void scale_kernel(const float* x, float* y, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

// __launch_bounds__ as tuned kernels carry it: it must compile on the emulator too.
template <bool Synchronise>
__global__ void __launch_bounds__(1024) block_sum_kernel(const int* in, int* out, int n) {
  __shared__ int warp_sums[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  if (Synchronise) __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0;
    for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
    if (threadIdx.x == 0) *out = v;
  }
}
const int block_sum_first_line = __LINE__ - 12;

template <bool Synchronise>
__global__ void block_sum_dynamic_kernel(const int* in, int* out, int n) {
  extern __shared__ int warp_sums[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  if (Synchronise) __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0;
    for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
    if (threadIdx.x == 0) *out = v;
  }
}
const int block_sum_dynamic_first_line = __LINE__ - 12;

template <int Columns>
__global__ void transpose_kernel(const float* in, float* out) {
  __shared__ float tile[32][Columns];
  const int x = threadIdx.x, y = threadIdx.y;
  tile[y][x] = in[y * 32 + x];
  __syncthreads();
  out[y * 32 + x] = tile[x][y];
}

// The same through dynamic shared memory: 32 rows of Columns floats.
template <int Columns>
__global__ void transpose_dynamic_kernel(const float* in, float* out) {
  extern __shared__ float tile[];
  const int x = threadIdx.x, y = threadIdx.y;
  tile[y * Columns + x] = in[y * 32 + x];
  __syncthreads();
  out[y * 32 + x] = tile[x * Columns + y];
}

__global__ void write_past_end_kernel(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) a[i] = 1.0f;
}
const int write_past_end_kernel_line = __LINE__ - 2;

__global__ void copy_kernel(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
const int copy_kernel_line = __LINE__ - 2;

__global__ void unrewritten_shared_kernel(float* out) {
  out[threadIdx.x] = through_unrewritten_shared(1.0f);
}

__global__ void read_shared_unwritten_kernel(float* out) {
  __shared__ float s;
  out[threadIdx.x] = s;
}
const int read_shared_unwritten_kernel_line = __LINE__ - 2;

__global__ void histogram_kernel(const int* keys, int* counts, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&counts[keys[i]], 1);
    out[i] = keys[i];
  }
}

__global__ void load_float4_kernel(const float* p, float* out) {
  float4 v = *reinterpret_cast<const float4*>(p + 1);
  out[threadIdx.x] = v.x + v.y + v.z + v.w;
}
const int load_float4_kernel_line = __LINE__ - 3;

__global__ void touch_dynamic_shared_kernel(int* out, int last) {
  extern __shared__ int buffer[];
  buffer[last] = 7;
  *out = buffer[last];
}

__device__ int device_counter;
__device__ const float constant_table[4] = {1.0f, 2.0f, 3.0f, 4.0f};

__global__ void device_variables_kernel(float* out) {
  if (threadIdx.x == 0) atomicAdd(&device_counter, 1);
  out[blockIdx.x * blockDim.x + threadIdx.x] = constant_table[threadIdx.x % 4];
}

__global__ void every_block_writes_kernel(int* out) { out[0] = static_cast<int>(blockIdx.x); }

__global__ void barrier_in_branch_kernel(float* out) {
  if (threadIdx.x < 16) __syncthreads();
  out[threadIdx.x] = 1.0f;
}
const int barrier_in_branch_kernel_line = __LINE__ - 3;

__global__ void too_much_static_shared_kernel(float* out) {
  __shared__ float big[13 * 1024];
  big[threadIdx.x] = 1.0f;
  out[threadIdx.x] = big[threadIdx.x];
}

__global__ void shared_index_past_end_kernel(float* out, int index) {
  __shared__ float s[32];
  s[index] = 1.0f;
  out[0] = 2.0f;
}
const int shared_index_past_end_kernel_line = __LINE__ - 3;

}  // namespace device

using namespace device;

const int block_sum_write_line = block_sum_first_line + 4;
const int block_sum_read_line = block_sum_first_line + 7;
const int block_sum_dynamic_write_line = block_sum_dynamic_first_line + 4;
const int block_sum_dynamic_read_line = block_sum_dynamic_first_line + 7;
const int write_past_end_line = write_past_end_kernel_line;
const int copy_read_line = copy_kernel_line;
const int read_shared_unwritten_line = read_shared_unwritten_kernel_line;
const int load_float4_line = load_float4_kernel_line;
const int barrier_in_branch_line = barrier_in_branch_kernel_line;
const int shared_index_past_end_line = shared_index_past_end_kernel_line;

void scale(const float* x, float* y, int n, float a, unsigned blocks, unsigned threads) {
  scale_kernel<<<dim3(blocks), dim3(threads), 0, 0>>>(x, y, n, a);
}

void block_sum(const int* in, int* out, int n, unsigned threads, bool dynamic, bool synchronise) {
  if (dynamic) {
    if (synchronise) {
      block_sum_dynamic_kernel<true><<<dim3(1), dim3(threads), 32 * sizeof(int), 0>>>(in, out, n);
    } else {
      block_sum_dynamic_kernel<false><<<dim3(1), dim3(threads), 32 * sizeof(int), 0>>>(in, out, n);
    }
  } else {
    if (synchronise) {
      block_sum_kernel<true><<<dim3(1), dim3(threads), 0, 0>>>(in, out, n);
    } else {
      block_sum_kernel<false><<<dim3(1), dim3(threads), 0, 0>>>(in, out, n);
    }
  }
}

void transpose(const float* in, float* out, bool padded, bool dynamic) {
  const cudaStream_t stream = nullptr;  // the default stream, named: the fourth chevron argument
  if (dynamic) {
    if (padded) {
      transpose_dynamic_kernel<33>
          <<<dim3(1), dim3(32, 32), 32 * (padded ? 33 : 32) * sizeof(float), stream>>>(in, out);
    } else {
      transpose_dynamic_kernel<32>
          <<<dim3(1), dim3(32, 32), 32 * (padded ? 33 : 32) * sizeof(float), stream>>>(in, out);
    }
  } else {
    if (padded) {
      transpose_kernel<33><<<dim3(1), dim3(32, 32), 0, 0>>>(in, out);
    } else {
      transpose_kernel<32><<<dim3(1), dim3(32, 32), 0, 0>>>(in, out);
    }
  }
}

void write_past_end(float* a, int n) {
  write_past_end_kernel<<<dim3((n + 1 + 63) / 64), dim3(64), 0, 0>>>(a, n);
}

void copy(const float* in, float* out, int n) {
  copy_kernel<<<dim3((n + 63) / 64), dim3(64), 0, 0>>>(in, out, n);
}

void read_shared_unwritten(float* out) {
  read_shared_unwritten_kernel<<<dim3(1), dim3(32), 0, 0>>>(out);
}

void unrewritten_shared(float* out) { unrewritten_shared_kernel<<<dim3(1), dim3(32), 0, 0>>>(out); }
const char* const unrewritten_shared_file = device::unrewritten_shared_file;
const int unrewritten_shared_write_line = device::unrewritten_shared_write_line;

void histogram(const int* keys, int* counts, int* out, int n) {
  histogram_kernel<<<dim3((n + 127) / 128), dim3(128), 0, 0>>>(keys, counts, out, n);
}

void load_float4(const float* p, float* out) {
  load_float4_kernel<<<dim3(1), dim3(32), 0, 0>>>(p, out);
}

void touch_dynamic_shared(std::size_t bytes, int* out) {
  touch_dynamic_shared_kernel<<<dim3(1), dim3(1), bytes, 0>>>(
      out, static_cast<int>(bytes / sizeof(int)) - 1);
}

void every_block_writes(int* out, unsigned blocks) {
  every_block_writes_kernel<<<dim3(blocks), dim3(1), 0, 0>>>(out);
}

int device_variables(float* out) {
  device_counter = 0;
  device_variables_kernel<<<dim3(3), dim3(32), 0, 0>>>(out);
  return device_counter;
}

void barrier_in_branch(float* out) { barrier_in_branch_kernel<<<dim3(1), dim3(32), 0, 0>>>(out); }

void too_much_static_shared(float* out) {
  too_much_static_shared_kernel<<<dim3(1), dim3(32), 0, 0>>>(out);
}

void shared_index_past_end(float* out, int index) {
  shared_index_past_end_kernel<<<dim3(1), dim3(1), 0, 0>>>(out, index);
}

cudaError_t allow_dynamic_shared(int bytes) {
  return cudaFuncSetAttribute(touch_dynamic_shared_kernel,
                              cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
}

}  // namespace plain_kernels
