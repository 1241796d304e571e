// PTX's thread block cluster instructions on both backends, for kernels
// that write Hopper code at the level of the instruction set rather than
// through cooperative_groups::this_cluster() (which wraps the same).
//
//   cudalab::cluster_arrive()            barrier.cluster.arrive: this thread arrived
//                                        (does not wait)
//   cudalab::cluster_arrive_relaxed()    barrier.cluster.arrive.relaxed: the same without
//                                        release ordering of earlier memory accesses
//   cudalab::cluster_wait()              barrier.cluster.wait: until every thread of the
//                                        cluster arrived (each thread arrives first)
//   cudalab::cluster_ctarank()           %cluster_ctarank: the block's rank in its cluster
//   cudalab::cluster_nctarank()          %cluster_nctarank: blocks per cluster
//   cudalab::cluster_ctaid()             %cluster_ctaid: the block's index in its cluster
//   cudalab::cluster_nctaid()            %cluster_nctaid: the cluster's shape in blocks
//   cudalab::cluster_id()                %clusterid: the cluster's index in the grid
//   cudalab::cluster_nclusterid()        %nclusterid: the grid's shape in clusters
//   cudalab::cluster_map_shared(p, rank) mapa.u64: the address of the same shared
//                                        variable in block `rank` of the cluster
//                                        (distributed shared memory, plain loads and stores)
//   cudalab::mbarrier_arrive_cluster(bar, rank)
//                                        mapa.shared::cluster, then
//                                        mbarrier.arrive.release.cluster.shared::cluster:
//                                        arrive on the mbarrier at bar's offset in block
//                                        `rank` (initialised there, cudalab/mbarrier.hpp)
//   cudalab::mbarrier_arrive_cluster_relaxed(bar, rank)
//                                        the same with .relaxed: the arrival orders none of
//                                        this thread's earlier accesses. To free a buffer
//                                        whose reads have completed (a stage that wgmma read,
//                                        after wgmma_wait_group), as CUTLASS's consumers do:
//                                        the release form costs a GPU-wide fence
//                                        (MEMBAR.ALL.GPU) per arrival, the relaxed one none
//   cudalab::mbarrier_wait_parity_cluster(bar, p)
//                                        mbarrier.try_wait.parity.acquire.cluster until
//                                        true: wait on one's own barrier and see what the
//                                        peers that arrived on it wrote before
//
// sm_90. On the emulator (common/emu/cluster.cpp) a relaxed arrival orders
// as a release one (a peer that reads what the arriving thread wrote is not
// reported; on the GPU it may read stale data). The barrier is the cluster
// model's split barrier, with its checks (a wait without an arrival is a
// reported hang), mapped pointers are checked as cluster.map_shared_rank's,
// and a peer's arrival reaches the owner block's mbarrier model (a phase
// that no peer can complete any more is a reported hang). Not wrapped:
// ld/st.shared::cluster on 32-bit shared::cluster addresses (use the
// generic pointer cluster_map_shared returns).
#pragma once

#include <vector_types.h>

#include <cstdint>

#include "cudalab/mbarrier.hpp"

#if defined(__CUDACC__)

namespace cudalab {

__device__ __forceinline__ void cluster_arrive() {
  asm volatile("barrier.cluster.arrive;" ::: "memory");
}
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait;" ::: "memory");
}

#define CUDALAB_CLUSTER_REGISTER(name, reg)             \
  __device__ __forceinline__ unsigned name() {          \
    unsigned value;                                     \
    asm volatile("mov.u32 %0, " reg ";" : "=r"(value)); \
    return value;                                       \
  }
CUDALAB_CLUSTER_REGISTER(cluster_ctarank, "%cluster_ctarank")
CUDALAB_CLUSTER_REGISTER(cluster_nctarank, "%cluster_nctarank")
CUDALAB_CLUSTER_REGISTER(cluster_ctaid_x, "%cluster_ctaid.x")
CUDALAB_CLUSTER_REGISTER(cluster_ctaid_y, "%cluster_ctaid.y")
CUDALAB_CLUSTER_REGISTER(cluster_ctaid_z, "%cluster_ctaid.z")
CUDALAB_CLUSTER_REGISTER(cluster_nctaid_x, "%cluster_nctaid.x")
CUDALAB_CLUSTER_REGISTER(cluster_nctaid_y, "%cluster_nctaid.y")
CUDALAB_CLUSTER_REGISTER(cluster_nctaid_z, "%cluster_nctaid.z")
CUDALAB_CLUSTER_REGISTER(cluster_id_x, "%clusterid.x")
CUDALAB_CLUSTER_REGISTER(cluster_id_y, "%clusterid.y")
CUDALAB_CLUSTER_REGISTER(cluster_id_z, "%clusterid.z")
CUDALAB_CLUSTER_REGISTER(cluster_nclusterid_x, "%nclusterid.x")
CUDALAB_CLUSTER_REGISTER(cluster_nclusterid_y, "%nclusterid.y")
CUDALAB_CLUSTER_REGISTER(cluster_nclusterid_z, "%nclusterid.z")
#undef CUDALAB_CLUSTER_REGISTER

