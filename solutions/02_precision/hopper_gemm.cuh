// Lab 02, exercise 7 (stretch): a Hopper GEMM on TMA, mbarrier and wgmma.
//
// C (m x n, fp32, row-major) = A (m x k, bf16) * B^T, where B (n x k, bf16)
// is stored row-major: both operands are K-major, the layout wgmma reads
// here (cuBLAS calls it "TN": A not transposed, B transposed as stored).
// Operands are bf16 bit patterns, accumulation is fp32.
//
// The design of the published Hopper kernels that reach cuBLAS (CUTLASS's
// warp-specialised persistent kernels, and the single-file kernels written
// after them), one step at a time:
//   tile       a block computes 128 x 256 of C; K goes in steps of 64 bf16
//              values: one 128-byte row of each operand per step.
//   TMA        one thread copies a step's A box (64 x 128) and B box
//              (64 x 256) from global into shared memory with the tensor
//              copy engine: no registers, no address arithmetic per thread,
//              zeros beyond the matrix's edges. The 128-byte swizzle places
//              each 16-byte chunk where wgmma reads it without bank conflicts.
//   pipeline   4 stages of 48 KiB in a ring. Per stage, an mbarrier `full`
//              (the producer announces the bytes, the copy engine completes
//              them) and an mbarrier `empty` (each consumer warpgroup
//              arrives once its tensor cores are done reading the stage).
//   wgmma      two consumer warpgroups, each 64 x 256 of the tile: one
//              m64n256k16 instruction per 16 values of K, 4 per step, their
//              operands straight from shared memory through descriptors.
//   warp specialisation
//              warpgroup 0 only issues copies, warpgroups 1 and 2 only
//              compute; setmaxnreg moves registers from the producer (24)
//              to the consumers (240: 128 of them hold the accumulators).
//   persistent one block per multiprocessor walks the tiles, in groups of 16
//              tile-rows, so that the tiles running at one time share their
//              A rows and B columns in L2; the producer loads the next
//              tile's first steps while the consumers store this one.
//   cluster    two blocks (a cluster, on neighbouring multiprocessors) take
//              two tiles one above the other, which need the same B box:
//              each block loads half of it and multicasts it to both, so B
//              is read from L2 once per pair; a stage is free again only
//              when the consumers of both blocks are done with it, so each
//              arrives on the `empty` barriers of both.
// The epilogue stores the fp32 accumulators straight from registers to
// global memory, skipping elements beyond m and n.
//
// The exercise is the TODO regions of labs/02_precision/ in this file, from
// each `begin` line to its `end` line; README.md says what they want.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "cudalab/check.hpp"
#include "cudalab/cluster_ptx.hpp"
#include "cudalab/kernel.hpp"
#include "cudalab/mbarrier.hpp"
#include "cudalab/setmaxnreg.hpp"
#include "cudalab/tma.hpp"
#include "cudalab/wgmma.hpp"

