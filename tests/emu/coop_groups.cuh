// The kernels of coop_groups.hpp, one source for both backends (inside the
// inline namespace CUDALAB_BACKEND, so both builds link into one program):
// nvcc compiles them with CUDA's <cooperative_groups.h>, the emulator build
// with its own (common/emu/cuda_include/).
#pragma once

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

#include <stdexcept>
#include <utility>
#include <vector>

#include "coop_groups.hpp"
#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/kernel.hpp"

namespace cg = cooperative_groups;

namespace coop_groups {
inline namespace CUDALAB_BACKEND {

// Not in an anonymous namespace: reports name kernels through their symbols.
namespace device {

// One sum per block: each warp reduces with cg::reduce, thread 0 adds the
// warps' sums in warp order.
template <class T>
__global__ void block_sum_kernel(const T* in, int n, T* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  __shared__ T warp_sums[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const T v = i < n ? in[i] : T(0);
  const T warp_sum = cg::reduce(warp, v, cg::plus<T>());
  if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = warp_sum;
  block.sync();
  if (block.thread_rank() == 0) {
    T total = warp_sums[0];
    for (unsigned w = 1; w < warp.meta_group_size(); ++w) total += warp_sums[w];
    out[blockIdx.x] = total;
  }
}

// Tiles of several warps (N = 64, 128): per tile, [sum, the last rank's
// value, any negative, all below 1000, meta rank, meta size], written by
// rank 0. The block_tile_memory is what CUDA asks for before sm_80.
template <unsigned N>
__global__ void multi_warp_tile_kernel(const int* in, int n, int* out) {
  __shared__ cg::block_tile_memory<1024> scratch;
  cg::thread_block block = cg::this_thread_block(scratch);
  cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = i < n ? in[i] : 0;
  const int sum = cg::reduce(tile, v, cg::plus<int>());
  const int last = tile.shfl(v, N - 1);
  const int any_negative = tile.any(v < 0);
  const int all_small = tile.all(v < 1000);
  tile.sync();
  if (tile.thread_rank() == 0) {
    int* o = out + 6 * (blockIdx.x * tile.meta_group_size() + tile.meta_group_rank());
    o[0] = sum;
    o[1] = last;
    o[2] = any_negative;
    o[3] = all_small;
    o[4] = static_cast<int>(tile.meta_group_rank());
    o[5] = static_cast<int>(tile.meta_group_size());
  }
}

template <unsigned N>
__global__ void tile_ops_kernel(const int* in, TileOps* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[i];
  TileOps o;
  o.rank = static_cast<int>(tile.thread_rank());
  o.meta_rank = static_cast<int>(tile.meta_group_rank());
  o.meta_size = static_cast<int>(tile.meta_group_size());
  o.shfl_down = tile.shfl_down(v, 1);
  o.shfl_up = tile.shfl_up(v, 2);
  o.shfl_xor = tile.shfl_xor(v, N / 2);
  o.shfl_last = tile.shfl(v, N - 1);
  o.ballot = tile.ballot(v & 1);
  o.match_any = tile.match_any(v % 3);
  int pred = -1;
  o.match_all = tile.match_all(v / 1000, pred);
  o.match_all_pred = pred;
  o.any = tile.any(v % 5 == 0);
  o.all = tile.all(v % 2 == 0);
  o.max = cg::reduce(tile, v, cg::greater<int>());
  o.inclusive = cg::inclusive_scan(tile, v);
  o.exclusive = cg::exclusive_scan(tile, v);
  o.exclusive_min = cg::exclusive_scan(tile, v, cg::less<int>());
  tile.sync();
  out[i] = o;
}

// Scans of tiles of 32 and of their sub-tiles of 8.
template <class T, class Op>
__global__ void scan_kernel(const T* in, T* out) {
  cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cg::this_thread_block());
  cg::thread_block_tile<8> tile8 = cg::tiled_partition<8>(tile32);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const T v = in[i];
  out[4 * i + 0] = cg::inclusive_scan(tile32, v, Op());
  out[4 * i + 1] = cg::exclusive_scan(tile32, v, Op());
  out[4 * i + 2] = cg::inclusive_scan(tile8, v, Op());
  out[4 * i + 3] = cg::exclusive_scan(tile8, v, Op());
}

__global__ void coalesced_kernel(const int* in, CoalescedOps* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[i];
  CoalescedOps o{-1, -1, -1, -1, -1, -1, -1, 0u, -1, -1};
  __syncwarp();  // the warp converged: the branch's lanes run it together
  if (v % 3 == 0) {
    cg::coalesced_group g = cg::coalesced_threads();
    o.rank = static_cast<int>(g.thread_rank());
    o.size = static_cast<int>(g.size());
    o.sum = cg::reduce(g, v, cg::plus<int>());
    o.inclusive = cg::inclusive_scan(g, v);
    o.exclusive = cg::exclusive_scan(g, v);
    o.first = g.shfl(v, 0);
    o.next = g.shfl_down(v, 1);
    o.ballot = g.ballot(v & 1);
    o.any = g.any(v > 500);
    o.all = g.all(v < 900);
    g.sync();
  }
  out[i] = o;
}

// `rounds` times: b[i] from three elements of a, most of them written by
// other blocks in the round before, grid.sync(), then a and b swap.
__global__ void grid_rounds_kernel(unsigned* a, unsigned* b, int n, int rounds) {
  cg::grid_group grid = cg::this_grid();
  for (int r = 0; r < rounds; ++r) {
    for (unsigned long long i = grid.thread_rank(); i < static_cast<unsigned long long>(n);
         i += grid.size()) {
      b[i] = a[i] * 3u + a[(i + 1) % n] + a[n - 1 - i];
    }
    grid.sync();
    unsigned* t = a;
    a = b;
    b = t;
  }
}

__global__ void grid_limit_kernel(int* out) {
  extern __shared__ int scratch[];
  scratch[threadIdx.x] = static_cast<int>(blockIdx.x);
  cg::this_grid().sync();
  if (threadIdx.x == 0) out[blockIdx.x] = scratch[0];
}

__global__ void grid_valid_kernel(int* valid) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *valid = cg::this_grid().is_valid();
}
__global__ void grid_sync_not_cooperative_kernel(int* out) {
  cg::this_grid().sync();
  out[blockIdx.x] = 1;
}

// ---- the Programming Guide's examples, retyped ----------------------------------
__device__ inline int reduce_sum(cg::thread_group g, int* temp, int val) {
  int lane = g.thread_rank();
  // Each iteration halves the number of active threads; each thread adds
  // its partial sum[i] to sum[lane+i].
  for (int i = g.size() / 2; i > 0; i /= 2) {
    temp[lane] = val;
    g.sync();  // wait for all threads to store
    if (lane < i) val += temp[lane + i];
    g.sync();  // wait for all threads to load
  }
  return val;  // note: only thread 0 will return full sum
}

__device__ inline int thread_sum(int* input, int n) {
  int sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n / 4; i += blockDim.x * gridDim.x) {
    int4 in = ((int4*)input)[i];
    sum += in.x + in.y + in.z + in.w;
  }
  return sum;
}

__global__ void sum_kernel_block(int* sum, int* input, int n) {
  int my_sum = thread_sum(input, n);
  extern __shared__ int temp[];
  auto g = cg::this_thread_block();
  int block_sum = reduce_sum(g, temp, my_sum);
  if (g.thread_rank() == 0) atomicAdd(sum, block_sum);
}

__global__ void sum_kernel_tile4(int* sum, int* input, int n) {
  int my_sum = thread_sum(input, n);
  extern __shared__ int temp[];
  cg::thread_group tile32 = cg::tiled_partition(cg::this_thread_block(), 32);
  cg::thread_group tile4 = cg::tiled_partition(tile32, 4);
  // Each tile of 4 uses its own 4 ints of temp.
  int* tile_temp = temp + cg::this_thread_block().thread_rank() / 4 * 4;
  int tile_total = reduce_sum(tile4, tile_temp, my_sum);
  if (tile4.thread_rank() == 0) atomicAdd(sum, tile_total);
}

template <unsigned size>
__device__ int tile_sum(cg::thread_block_tile<size> g, int x) {
  for (int i = g.size() / 2; i > 0; i /= 2) {
    x += g.shfl_down(x, i);
  }
  return x;  // note: only thread 0 will return full sum
}

__global__ void sum_kernel_tile32(int* sum, int* input, int n) {
  int my_sum = thread_sum(input, n);
  cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cg::this_thread_block());
  int tile_total = tile_sum<32>(tile32, my_sum);
  if (tile32.thread_rank() == 0) atomicAdd(sum, tile_total);
}

