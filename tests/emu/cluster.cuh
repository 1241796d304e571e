// The kernels of cluster.hpp, one source for both backends (inside the
// inline namespace CUDALAB_BACKEND, so both builds link into one program).
#pragma once

#include <cooperative_groups.h>

#include <cstdint>
#include <vector>

#include "cluster.hpp"
#include "cudalab/check.hpp"
#include "cudalab/cluster_ptx.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/kernel.hpp"
#include "cudalab/mbarrier.hpp"
#include "cudalab/setmaxnreg.hpp"

namespace cg = cooperative_groups;

namespace cluster {
inline namespace CUDALAB_BACKEND {

namespace device {

__global__ void cluster_sum_kernel(const int* in, int n, long long* out) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ long long block_sum;
  const unsigned block_linear = blockIdx.x + blockIdx.y * gridDim.x;
  const int i = static_cast<int>(block_linear * blockDim.x + threadIdx.x);
  if (threadIdx.x == 0) block_sum = 0;
  __syncthreads();
  if (i < n)
    atomicAdd(reinterpret_cast<unsigned long long*>(&block_sum),
              static_cast<unsigned long long>(static_cast<long long>(in[i])));
  cluster.sync();  // every block's sum is in, and every block has started
  if (cluster.block_rank() == 0 && threadIdx.x == 0) {
    long long total = 0;
    for (unsigned r = 0; r < cluster.num_blocks(); ++r)
      total += *cluster.map_shared_rank(&block_sum, r);
    const unsigned clusters_x = gridDim.x / cluster.dim_blocks().x;
    out[blockIdx.x / cluster.dim_blocks().x + blockIdx.y / cluster.dim_blocks().y * clusters_x] =
        total;
  }
  cluster.sync();  // no block exits while rank 0 still reads its sum
}

__global__ void halo_kernel(const int* in, int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  extern __shared__ int tile[];
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = in[i];
  cluster.sync();
  const unsigned rank = cluster.block_rank();
  int left = 0, right = 0;
  if (threadIdx.x > 0) {
    left = tile[threadIdx.x - 1];
  } else if (rank > 0) {
    left = cluster.map_shared_rank(tile, static_cast<int>(rank - 1))[blockDim.x - 1];
  }
  if (threadIdx.x + 1 < blockDim.x) {
    right = tile[threadIdx.x + 1];
  } else if (rank + 1 < cluster.num_blocks()) {
    right = cluster.map_shared_rank(tile, static_cast<int>(rank + 1))[0];
  }
  out[i] = left + tile[threadIdx.x] + right;
  cluster.sync();
}

__global__ void cluster_info_kernel(BlockView* out) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ unsigned word;
  if (threadIdx.x == 0) word = 1;
  cluster.sync();
  if (threadIdx.x == 0) {
    BlockView v;
    v.block_rank = cluster.block_rank();
    v.num_blocks = cluster.num_blocks();
    v.dim_x = cluster.dim_blocks().x;
    v.dim_y = cluster.dim_blocks().y;
    v.dim_z = cluster.dim_blocks().z;
    v.index_x = cluster.block_index().x;
    v.index_y = cluster.block_index().y;
    v.index_z = cluster.block_index().z;
    v.num_threads = static_cast<unsigned>(cluster.num_threads());
    v.thread_rank_of_thread0 = static_cast<unsigned>(cluster.thread_rank());
    v.query_own = cluster.query_shared_rank(&word);
    v.query_peer = cluster.query_shared_rank(cluster.map_shared_rank(&word, 0));
    out[blockIdx.x + (blockIdx.y + blockIdx.z * gridDim.y) * gridDim.x] = v;
  }
  cluster.sync();
}

__global__ void empty_kernel() {}

// Clusters from the kernel's own attribute, launched with <<<...>>>: each
// block swaps its values with its pair's through distributed shared memory.
__global__ void __cluster_dims__(2, 1, 1) pair_swap_kernel(const int* in, int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  extern __shared__ int values[];
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  values[threadIdx.x] = in[i];
  cluster.sync();
  out[i] = cluster.map_shared_rank(values, static_cast<int>(cluster.block_rank() ^ 1))[threadIdx.x];
  cluster.sync();
}

// The same from a template whose parameter gives the cluster's width.
template <unsigned Width>
__global__ void __cluster_dims__(Width, 1, 1) shape_kernel(unsigned* out) {
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) out[blockIdx.x] = cluster.num_blocks() * 100 + cluster.block_rank();
}