namespace lab02 {
inline namespace CUDALAB_BACKEND {
namespace hopper_gemm_parts {

inline constexpr int block_m = 128;  // rows of C per tile
inline constexpr int block_n = 256;  // columns of C per tile
inline constexpr int step_k = 64;    // K per step: 64 bf16 = one 128-byte row
inline constexpr int stages = 4;     // steps in flight in the shared ring
inline constexpr int consumers = 2;  // warpgroups that compute, 64 rows of the tile each
// Blocks of a cluster, on tiles one above the other (1: no clusters, each
// block loads its whole B box; the kernel is otherwise the same).
inline constexpr int cluster_m = 2;
inline constexpr int threads = 128 * (1 + consumers);
inline constexpr int group_rows = 16;  // tile-rows walked together (L2 reuse)
inline constexpr int row_bytes = step_k * 2;
inline constexpr unsigned a_box_bytes = block_m * row_bytes;  // 16 KiB
inline constexpr unsigned b_box_bytes = block_n * row_bytes;  // 32 KiB
inline constexpr int b_share_rows = block_n / cluster_m;      // the rows of it a block loads
inline constexpr unsigned b_share_bytes = b_share_rows * row_bytes;
inline constexpr unsigned stage_bytes = a_box_bytes + b_box_bytes;
// The 128-byte swizzle repeats every 1024 bytes: each box starts at a
// multiple of 1024 of the shared window, which dynamic shared memory does
// not promise, so 1024 bytes more allow aligning the ring by hand.
inline constexpr std::size_t shared_bytes =
    1024 + stages * stage_bytes + 2 * stages * sizeof(std::uint64_t);

// The walk goes over cluster tiles, cluster_m tiles one above the other;
// block `rank` of the cluster takes the rank-th. Where cluster tile `tile`
// of the walk puts this block's tile in C. Cluster tiles are numbered down
// a group of group_rows tile-rows first, then across: consecutive ones
// (running at the same time on different multiprocessors) share B's
// columns, and a group's reuse A's rows.
struct TileOrigin {
  int row, col;
};
__device__ inline TileOrigin tile_origin(int tile, int cluster_tiles_m, int tiles_n, int rank) {
  constexpr int group = group_rows / cluster_m;  // cluster tiles down a group
  const int tiles_per_group = group * tiles_n;
  const int first_row = tile / tiles_per_group * group;
  const int rows_here = cluster_tiles_m - first_row < group ? cluster_tiles_m - first_row : group;
  const int in_group = tile % tiles_per_group;
  return {((first_row + in_group % rows_here) * cluster_m + rank) * block_m,
          in_group / rows_here * block_n};
}

// The descriptor of k16 slice `slice` (0-3) of a 128-byte-swizzled box at
// shared address `box`: rows 128 bytes apart, 8-row groups 1024 apart; the
// slice's 32 bytes of K start 32 * slice bytes into the row (the swizzle is
// applied to the whole address, so moving the start is all it takes).
__device__ inline std::uint64_t slice_descriptor(std::uint32_t box, int slice) {
  return cudalab::wgmma_descriptor(box + 32u * static_cast<std::uint32_t>(slice), 0, 8 * row_bytes,
                                   cudalab::WgmmaSwizzle::bytes128);
}

// The ring's position: which stage, and the parity of the phase that
// stage's barriers are in on this pass round the ring.
struct RingPosition {
  int stage = 0;
  unsigned phase = 0;
  __device__ void advance() {
    if (++stage == stages) {
      stage = 0;
      phase ^= 1u;
    }
  }
  __device__ int previous_stage() const { return stage == 0 ? stages - 1 : stage - 1; }
};

struct Ring {
  int rank;                 // of the block in its cluster
  std::uint8_t* at_window;  // at_window + shared address: that byte
  std::uint32_t first;      // shared address of stage 0 (1024-aligned)
  std::uint64_t* full;      // [stages]: the stage's copies have landed
  std::uint64_t* empty;     // [stages]: the consumers of the cluster are done reading it
  __device__ std::uint32_t a_box(int stage) const {
    return first + static_cast<std::uint32_t>(stage) * stage_bytes;
  }
  __device__ std::uint32_t b_box(int stage) const { return a_box(stage) + a_box_bytes; }
};

// The producer (one thread): for every step of every tile of this block,
// wait until the cluster's consumers have freed the stage, announce its
// bytes on `full` and start the copies: A's box for this block, this
// block's share of B's box for every block of the cluster. Each completes
// its bytes on the `full` barrier of the block it lands in.
__device__ inline void produce([[maybe_unused]] const Ring& ring,
                               [[maybe_unused]] const CUtensorMap* a_map,
                               [[maybe_unused]] const CUtensorMap* b_map,
                               [[maybe_unused]] int tiles_m, [[maybe_unused]] int tiles_n,
                               [[maybe_unused]] int k_steps) {
  constexpr auto every_block = static_cast<std::uint16_t>((1u << cluster_m) - 1u);
  const auto b_share = static_cast<std::uint32_t>(ring.rank) * b_share_bytes;
  RingPosition at;
  for (int tile = blockIdx.x / cluster_m; tile < tiles_m * tiles_n; tile += gridDim.x / cluster_m) {
    const TileOrigin origin = tile_origin(tile, tiles_m, tiles_n, ring.rank);
    for (int step = 0; step < k_steps; ++step, at.advance()) {
      // Parity phase ^ 1: the previous pass's phase; on the first pass
      // round the ring it counts as complete, so every stage starts free.
      // Nothing the consumers wrote is read here (they only free the stage):
      // the plain wait, without the cluster-wide acquire.
      cudalab::mbarrier_wait_parity(&ring.empty[at.stage], at.phase ^ 1u);
      // The whole box's bytes arrive even where it hangs over an edge of the
      // matrix: the copy engine fills those elements with zeros. A peer's
      // share may land before this announcement: the phase still cannot
      // complete without this arrival.
      cudalab::mbarrier_arrive_expect_tx(&ring.full[at.stage], stage_bytes);
      cudalab::tma_load(ring.at_window + ring.a_box(at.stage), a_map, &ring.full[at.stage],
                        step * step_k, origin.row);
      cudalab::tma_load_multicast(ring.at_window + ring.b_box(at.stage) + b_share, b_map,
                                  &ring.full[at.stage], every_block, step * step_k,
                                  origin.col + ring.rank * b_share_rows);
    }
  }
}

// This warpgroup is done reading `stage` (its wgmma completed): one thread
// arrives on the stage's `empty` barrier in every block of the cluster.
// Relaxed: the reads are complete, nothing needs publishing, and the
// release form costs a GPU-wide fence per arrival.
__device__ inline void free_stage(const Ring& ring, int stage, int rank_in_warpgroup) {
  if (rank_in_warpgroup != 0) return;
  for (int peer = 0; peer < cluster_m; ++peer) {
    cudalab::mbarrier_arrive_cluster_relaxed(&ring.empty[stage], static_cast<unsigned>(peer));
  }
}

// A consumer warpgroup (`warpgroup` 0 or 1: rows 64 * warpgroup of the tile):
// for every step, wait for its stage to land, issue the 4 wgmma of the step
// into d and, once the previous step's wgmma are done, free that step's
// stage; then store d.
__device__ inline void consume([[maybe_unused]] const Ring& ring, [[maybe_unused]] float* c,
                               [[maybe_unused]] int m, [[maybe_unused]] int n,
                               [[maybe_unused]] int tiles_m, [[maybe_unused]] int tiles_n,
                               [[maybe_unused]] int k_steps, [[maybe_unused]] int warpgroup) {
  const int rank = static_cast<int>(threadIdx.x % 128);                        // in the warpgroup
  const auto a_rows = static_cast<std::uint32_t>(64 * warpgroup * row_bytes);  // its 64 rows of A
  cudalab::WgmmaAccumulator<block_n> d;
  RingPosition at;
  for (int tile = blockIdx.x / cluster_m; tile < tiles_m * tiles_n; tile += gridDim.x / cluster_m) {
    const TileOrigin origin = tile_origin(tile, tiles_m, tiles_n, ring.rank);
    for (int step = 0; step < k_steps; ++step, at.advance()) {
      cudalab::mbarrier_wait_parity(&ring.full[at.stage], at.phase);
      cudalab::wgmma_fence(d);  // d's registers were last written by ordinary code
      for (int slice = 0; slice < step_k / 16; ++slice) {
        // The tile's first instruction starts d from zero (scale-d 0).
        cudalab::wgmma_bf16<block_n>(d, slice_descriptor(ring.a_box(at.stage) + a_rows, slice),
                                     slice_descriptor(ring.b_box(at.stage), slice),
                                     step > 0 || slice > 0);
      }
      cudalab::wgmma_commit_group();
      // This step's group stays in flight while the next is issued (the
      // tensor cores never wait for the issuing threads); the previous
      // step's is done, and its stage free.
      cudalab::wgmma_wait_group<1>(d);
      if (step > 0) free_stage(ring, at.previous_stage(), rank);
    }
    cudalab::wgmma_wait_group<0>(d);
    free_stage(ring, at.previous_stage(), rank);  // the tile's last step
    // Thread `rank` holds the elements wgmma_accumulator_element names; the
    // two of each pair (i, i + 1) are neighbours in a row, at an even column:
    // one 8-byte store where C's rows keep such pairs 8-byte aligned.
    const bool pairs = n % 2 == 0 && reinterpret_cast<std::uintptr_t>(c) % 8 == 0;
    if (pairs && origin.row + block_m <= m && origin.col + block_n <= n) {
      // Most tiles: inside C, so no bound to test, every store 8 bytes.
      float* const rows =
          c + static_cast<std::size_t>(origin.row + 64 * warpgroup) * n + origin.col;
#pragma unroll
      for (int i = 0; i < d.size; i += 2) {
        const auto at_tile = cudalab::wgmma_accumulator_element(rank, i);
        *reinterpret_cast<float2*>(rows + static_cast<std::size_t>(at_tile.row) * n + at_tile.col) =
            make_float2(d[i], d[i + 1]);
      }
      continue;
    }
    for (int i = 0; i < d.size; i += 2) {
      const auto at_tile = cudalab::wgmma_accumulator_element(rank, i);
      const int row = origin.row + 64 * warpgroup + at_tile.row;
      const int col = origin.col + at_tile.col;
      if (row >= m) continue;
      float* const out = c + static_cast<std::size_t>(row) * n + col;
      if (pairs && col + 1 < n) {
        *reinterpret_cast<float2*>(out) = make_float2(d[i], d[i + 1]);
      } else {
        if (col < n) out[0] = d[i];
        if (col + 1 < n) out[1] = d[i + 1];
      }
    }
  }
}

// setmaxnreg takes effect only with a register cap at entry (the 1 of
// __launch_bounds__) and each role in one branch of one if/else.
__global__ void __launch_bounds__(threads, 1)
    hopper_gemm_kernel(const __grid_constant__ CUtensorMap a_map,
                       const __grid_constant__ CUtensorMap b_map, float* c, int m, int n, int k) {
  std::uint8_t* const shared = cudalab::dynamic_shared<std::uint8_t>();
  const auto window = static_cast<std::uint32_t>(__cvta_generic_to_shared(shared));
  Ring ring;
  ring.rank = static_cast<int>(cudalab::cluster_ctarank());
  ring.at_window = shared - window;
  ring.first = (window + 1023u) & ~1023u;
  ring.full = reinterpret_cast<std::uint64_t*>(ring.at_window + ring.first + stages * stage_bytes);
  ring.empty = ring.full + stages;
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) {
      cudalab::mbarrier_init(&ring.full[s], 1);  // the producer's arrive_expect_tx
      cudalab::mbarrier_init(&ring.empty[s], consumers * cluster_m);
    }
    cudalab::fence_mbarrier_init();
  }
  // Both blocks' barriers are ready before either's copies or arrivals reach them.
  cudalab::cluster_arrive();
  cudalab::cluster_wait();
  const int tiles_m = (m + block_m * cluster_m - 1) / (block_m * cluster_m);  // cluster tiles
  const int tiles_n = (n + block_n - 1) / block_n;
  const int k_steps = (k + step_k - 1) / step_k;
  const int warpgroup = static_cast<int>(threadIdx.x / 128);
  if (warpgroup == 0) {
    cudalab::setmaxnreg_dec<24>();
    if (threadIdx.x == 0) produce(ring, &a_map, &b_map, tiles_m, tiles_n, k_steps);
  } else {
    cudalab::setmaxnreg_inc<240>();
    consume(ring, c, m, n, tiles_m, tiles_n, k_steps, warpgroup - 1);
  }
  // No block leaves while its peer may still arrive on its barriers.
  cudalab::cluster_arrive();
  cudalab::cluster_wait();
}

// As many blocks as can run at once, in clusters: asked of the runtime once
// per device, since the occupancy query takes longer than the host's share
// of a call should (the GPU idles meanwhile in a timed loop).
inline int persistent_blocks(const cudaLaunchConfig_t& query) {
  static std::mutex mutex;
  static std::map<int, int> per_device;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard lock(mutex);
  int& blocks = per_device[device];
  if (blocks == 0) {
    int clusters = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, hopper_gemm_kernel, &query));
    blocks = clusters * cluster_m;
  }
  return blocks;
}

}  // namespace hopper_gemm_parts

