// Thread block clusters on both backends: cluster.cuh holds the kernels and
// their cudaLaunchKernelEx launches as plain CUDA, compiled for the emulator
// (cluster_emu.cpp, rewritten and instrumented) and by nvcc (cluster_gpu.cu,
// sm_90); test_cluster.cpp runs each on both and checks the values.
#pragma once

#include <driver_types.h>
#include <vector_types.h>

#include <string>
#include <vector>

namespace cluster {

// What one block saw of its cluster (cluster_info_kernel).
struct BlockView {
  unsigned block_rank, num_blocks;
  unsigned dim_x, dim_y, dim_z;
  unsigned index_x, index_y, index_z;
  unsigned num_threads, thread_rank_of_thread0;
  unsigned query_own, query_peer;  // query_shared_rank of its own and of rank 0's shared word
};

struct Kernels {
  // One sum per cluster of in (blocks of `block` threads, grid `grid`,
  // clusters `cluster`): each block sums its part into shared memory, rank 0
  // adds its peers' sums through distributed shared memory.
  std::vector<long long> (*cluster_sums)(const std::vector<int>& in, dim3 grid, dim3 cluster,
                                         unsigned block, cudaError_t* launch);
  // out[i] = in[i-1] + in[i] + in[i+1] within each cluster's span (blocks of
  // `block` threads in a row of clusters of `cluster` blocks): the values next
  // to a block's edge come from the neighbouring block's shared memory.
  std::vector<int> (*halo)(const std::vector<int>& in, unsigned cluster, unsigned block,
                           cudaError_t* launch);
  // Per block of a grid launched with clusters of `cluster`.
  std::vector<BlockView> (*views)(dim3 grid, dim3 cluster, unsigned block, cudaError_t* launch);
  // What cudaLaunchKernelEx returns for a grid of `grid` in clusters of
  // `cluster`, with or without cudaFuncAttributeNonPortableClusterSizeAllowed.
  cudaError_t (*launch_error)(dim3 grid, dim3 cluster, bool non_portable);
};

const Kernels& emulator_kernels();
const Kernels& gpu_kernels();
std::string gpu_unavailable_reason();  // empty on a GPU of compute capability 9.0 or newer

// The emulator's reports about kernels that are wrong on a GPU.
struct PlantedReports {
  std::string race_kind, race_message;
  std::string exited_kind, exited_message;
  std::string rank_kind, rank_message;
  cudaError_t rank_error = cudaSuccess;
};
PlantedReports emulator_planted_reports();

}  // namespace cluster