// Split barrier: each block publishes its values, arrives, does work of its
// own that touches no peer's memory, then waits and reads its right
// neighbour's values (the last block wraps to rank 0).
__global__ void split_barrier_kernel(const int* in, int* out, int* own) {
  cg::cluster_group cluster = cg::this_cluster();
  extern __shared__ int values[];
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  values[threadIdx.x] = in[i];
  cluster.barrier_arrive();
  own[i] = in[i] * 3 + 1;  // independent of the peers
  cluster.barrier_wait();
  const unsigned next = (cluster.block_rank() + 1) % cluster.num_blocks();
  out[i] = cluster.map_shared_rank(values, static_cast<int>(next))[threadIdx.x];
  cluster.sync();
}

// The PTX-level view: special registers, the split barrier.cluster and a
// word read from the next rank's shared memory through mapa.
__global__ void registers_kernel(RegisterView* out) {
  __shared__ unsigned word;
  if (threadIdx.x == 0) word = cudalab::cluster_ctarank() * 10 + 7;
  cudalab::cluster_arrive();
  cudalab::cluster_wait();
  if (threadIdx.x == 0) {
    RegisterView v;
    v.ctarank = cudalab::cluster_ctarank();
    v.nctarank = cudalab::cluster_nctarank();
    v.ctaid = cudalab::cluster_ctaid();
    v.nctaid = cudalab::cluster_nctaid();
    v.clusterid = cudalab::cluster_id();
    v.nclusterid = cudalab::cluster_nclusterid();
    v.next_word = *cudalab::cluster_map_shared(&word, (v.ctarank + 1) % v.nctarank);
    out[blockIdx.x + (blockIdx.y + blockIdx.z * gridDim.y) * gridDim.x] = v;
  }
  cudalab::cluster_arrive_relaxed();  // no block exits while a peer reads its word
  cudalab::cluster_wait();
}

// Warp specialisation: warpgroup 0 loads the block's tile with few
// registers, warpgroups 1 and 2 compute with many (the register split of
// CUTLASS's Hopper kernels: 128 * 40 + 256 * 232 <= 65536).
__global__ void __launch_bounds__(384, 1) warp_specialised_kernel(const int* in, int* out) {
  __shared__ int tile[256];
  const unsigned warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    cudalab::setmaxnreg_dec<40>();
    for (unsigned j = threadIdx.x; j < 256; j += 128) tile[j] = in[blockIdx.x * 256 + j];
  } else {
    cudalab::setmaxnreg_inc<232>();
  }
  __syncthreads();
  if (warpgroup > 0) {
    const unsigned j = threadIdx.x - 128;
    out[blockIdx.x * 256 + j] = tile[j] * 2 + 1;
  }
}

// A two-block pipeline through peers' mbarriers: rank 1 writes each round
// into rank 0's shared slot and arrives on rank 0's `full`; rank 0 doubles
// the values and arrives on rank 1's `empty`, which frees the slot.
__global__ void peer_mbarrier_kernel(const int* in, int* out, int rounds) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ int slot[64];
  __shared__ std::uint64_t full, empty;
  if (threadIdx.x == 0) {
    cudalab::mbarrier_init(&full, blockDim.x);
    cudalab::mbarrier_init(&empty, blockDim.x);
    cudalab::fence_mbarrier_init();
  }
  cluster.sync();  // both blocks' barriers are initialised
  int* consumer_slot = cluster.map_shared_rank(slot, 0);
  for (int r = 0; r < rounds; ++r) {
    const unsigned parity = static_cast<unsigned>(r) & 1u;
    if (cluster.block_rank() == 1) {
      if (r > 0) cudalab::mbarrier_wait_parity_cluster(&empty, parity ^ 1u);
      consumer_slot[threadIdx.x] = in[r * blockDim.x + threadIdx.x];
      cudalab::mbarrier_arrive_cluster(&full, 0);
    } else {
      cudalab::mbarrier_wait_parity_cluster(&full, parity);
      out[r * blockDim.x + threadIdx.x] = slot[threadIdx.x] * 2;
      cudalab::mbarrier_arrive_cluster(&empty, 1);
    }
  }
  cluster.sync();  // no block exits while the other may still signal it
}