__device__ __forceinline__ uint3 cluster_ctaid() {
  return make_uint3(cluster_ctaid_x(), cluster_ctaid_y(), cluster_ctaid_z());
}
__device__ __forceinline__ uint3 cluster_nctaid() {
  return make_uint3(cluster_nctaid_x(), cluster_nctaid_y(), cluster_nctaid_z());
}
__device__ __forceinline__ uint3 cluster_id() {
  return make_uint3(cluster_id_x(), cluster_id_y(), cluster_id_z());
}
__device__ __forceinline__ uint3 cluster_nclusterid() {
  return make_uint3(cluster_nclusterid_x(), cluster_nclusterid_y(), cluster_nclusterid_z());
}

template <class T>
__device__ __forceinline__ T* cluster_map_shared(T* pointer, unsigned rank) {
  T* mapped;
  asm volatile("mapa.u64 %0, %1, %2;" : "=l"(mapped) : "l"(pointer), "r"(rank));
  return mapped;
}

// bar's offset in block `rank`'s shared memory, as a shared::cluster address.
__device__ __forceinline__ unsigned cluster_shared_address(const std::uint64_t* bar,
                                                           unsigned rank) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(remote)
               : "r"(static_cast<unsigned>(__cvta_generic_to_shared(bar))), "r"(rank));
  return remote;
}

__device__ __forceinline__ void mbarrier_arrive_cluster(std::uint64_t* bar, unsigned rank) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(
                   cluster_shared_address(bar, rank))
               : "memory");
}

__device__ __forceinline__ void mbarrier_arrive_cluster_relaxed(std::uint64_t* bar, unsigned rank) {
  asm volatile("mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [%0];" ::"r"(
                   cluster_shared_address(bar, rank))
               : "memory");
}

__device__ __forceinline__ void mbarrier_wait_parity_cluster(std::uint64_t* bar, unsigned parity) {
  unsigned done = 0;
  while (!done) {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], "
        "%2;\n selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(static_cast<unsigned>(__cvta_generic_to_shared(bar))), "r"(parity)
        : "memory");
  }
}

}  // namespace cudalab

#else  // the emulator

#include <source_location>

#include "cudalab/emu/cooperative_groups_cluster.hpp"

namespace cudalab {

inline void cluster_arrive(std::source_location site = std::source_location::current()) {
  ::cudalab::emu::detail::cluster_barrier_arrive(site);
}
// The emulator orders memory at the barrier either way.
inline void cluster_arrive_relaxed(std::source_location site = std::source_location::current()) {
  ::cudalab::emu::detail::cluster_barrier_arrive(site);
}
inline void cluster_wait(std::source_location site = std::source_location::current()) {
  ::cudalab::emu::detail::cluster_barrier_wait(site);
}
inline unsigned cluster_ctarank() { return cooperative_groups::this_cluster().block_rank(); }
inline unsigned cluster_nctarank() { return cooperative_groups::this_cluster().num_blocks(); }
inline uint3 cluster_nctaid() {
  const dim3 c = ::cudalab::emu::detail::cluster_dims();
  return make_uint3(c.x, c.y, c.z);
}
inline uint3 cluster_ctaid() {
  const dim3 i = cooperative_groups::this_cluster().block_index();
  return make_uint3(i.x, i.y, i.z);
}
inline uint3 cluster_id() {
  const uint3 b = ::cudalab::emu::detail::block_idx(), c = cluster_nctaid();
  return make_uint3(b.x / c.x, b.y / c.y, b.z / c.z);
}
inline uint3 cluster_nclusterid() {
  const dim3 g = ::cudalab::emu::detail::grid_dim();
  const uint3 c = cluster_nctaid();
  return make_uint3(g.x / c.x, g.y / c.y, g.z / c.z);
}
inline void mbarrier_arrive_cluster(std::uint64_t* bar, unsigned rank,
                                    std::source_location site = std::source_location::current()) {
  ::cudalab::emu::mbarrier_arrive_cluster(bar, rank, site);
}
// The emulator orders memory at the barrier either way.
inline void mbarrier_arrive_cluster_relaxed(
    std::uint64_t* bar, unsigned rank,
    std::source_location site = std::source_location::current()) {
  ::cudalab::emu::mbarrier_arrive_cluster(bar, rank, site);
}
inline void mbarrier_wait_parity_cluster(
    std::uint64_t* bar, unsigned parity,
    std::source_location site = std::source_location::current()) {
  ::cudalab::emu::mbarrier_wait_parity(bar, parity, site);
}
template <class T>
T* cluster_map_shared(T* pointer, unsigned rank,
                      std::source_location site = std::source_location::current()) {
  return static_cast<T*>(::cudalab::emu::detail::map_shared_rank(pointer, rank, site));
}

}  // namespace cudalab

#endif
