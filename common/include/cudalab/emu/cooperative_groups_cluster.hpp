// cooperative_groups::this_cluster() for kernels compiled by the host
// compiler: the thread block cluster of the caller's block (sm_90), as
// CUDA 13.0's cluster_group. A launch with a cluster dimension
// (cudaLaunchKernelEx, cudalab/emu/cluster_launch.hpp) runs each cluster's
// blocks at once (common/emu/cluster.cpp); any other launch's block is a
// cluster of one, as on the GPU.
//
//   sync()                         every thread of every block of the cluster
//   barrier_arrive(), barrier_wait()
//                                  sync() split in two: arrive does not block,
//                                  wait needs the thread's arrival and waits
//                                  for every block's (and, stricter than the
//                                  GPU, for its own block's threads to wait)
//   block_rank(), num_blocks(), dim_blocks(), block_index()
//   num_threads(), thread_rank(), dim_threads()
//   map_shared_rank(p, rank)       the same __shared__ address in block `rank`
//                                  of the cluster (distributed shared memory)
//   query_shared_rank(p)           the rank whose shared memory p points into
#pragma once

#include <vector_types.h>

#include <source_location>

#include "cudalab/emu/cooperative_groups.hpp"

namespace cudalab::emu::detail {

// The launch's cluster shape; (1,1,1) outside a cluster launch (cluster.cpp).
dim3 cluster_dims() noexcept;
void cluster_sync(const std::source_location& site);
void cluster_barrier_arrive(const std::source_location& site);
void cluster_barrier_wait(const std::source_location& site);
// `pointer`'s offset in the shared memory it points into, in block `rank`'s
// shared memory; a rank outside the cluster, or a pointer into no block's
// shared memory, is a report that stops the block.
void* map_shared_rank(const void* pointer, unsigned rank, const std::source_location& site);
unsigned query_shared_rank(const void* pointer) noexcept;

}  // namespace cudalab::emu::detail

namespace cooperative_groups {

class cluster_group {
 public:
  static bool is_valid() { return true; }  // every block is in a cluster, if of one
  static void sync(std::source_location site = std::source_location::current()) {
    ::cudalab::emu::detail::cluster_sync(site);
  }
  static void barrier_arrive(std::source_location site = std::source_location::current()) {
    ::cudalab::emu::detail::cluster_barrier_arrive(site);
  }
  static void barrier_wait(std::source_location site = std::source_location::current()) {
    ::cudalab::emu::detail::cluster_barrier_wait(site);
  }
  static dim3 dim_blocks() { return ::cudalab::emu::detail::cluster_dims(); }
  static unsigned int num_blocks() {
    const dim3 c = dim_blocks();
    return c.x * c.y * c.z;
  }
  static dim3 block_index() {
    const dim3 c = dim_blocks();
    const uint3 b = ::cudalab::emu::detail::block_idx();
    return dim3(b.x % c.x, b.y % c.y, b.z % c.z);
  }
  static unsigned int block_rank() {
    const dim3 c = dim_blocks();
    const dim3 i = block_index();
    return i.x + (i.y + i.z * c.y) * c.x;
  }
  static dim3 dim_threads() {
    const dim3 c = dim_blocks();
    const dim3 b = ::cudalab::emu::detail::block_dim();
    return dim3(c.x * b.x, c.y * b.y, c.z * b.z);
  }
  static unsigned int num_threads() {
    const dim3 b = ::cudalab::emu::detail::block_dim();
    return num_blocks() * b.x * b.y * b.z;
  }
  static unsigned int size() { return num_threads(); }
  static unsigned int thread_rank() {
    const dim3 b = ::cudalab::emu::detail::block_dim();
    return block_rank() * (b.x * b.y * b.z) + ::cudalab::emu::detail::block_thread_rank();
  }
  template <class T>
  static T* map_shared_rank(T* pointer, int rank,
                            std::source_location site = std::source_location::current()) {
    return static_cast<T*>(
        ::cudalab::emu::detail::map_shared_rank(pointer, static_cast<unsigned>(rank), site));
  }
  template <class T>
  static T& map_shared_rank(T& object, int rank,
                            std::source_location site = std::source_location::current()) {
    return *map_shared_rank(&object, rank, site);
  }
  static unsigned int query_shared_rank(const void* pointer) {
    return ::cudalab::emu::detail::query_shared_rank(pointer);
  }
};

inline cluster_group this_cluster() { return cluster_group(); }

}  // namespace cooperative_groups