__global__ void my_kernel(int* data, int* result, int n) {
  cg::grid_group grid = cg::this_grid();
  // load data: each element doubled where it is
  for (unsigned long long i = grid.thread_rank(); i < static_cast<unsigned long long>(n);
       i += grid.size()) {
    data[i] *= 2;
  }
  grid.sync();
  // device wide execution sync: the neighbour seven along was doubled by another block
  for (unsigned long long i = grid.thread_rank(); i < static_cast<unsigned long long>(n);
       i += grid.size()) {
    result[i] = data[(i + 7) % n] + data[i];
  }
}

}  // namespace device

template <class T>
std::vector<T> block_sum(const std::vector<T>& in, unsigned block) {
  const int n = static_cast<int>(in.size());
  const unsigned blocks = (in.size() + block - 1) / block;
  cudalab::DeviceBuffer<T> d_in(in);
  cudalab::DeviceBuffer<T> d_out(blocks);
  device::block_sum_kernel<T><<<blocks, block>>>(d_in.data(), n, d_out.data());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_out.copy_to_host();
}

template <unsigned N>
std::vector<int> multi_warp_tiles(const std::vector<int>& in, unsigned block) {
  if (block % N != 0) throw std::invalid_argument("multi_warp_tiles: block % N != 0");
  const int n = static_cast<int>(in.size());
  const unsigned blocks = (in.size() + block - 1) / block;
  cudalab::DeviceBuffer<int> d_in(in);
  cudalab::DeviceBuffer<int> d_out(std::size_t{blocks} * block / N * 6);
  device::multi_warp_tile_kernel<N><<<blocks, block>>>(d_in.data(), n, d_out.data());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_out.copy_to_host();
}