__global__ void occupancy_probe_kernel() {}

}  // namespace device

// Positional: on the emulator gridDim and blockDim are macros (the kernel's
// built-in variables), so the fields cannot be named.
inline cudaLaunchConfig_t cluster_config(dim3 grid, dim3 block, std::size_t shared, dim3 cluster,
                                         cudaLaunchAttribute* attribute) {
  cudaLaunchConfig_t config = {grid, block, shared, nullptr, nullptr, 0};
  attribute->id = cudaLaunchAttributeClusterDimension;
  attribute->val.clusterDim.x = cluster.x;
  attribute->val.clusterDim.y = cluster.y;
  attribute->val.clusterDim.z = cluster.z;
  config.attrs = attribute;
  config.numAttrs = 1;
  return config;
}

inline std::vector<long long> cluster_sums(const std::vector<int>& in, dim3 grid, dim3 cluster,
                                           unsigned block, cudaError_t* launch) {
  const unsigned clusters = grid.x / cluster.x * (grid.y / cluster.y);
  cudalab::DeviceBuffer<int> d_in(in);
  cudalab::DeviceBuffer<long long> d_out(clusters);
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config = cluster_config(grid, dim3(block), 0, cluster, &attribute);
  *launch = cudaLaunchKernelEx(&config, device::cluster_sum_kernel, d_in.data(),
                               static_cast<int>(in.size()), d_out.data());
  if (*launch != cudaSuccess) return {};
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_out.copy_to_host();
}

inline std::vector<int> halo(const std::vector<int>& in, unsigned cluster, unsigned block,
                             cudaError_t* launch) {
  cudalab::DeviceBuffer<int> d_in(in);
  cudalab::DeviceBuffer<int> d_out(in.size());
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config =
      cluster_config(dim3(static_cast<unsigned>(in.size()) / block), dim3(block),
                     block * sizeof(int), dim3(cluster), &attribute);
  *launch = cudaLaunchKernelEx(&config, device::halo_kernel, d_in.data(), d_out.data());
  if (*launch != cudaSuccess) return {};
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_out.copy_to_host();
}

inline std::vector<BlockView> views(dim3 grid, dim3 cluster, unsigned block, cudaError_t* launch) {
  cudalab::DeviceBuffer<BlockView> d_out(grid.x * grid.y * grid.z);
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config = cluster_config(grid, dim3(block), 0, cluster, &attribute);
  *launch = cudaLaunchKernelEx(&config, device::cluster_info_kernel, d_out.data());
  if (*launch != cudaSuccess) return {};
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_out.copy_to_host();
}

inline cudaError_t launch_error(dim3 grid, dim3 cluster, bool non_portable) {
  CUDA_CHECK(cudaFuncSetAttribute(
      device::empty_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, non_portable ? 1 : 0));
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config = cluster_config(grid, dim3(32), 0, cluster, &attribute);
  const cudaError_t error = cudaLaunchKernelEx(&config, device::empty_kernel);
  (void)cudaGetLastError();  // a refused launch leaves its error behind
  if (error == cudaSuccess) CUDA_CHECK(cudaDeviceSynchronize());
  return error;
}

inline std::vector<int> pair_swap(const std::vector<int>& in, unsigned grid, unsigned block,
                                  cudaError_t* launch) {
  cudalab::DeviceBuffer<int> d_in(in);
  cudalab::DeviceBuffer<int> d_out(in.size());
  device::pair_swap_kernel<<<grid, block, block * sizeof(int)>>>(d_in.data(), d_out.data());
  *launch = cudaGetLastError();
  if (*launch != cudaSuccess) return {};
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_out.copy_to_host();
}

