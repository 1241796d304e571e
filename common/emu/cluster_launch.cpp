// Which cluster launches the emulator accepts: those an H100/H200 accepts
// (cudalab/emu/cluster_launch.hpp lists the refusals).
#include "cudalab/emu/cluster_launch.hpp"

#include <atomic>
#include <mutex>
#include <unordered_map>

namespace cudalab::emu::detail {

namespace {

thread_local dim3 launch_cluster{1, 1, 1};

// Kernels with __cluster_dims__; `any_compiled_clusters` keeps the lookup
// off the path of every other launch.
std::mutex compiled_mutex;
std::atomic<bool> any_compiled_clusters{false};
std::unordered_map<const void*, dim3>& compiled_shapes() {
  static std::unordered_map<const void*, dim3> kernels;
  return kernels;
}

std::mutex non_portable_mutex;
std::unordered_map<const void*, bool>& non_portable_allowed() {
  static std::unordered_map<const void*, bool> kernels;
  return kernels;
}

}  // namespace

ClusterLaunch::ClusterLaunch(dim3 cluster) noexcept : saved_(launch_cluster) {
  launch_cluster = cluster;
}
ClusterLaunch::~ClusterLaunch() { launch_cluster = saved_; }
dim3 ClusterLaunch::dims() noexcept { return launch_cluster; }

bool register_compiled_cluster_dims(const void* kernel, dim3 cluster) {
  std::lock_guard lock(compiled_mutex);
  compiled_shapes()[kernel] = cluster;
  any_compiled_clusters.store(true, std::memory_order_release);
  return true;
}

dim3 compiled_cluster_dims(const void* kernel) noexcept {
  if (!any_compiled_clusters.load(std::memory_order_acquire)) return dim3{1, 1, 1};
  std::lock_guard lock(compiled_mutex);
  const auto found = compiled_shapes().find(kernel);
  return found == compiled_shapes().end() ? dim3{1, 1, 1} : found->second;
}

cudaError_t set_non_portable_cluster_size_allowed(const void* kernel, int value) noexcept {
  if (!kernel || value < 0 || value > 1) return set_last_error(cudaErrorInvalidValue);
  std::lock_guard lock(non_portable_mutex);
  non_portable_allowed()[kernel] = value != 0;
  return cudaSuccess;
}

bool non_portable_cluster_size_allowed(const void* kernel) noexcept {
  std::lock_guard lock(non_portable_mutex);
  const auto found = non_portable_allowed().find(kernel);
  return found != non_portable_allowed().end() && found->second;
}

cudaError_t check_cluster_launch(const void* kernel, dim3 grid, dim3 cluster) noexcept {
  if (cluster.x == 0 || cluster.y == 0 || cluster.z == 0) return cudaErrorInvalidValue;
  if (grid.x % cluster.x != 0 || grid.y % cluster.y != 0 || grid.z % cluster.z != 0) {
    return cudaErrorInvalidClusterSize;
  }
  const std::uint64_t blocks = std::uint64_t{cluster.x} * cluster.y * cluster.z;
  const bool non_portable = non_portable_cluster_size_allowed(kernel);
  if (blocks > (non_portable ? kNonPortableClusterBlocks : kPortableClusterBlocks)) {
    return cudaErrorInvalidClusterSize;
  }
  return cudaSuccess;
}

}  // namespace cudalab::emu::detail