template <unsigned N>
std::vector<TileOps> tile_ops(const std::vector<int>& in, unsigned block) {
  if (in.size() % block != 0) throw std::invalid_argument("tile_ops: in.size() % block != 0");
  cudalab::DeviceBuffer<int> d_in(in);
  cudalab::DeviceBuffer<TileOps> d_out(in.size());
  device::tile_ops_kernel<N><<<in.size() / block, block>>>(d_in.data(), d_out.data());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_out.copy_to_host();
}

template <class T, class Op>
std::vector<T> scan(const std::vector<T>& in, unsigned block) {
  if (in.size() % block != 0) throw std::invalid_argument("scan: in.size() % block != 0");
  cudalab::DeviceBuffer<T> d_in(in);
  cudalab::DeviceBuffer<T> d_out(4 * in.size());
  device::scan_kernel<T, Op><<<in.size() / block, block>>>(d_in.data(), d_out.data());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_out.copy_to_host();
}

inline std::vector<CoalescedOps> coalesced(const std::vector<int>& in, unsigned block) {
  if (in.size() % block != 0) throw std::invalid_argument("coalesced: in.size() % block != 0");
  cudalab::DeviceBuffer<int> d_in(in);
  cudalab::DeviceBuffer<CoalescedOps> d_out(in.size());
  device::coalesced_kernel<<<in.size() / block, block>>>(d_in.data(), d_out.data());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_out.copy_to_host();
}

inline std::vector<unsigned> grid_rounds(const std::vector<unsigned>& in, unsigned blocks,
                                         unsigned block, int rounds, cudaError_t* launch) {
  cudalab::DeviceBuffer<unsigned> d_a(in);
  cudalab::DeviceBuffer<unsigned> d_b(in.size());
  d_b.fill_bytes(0);
  unsigned* a = d_a.data();
  unsigned* b = d_b.data();
  int n = static_cast<int>(in.size());
  void* args[] = {&a, &b, &n, &rounds};
  *launch = cudaLaunchCooperativeKernel((void*)device::grid_rounds_kernel, dim3(blocks),
                                        dim3(block), args, 0, 0);
  if (*launch != cudaSuccess) {
    (void)cudaGetLastError();
    return {};
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  return (rounds % 2 == 0 ? d_a : d_b).copy_to_host();
}

inline void grid_limit(cudaError_t* at_limit, cudaError_t* above_limit, unsigned* limit_blocks) {
  constexpr int kThreads = 32;
  constexpr int kShared = 100 * 1024;
  CUDA_CHECK(cudaFuncSetAttribute(device::grid_limit_kernel,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, kShared));
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, device::grid_limit_kernel,
                                                           kThreads, kShared));
#if CUDALAB_GPU
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
#else
  const int sms = cudalab::emu::kCooperativeMultiprocessors;  // the H200's, whatever the host has
#endif
  *limit_blocks = static_cast<unsigned>(per_sm * sms);
  cudalab::DeviceBuffer<int> out(*limit_blocks + 1);
  int* p = out.data();
  void* args[] = {&p};
  *at_limit = cudaLaunchCooperativeKernel(device::grid_limit_kernel, dim3(*limit_blocks),
                                          dim3(kThreads), args, kShared, 0);
  if (*at_limit == cudaSuccess) *at_limit = cudaDeviceSynchronize();
  *above_limit = cudaLaunchCooperativeKernel(device::grid_limit_kernel, dim3(*limit_blocks + 1),
                                             dim3(kThreads), args, kShared, 0);
  (void)cudaGetLastError();  // the refusal is also the last error
}

