// Thread block clusters on both backends: cluster.cuh holds the kernels and
// their cudaLaunchKernelEx launches as plain CUDA, compiled for the emulator
// (cluster_emu.cpp, rewritten and instrumented) and by nvcc (cluster_gpu.cu,
// sm_90); test_cluster.cpp runs each on both and checks the values.
#pragma once

#include <driver_types.h>
#include <vector_types.h>

#include <cstddef>
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

// What one block read of PTX's cluster special registers
// (registers_kernel), and the word of the next rank it read through mapa.
struct RegisterView {
  unsigned ctarank, nctarank;
  uint3 ctaid, nctaid, clusterid, nclusterid;
  unsigned next_word;  // next rank * 10 + 7
};

struct SplitResult {
  std::vector<int> neighbours, own;
};

// The cluster occupancy queries for one block shape.
struct ClusterOccupancy {
  int potential_portable = 0;      // cudaOccupancyMaxPotentialClusterSize
  int potential_non_portable = 0;  // the same with NonPortableClusterSizeAllowed
  // cudaOccupancyMaxActiveClusters for clusters of 1, 2, 4, 8 and 16 blocks
  // (16 with NonPortableClusterSizeAllowed).
  std::vector<int> active;
  cudaError_t active_without_size = cudaSuccess;  // no cluster size in the config
  int active_without_size_clusters = 0;           // and its answer
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
  // A kernel declared __cluster_dims__(2, 1, 1) launched <<<grid, block>>>:
  // out[i] is in[] at the same thread of the pair's other block.
  std::vector<int> (*pair_swap)(const std::vector<int>& in, unsigned grid, unsigned block,
                                cudaError_t* launch);
  // shape_kernel<4> then shape_kernel<1> (template kernels with
  // __cluster_dims__(Width, 1, 1)) on `grid` blocks: per block
  // num_blocks * 100 + block_rank, the two launches one after the other.
  std::vector<unsigned> (*template_shapes)(unsigned grid, cudaError_t* launch);
  // barrier_arrive(), work of the block's own, barrier_wait(), then each
  // block reads its next neighbour's values in the cluster (wrapping).
  SplitResult (*split_barrier)(const std::vector<int>& in, unsigned cluster, unsigned block,
                               cudaError_t* launch);
  // Per block of `grid` launched in clusters of `cluster`.
  std::vector<RegisterView> (*registers)(dim3 grid, dim3 cluster, cudaError_t* launch);
  // out = in * 2 + 1 by a warp-specialised kernel (setmaxnreg) on blocks of
  // 384 threads, 256 values each; in.size() a multiple of 256.
  std::vector<int> (*warp_specialised)(const std::vector<int>& in);
  // out = in * 2 through a pipeline of two blocks of 64 threads that signal
  // each other's mbarriers, `rounds` rounds of 64 values.
  std::vector<int> (*peer_mbarrier)(const std::vector<int>& in, int rounds, cudaError_t* launch);
  // The queries for an empty kernel with blocks of `threads` threads and
  // `dynamic_shared` bytes of dynamic shared memory.
  ClusterOccupancy (*occupancy)(unsigned threads, std::size_t dynamic_shared);
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
  std::string wait_kind, wait_message;              // barrier_wait() without barrier_arrive()
  std::string split_race_kind;                      // a peer's word written between arrive and wait
  std::string setmaxnreg_kind, setmaxnreg_message;  // in a block of 96 threads
  // A peer's mbarrier at a rank outside the cluster, and at the wrong rank
  // (the arriving block's own): the reports' kinds, all of them in order.
  std::vector<std::string> outside_rank_kinds, own_rank_kinds;
  std::string own_rank_hang_message;  // the `mbarrier` report of the waiting block
};
PlantedReports emulator_planted_reports();

}  // namespace cluster
