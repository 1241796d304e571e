// The occupancy queries of thread block clusters
// (cudaOccupancyMaxPotentialClusterSize, cudaOccupancyMaxActiveClusters),
// answered as an H100 SXM / H200 answers them as far as the emulator can
// tell.
//
// A cluster's blocks run on the multiprocessors of one GPC (graphics
// processing cluster), so how many clusters fit at once depends on how the
// chip's 132 multiprocessors are spread over its GPCs. NVIDIA publishes the
// totals (the Hopper whitepaper: the full GH100 has 8 GPCs of 9 TPCs, two
// multiprocessors a TPC; the H100 SXM5 enables 66 of the 72 TPCs), not which
// TPCs a given chip has disabled, and that differs from chip to chip. So
// MaxActiveClusters answers the least any such spread holds: the minimum,
// over every spread of 66 TPCs on 8 GPCs of at most 9, of the sum over GPCs
// of floor(multiprocessors x blocks per multiprocessor / cluster size). The
// driver's answer comes from a heuristic of its own that an H100 showed to
// fall below this in places (docs/emulator.md, "Thread block clusters",
// has its answers), so this is a model, not a bound.
#include <algorithm>
#include <array>
#include <limits>

#include "cudalab/emu/cluster_launch.hpp"

namespace cudalab::emu {

namespace {

constexpr int kGpcs = 8;
constexpr int kMaxTpcsPerGpc = 9;
constexpr int kMultiprocessorsPerTpc = 2;
constexpr int kTpcs = kCooperativeMultiprocessors / kMultiprocessorsPerTpc;  // 66

// Every spread gives one GPC the most TPCs a GPC has (66 > 8 x 8).
constexpr int kLargestGpcMultiprocessors = kMaxTpcsPerGpc * kMultiprocessorsPerTpc;

// The least number of clusters of `cluster_blocks` blocks resident at once,
// over every spread of the TPCs on the GPCs (a small dynamic programme:
// fewest[t] is the least over the GPCs so far holding t TPCs).
int fewest_resident_clusters(int blocks_per_multiprocessor, int cluster_blocks) {
  constexpr int kNone = std::numeric_limits<int>::max();
  std::array<int, kTpcs + 1> fewest{};
  fewest.fill(kNone);
  fewest[0] = 0;
  for (int g = 0; g < kGpcs; ++g) {
    std::array<int, kTpcs + 1> next{};
    next.fill(kNone);
    for (int before = 0; before <= kTpcs; ++before) {
      if (fewest[before] == kNone) continue;
      for (int here = 0; here <= kMaxTpcsPerGpc && before + here <= kTpcs; ++here) {
        const int clusters =
            here * kMultiprocessorsPerTpc * blocks_per_multiprocessor / cluster_blocks;
        next[before + here] = std::min(next[before + here], fewest[before] + clusters);
      }
    }
    fewest = next;
  }
  return fewest[kTpcs];
}

// Blocks of the configuration one multiprocessor keeps resident (0: none).
cudaError_t blocks_per_multiprocessor(const void* kernel, const cudaLaunchConfig_t& config,
                                      int* blocks) {
  const std::uint64_t threads =
      std::uint64_t{config.blockDim.x} * config.blockDim.y * config.blockDim.z;
  if (threads == 0) return detail::set_last_error(cudaErrorInvalidValue);
  if (threads > 1024) {
    *blocks = 0;
    return cudaSuccess;
  }
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel, static_cast<int>(threads),
                                                       config.dynamicSmemBytes);
}

// The cluster shape of the configuration's attribute, (0,0,0) without one.
dim3 configured_cluster(const cudaLaunchConfig_t& config) {
  for (unsigned i = 0; i < config.numAttrs; ++i) {
    if (config.attrs[i].id == cudaLaunchAttributeClusterDimension) {
      const auto& c = config.attrs[i].val.clusterDim;
      return dim3(c.x, c.y, c.z);
    }
  }
  return dim3(0, 0, 0);
}

unsigned blocks_in(dim3 d) { return d.x * d.y * d.z; }

bool valid_arguments(const void* out, const void* kernel, const cudaLaunchConfig_t* config) {
  return out && kernel && config && (config->numAttrs == 0 || config->attrs);
}

}  // namespace

cudaError_t cudaOccupancyMaxPotentialClusterSize(int* cluster_size, const void* kernel,
                                                 const cudaLaunchConfig_t* config) {
  if (!valid_arguments(cluster_size, kernel, config)) {
    return detail::set_last_error(cudaErrorInvalidValue);
  }
  int blocks = 0;
  if (const cudaError_t e = blocks_per_multiprocessor(kernel, *config, &blocks); e != cudaSuccess) {
    return e;
  }
  // The config's cluster shape is ignored; a kernel's __cluster_dims__ is its size.
  const unsigned compiled = blocks_in(detail::compiled_cluster_dims(kernel));
  const int limit = compiled > 1 ? static_cast<int>(compiled)
                    : detail::non_portable_cluster_size_allowed(kernel)
                        ? static_cast<int>(kNonPortableClusterBlocks)
                        : static_cast<int>(kPortableClusterBlocks);
  const int fits = kLargestGpcMultiprocessors * blocks;
  *cluster_size = compiled > 1 ? (fits >= limit ? limit : 0) : std::min(limit, fits);
  return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveClusters(int* clusters, const void* kernel,
                                           const cudaLaunchConfig_t* config) {
  if (!valid_arguments(clusters, kernel, config)) {
    return detail::set_last_error(cudaErrorInvalidValue);
  }
  const dim3 asked = configured_cluster(*config);
  const dim3 compiled = detail::compiled_cluster_dims(kernel);
  const bool has_compiled = blocks_in(compiled) > 1;
  // The size comes from the config or the kernel's __cluster_dims__, and the
  // two agree; with neither an H100 answers cudaSuccess (2026-12-07), taken
  // here as clusters of one block.
  if (blocks_in(asked) != 0 && has_compiled &&
      (asked.x != compiled.x || asked.y != compiled.y || asked.z != compiled.z)) {
    return detail::set_last_error(cudaErrorInvalidClusterSize);
  }
  const dim3 shape = blocks_in(asked) != 0 ? asked : has_compiled ? compiled : dim3(1, 1, 1);
  const unsigned limit = detail::non_portable_cluster_size_allowed(kernel)
                             ? kNonPortableClusterBlocks
                             : kPortableClusterBlocks;
  if (shape.x == 0 || shape.y == 0 || shape.z == 0 || blocks_in(shape) > limit) {
    return detail::set_last_error(cudaErrorInvalidClusterSize);
  }
  int blocks = 0;
  if (const cudaError_t e = blocks_per_multiprocessor(kernel, *config, &blocks); e != cudaSuccess) {
    return e;
  }
  *clusters =
      blocks == 0 ? 0 : fewest_resident_clusters(blocks, static_cast<int>(blocks_in(shape)));
  return cudaSuccess;
}

}  // namespace cudalab::emu