// C (m x n, fp32, row-major) = A (m x k) * B^T, B stored n x k; A and B are
// bf16 bit patterns, row-major, on the device. `blocks`: the persistent
// grid, a multiple of 2 (0: as many clusters of 2 as fit on the GPU at
// once; fewer make each block walk more tiles, which the emulator's tests
// use). Needs an sm_90 GPU (Hopper).
inline void hopper_gemm_bf16(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n,
                             int k, cudaStream_t stream = nullptr, int blocks = 0) {
  namespace parts = hopper_gemm_parts;
  const std::string sizes =
      "m = " + std::to_string(m) + ", n = " + std::to_string(n) + ", k = " + std::to_string(k);
  if (m < 0 || n < 0 || k < 0 || blocks < 0 || blocks % parts::cluster_m != 0) {
    throw std::invalid_argument("hopper_gemm_bf16: sizes must be >= 0 and blocks a multiple of " +
                                std::to_string(parts::cluster_m) + ", not " + sizes +
                                ", blocks = " + std::to_string(blocks));
  }
  if (k % 8 != 0) {
    throw std::invalid_argument(
        "hopper_gemm_bf16: k must be a multiple of 8, not " + std::to_string(k) +
        ": the tensor copy engine needs the rows of A and B (k * 2 bytes) to start 16-byte "
        "aligned; pad A and B with zero columns up to a multiple of 8");
  }
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  if (!aligned(a) || !aligned(b)) {
    throw std::invalid_argument("hopper_gemm_bf16: A and B must start 16-byte aligned");
  }
  if (m == 0 || n == 0) return;
  if (k == 0) {  // an empty sum; and a tensor map cannot describe rows of no elements
    CUDA_CHECK(cudaMemsetAsync(c, 0, static_cast<std::size_t>(m) * n * sizeof(float), stream));
    return;
  }
  const auto rows_of = [&](const std::uint16_t* matrix, int rows, std::uint32_t box_rows) {
    return cudalab::make_tensor_map(
        CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, matrix,
        {static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(rows)},
        {static_cast<std::uint64_t>(k) * 2}, {parts::step_k, box_rows}, CU_TENSOR_MAP_SWIZZLE_128B);
  };
  const CUtensorMap a_map = rows_of(a, m, parts::block_m);
  const CUtensorMap b_map = rows_of(b, n, parts::b_share_rows);
  CUDA_CHECK(cudaFuncSetAttribute(parts::hopper_gemm_kernel,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(parts::shared_bytes)));
  cudaLaunchAttribute cluster;
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = parts::cluster_m;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  // Positional: on the emulator gridDim and blockDim are macros.
  const auto launch = [&](unsigned grid) {
    return cudaLaunchConfig_t{
        dim3(grid), dim3(parts::threads), parts::shared_bytes, stream, &cluster, 1};
  };
  if (blocks == 0) blocks = parts::persistent_blocks(launch(parts::cluster_m));
  const long long cluster_tiles =
      static_cast<long long>((m + parts::block_m * parts::cluster_m - 1) /
                             (parts::block_m * parts::cluster_m)) *
      ((n + parts::block_n - 1) / parts::block_n);
  if (cluster_tiles > (1ll << 30)) throw std::invalid_argument("hopper_gemm_bf16: C is too large");
  const long long needed = cluster_tiles * parts::cluster_m;
  const cudaLaunchConfig_t config =
      launch(static_cast<unsigned>(needed < blocks ? needed : blocks));
  CUDA_CHECK(cudaLaunchKernelEx(&config, parts::hopper_gemm_kernel, a_map, b_map, c, m, n, k));
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab02