inline void grid_sync_not_cooperative(int* is_valid, cudaError_t* sync_error) {
  cudalab::DeviceBuffer<int> valid(1);
  valid.fill_bytes(0x7f);
  device::grid_valid_kernel<<<2, 32>>>(valid.data());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  *is_valid = valid.copy_to_host()[0];
  cudalab::DeviceBuffer<int> out(2);
  device::grid_sync_not_cooperative_kernel<<<2, 32>>>(out.data());
  *sync_error = cudaDeviceSynchronize();
  (void)cudaGetLastError();
}

template <void (*Kernel)(int*, int*, int)>
int guide_sum(const std::vector<int>& in, unsigned block, std::size_t shared_bytes) {
  cudalab::DeviceBuffer<int> d_in(in);
  cudalab::DeviceBuffer<int> d_sum(1);
  d_sum.fill_bytes(0);
  const int n = static_cast<int>(in.size());
  const unsigned blocks = (n / 4 + block - 1) / block;
  const unsigned grid = blocks > 0 ? blocks : 1;
  Kernel<<<grid, block, shared_bytes>>>(d_sum.data(), d_in.data(), n);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_sum.copy_to_host()[0];
}
inline int guide_block_sum(const std::vector<int>& in, unsigned block) {
  return guide_sum<device::sum_kernel_block>(in, block, block * sizeof(int));
}
inline int guide_tile4_sum(const std::vector<int>& in, unsigned block) {
  return guide_sum<device::sum_kernel_tile4>(in, block, block * sizeof(int));
}
inline int guide_tile32_sum(const std::vector<int>& in, unsigned block) {
  return guide_sum<device::sum_kernel_tile32>(in, block, 0);
}

// The Guide's host code for a grid that fills the GPU, as written there.
inline std::vector<int> guide_grid_sync(const std::vector<int>& in, unsigned* blocks_launched) {
  cudalab::DeviceBuffer<int> d_data_buffer(in);
  cudalab::DeviceBuffer<int> d_result_buffer(in.size());
  int* d_data = d_data_buffer.data();
  int* d_result = d_result_buffer.data();
  int n = static_cast<int>(in.size());

  int dev = 0;
  int supportsCoopLaunch = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&supportsCoopLaunch, cudaDevAttrCooperativeLaunch, dev));
  if (!supportsCoopLaunch) throw std::runtime_error("the device has no cooperative launch");
  /// This will launch a grid that can maximally fill the GPU, on the default stream with kernel
  /// arguments
  int numBlocksPerSm = 0;
  // Number of threads my_kernel will be launched with
  int numThreads = 128;
  cudaDeviceProp deviceProp;
  CUDA_CHECK(cudaGetDeviceProperties(&deviceProp, dev));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&numBlocksPerSm, device::my_kernel,
                                                           numThreads, 0));
  // launch
  void* kernelArgs[] = {&d_data, &d_result, &n};
  dim3 dimBlock(numThreads, 1, 1);
  dim3 dimGrid(deviceProp.multiProcessorCount * numBlocksPerSm, 1, 1);
  CUDA_CHECK(cudaLaunchCooperativeKernel((void*)device::my_kernel, dimGrid, dimBlock, kernelArgs));
  CUDA_CHECK(cudaDeviceSynchronize());
  *blocks_launched = dimGrid.x;
  return d_result_buffer.copy_to_host();
}

inline const Kernels& kernels() {
  static const Kernels table{
      &block_sum<int>,
      &block_sum<unsigned>,
      &block_sum<float>,
      &block_sum<double>,
      &tile_ops<4>,
      &tile_ops<8>,
      &tile_ops<16>,
      &multi_warp_tiles<64>,
      &multi_warp_tiles<128>,
      &scan<float, cg::plus<float>>,
      &scan<double, cg::plus<double>>,
      &scan<unsigned, cg::bit_xor<unsigned>>,
      &coalesced,
      &grid_rounds,
      &grid_limit,
      &grid_sync_not_cooperative,
      &guide_block_sum,
      &guide_tile4_sum,
      &guide_tile32_sum,
      &guide_grid_sync,
  };
  return table;
}

}  // namespace CUDALAB_BACKEND
}  // namespace coop_groups
