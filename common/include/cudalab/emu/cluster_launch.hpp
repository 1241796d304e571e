// cudaLaunchKernelEx on the emulator: a launch described by a
// cudaLaunchConfig_t whose attributes may give a thread block cluster shape
// (cudaLaunchAttributeClusterDimension, sm_90) or make it cooperative.
// A cluster's blocks run at once (common/emu/cluster.cpp); the launch is
// refused as the GPU refuses it:
//   a cluster dimension that does not divide the grid's, or a cluster of
//   more than 8 blocks (16 once cudaFuncSetAttribute(kernel,
//   cudaFuncAttributeNonPortableClusterSizeAllowed, 1))  cudaErrorInvalidClusterSize
//   a cluster dimension of 0                              cudaErrorInvalidValue
// Other attributes (priority, access policy, ...) change nothing the
// emulator models and are accepted.
//
// A kernel declared with __cluster_dims__(x, y, z) runs as clusters of that
// shape when launched with <<<...>>> or cudaLaunchKernelEx without a cluster
// attribute (with one, the attribute's shape is used; CUDA requires the two
// to agree, which is not checked), refused as above when
// the grid does not divide. tools/emu_rewrite.py turns the qualifier into a
// use of compiled_cluster_dims_registered in the kernel's body.
#pragma once

#include <driver_types.h>
#include <vector_types.h>

#include <cstddef>
#include <utility>

#include "cudalab/emu/cooperative_launch.hpp"
#include "cudalab/emu/launch.hpp"
#include "cudalab/emu/runtime.hpp"

namespace cudalab::emu {

// The GPU's limits on blocks per cluster (the Programming Guide, "Thread
// Block Clusters"): 8 is portable, 16 is what an H100/H200 allows on request.
inline constexpr unsigned kPortableClusterBlocks = 8;
inline constexpr unsigned kNonPortableClusterBlocks = 16;

namespace detail {

// True on the host thread while cudaLaunchKernelEx issues a cluster launch:
// run_launch (recorder.cpp) gives the launch the cluster shape.
class ClusterLaunch {
 public:
  explicit ClusterLaunch(dim3 cluster) noexcept;
  ~ClusterLaunch();
  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
  static dim3 dims() noexcept;  // (1,1,1) outside one

 private:
  dim3 saved_;
};

// cudaFuncAttributeNonPortableClusterSizeAllowed per kernel (runtime.cpp).
cudaError_t set_non_portable_cluster_size_allowed(const void* kernel, int value) noexcept;
bool non_portable_cluster_size_allowed(const void* kernel) noexcept;
// What a launch with this cluster shape is refused for, once its grid and
// block are valid; cudaSuccess if nothing.
cudaError_t check_cluster_launch(const void* kernel, dim3 grid, dim3 cluster) noexcept;

// A kernel's __cluster_dims__: recorded before main by the initialiser of
// compiled_cluster_dims_registered, looked up by every launch; (1,1,1) for
// a kernel without one.
bool register_compiled_cluster_dims(const void* kernel, dim3 cluster);
dim3 compiled_cluster_dims(const void* kernel) noexcept;
template <auto Kernel, unsigned X, unsigned Y, unsigned Z>
inline const bool compiled_cluster_dims_registered =
    register_compiled_cluster_dims(reinterpret_cast<const void*>(Kernel), dim3(X, Y, Z));

}  // namespace detail

// cudaOccupancyMaxPotentialClusterSize and cudaOccupancyMaxActiveClusters
// (int*, const void*, const cudaLaunchConfig_t*) are declared from the
// table runtime_api.def (runtime.hpp; common/emu/cluster_occupancy.cpp
// says how they answer); these are their typed overloads.
template <class... Params>
cudaError_t cudaOccupancyMaxPotentialClusterSize(int* cluster_size, void (*kernel)(Params...),
                                                 const cudaLaunchConfig_t* config) {
  return ::cudalab::emu::cudaOccupancyMaxPotentialClusterSize(
      cluster_size, reinterpret_cast<const void*>(kernel), config);
}
template <class... Params>
cudaError_t cudaOccupancyMaxActiveClusters(int* clusters, void (*kernel)(Params...),
                                           const cudaLaunchConfig_t* config) {
  return ::cudalab::emu::cudaOccupancyMaxActiveClusters(
      clusters, reinterpret_cast<const void*>(kernel), config);
}

template <class... Params, class... Args>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t* config, void (*kernel)(Params...),
                               Args&&... args) {
  if (!config || !kernel || (config->numAttrs > 0 && !config->attrs)) {
    return detail::set_last_error(cudaErrorInvalidValue);
  }
  dim3 cluster{1, 1, 1};
  bool cooperative = false;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const cudaLaunchAttribute& attribute = config->attrs[i];
    if (attribute.id == cudaLaunchAttributeClusterDimension) {
      cluster =
          dim3(attribute.val.clusterDim.x, attribute.val.clusterDim.y, attribute.val.clusterDim.z);
    } else if (attribute.id == cudaLaunchAttributeCooperative) {
      cooperative = attribute.val.cooperative != 0;
    }
  }
  const void* erased = reinterpret_cast<const void*>(kernel);
  if (!detail::validate_launch(erased, config->gridDim, config->blockDim, config->dynamicSmemBytes,
                               config->stream)) {
    return ::cudalab::emu::cudaPeekAtLastError();  // what validate_launch recorded
  }
  if (const cudaError_t refused = detail::check_cluster_launch(erased, config->gridDim, cluster)) {
    return detail::set_last_error(refused);
  }
  if (cooperative) {
    if (const cudaError_t refused = detail::check_cooperative_launch(
            erased, config->gridDim, config->blockDim, config->dynamicSmemBytes)) {
      return detail::set_last_error(refused);
    }
    if (cluster.x * cluster.y * cluster.z > 1) return detail::set_last_error(cudaErrorNotSupported);
  }
  if (cooperative) {
    const detail::CooperativeLaunch as_cooperative;
    detail::launch_with_arguments(kernel, config->gridDim, config->blockDim,
                                  config->dynamicSmemBytes, config->stream,
                                  std::forward<Args>(args)...);
  } else {
    const detail::ClusterLaunch as_cluster(cluster);
    detail::launch_with_arguments(kernel, config->gridDim, config->blockDim,
                                  config->dynamicSmemBytes, config->stream,
                                  std::forward<Args>(args)...);
  }
  return cudaSuccess;
}

}  // namespace cudalab::emu