inline std::vector<unsigned> template_shapes(unsigned grid, cudaError_t* launch) {
  cudalab::DeviceBuffer<unsigned> d_out(2 * grid);
  device::shape_kernel<4><<<grid, 32>>>(d_out.data());
  *launch = cudaGetLastError();
  if (*launch != cudaSuccess) return {};
  device::shape_kernel<1><<<grid, 32>>>(d_out.data() + grid);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_out.copy_to_host();
}

inline SplitResult split_barrier(const std::vector<int>& in, unsigned cluster, unsigned block,
                                 cudaError_t* launch) {
  cudalab::DeviceBuffer<int> d_in(in);
  cudalab::DeviceBuffer<int> d_out(in.size());
  cudalab::DeviceBuffer<int> d_own(in.size());
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config =
      cluster_config(dim3(static_cast<unsigned>(in.size()) / block), dim3(block),
                     block * sizeof(int), dim3(cluster), &attribute);
  *launch = cudaLaunchKernelEx(&config, device::split_barrier_kernel, d_in.data(), d_out.data(),
                               d_own.data());
  if (*launch != cudaSuccess) return {};
  CUDA_CHECK(cudaDeviceSynchronize());
  return {d_out.copy_to_host(), d_own.copy_to_host()};
}

inline std::vector<RegisterView> registers(dim3 grid, dim3 cluster, cudaError_t* launch) {
  cudalab::DeviceBuffer<RegisterView> d_out(grid.x * grid.y * grid.z);
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config = cluster_config(grid, dim3(64), 0, cluster, &attribute);
  *launch = cudaLaunchKernelEx(&config, device::registers_kernel, d_out.data());
  if (*launch != cudaSuccess) return {};
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_out.copy_to_host();
}

inline std::vector<int> warp_specialised(const std::vector<int>& in) {
  cudalab::DeviceBuffer<int> d_in(in);
  cudalab::DeviceBuffer<int> d_out(in.size());
  device::warp_specialised_kernel<<<static_cast<unsigned>(in.size() / 256), 384>>>(d_in.data(),
                                                                                   d_out.data());
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_out.copy_to_host();
}

inline std::vector<int> peer_mbarrier(const std::vector<int>& in, int rounds, cudaError_t* launch) {
  cudalab::DeviceBuffer<int> d_in(in);
  cudalab::DeviceBuffer<int> d_out(in.size());
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config = cluster_config(dim3(2), dim3(64), 0, dim3(2), &attribute);
  *launch =
      cudaLaunchKernelEx(&config, device::peer_mbarrier_kernel, d_in.data(), d_out.data(), rounds);
  if (*launch != cudaSuccess) return {};
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_out.copy_to_host();
}

inline ClusterOccupancy occupancy(unsigned threads, std::size_t dynamic_shared) {
  const auto kernel = device::occupancy_probe_kernel;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(dynamic_shared)));
  ClusterOccupancy o;
  cudaLaunchAttribute attribute;
  cudaLaunchConfig_t config =
      cluster_config(dim3(16), dim3(threads), dynamic_shared, dim3(1), &attribute);
  for (int non_portable : {0, 1}) {
    CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, non_portable));
    CUDA_CHECK(cudaOccupancyMaxPotentialClusterSize(
        non_portable ? &o.potential_non_portable : &o.potential_portable, kernel, &config));
  }
  for (unsigned size : {1u, 2u, 4u, 8u, 16u}) {
    attribute.val.clusterDim.x = size;
    int clusters = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
    o.active.push_back(clusters);
  }
  config.numAttrs = 0;
  o.active_without_size =
      cudaOccupancyMaxActiveClusters(&o.active_without_size_clusters, kernel, &config);
  (void)cudaGetLastError();  // a refusal is the last error too: leave none behind
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 0));
  return o;
}

inline const Kernels& kernels() {
  static const Kernels table{&cluster_sums,  &halo,      &views,
                             &launch_error,  &pair_swap, &template_shapes,
                             &split_barrier, &registers, &warp_specialised,
                             &peer_mbarrier, &occupancy};
  return table;
}

}  // namespace CUDALAB_BACKEND
}  // namespace cluster
