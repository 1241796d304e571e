// The attribute and property queries of device_attributes.hpp, plain CUDA
// host code for both backends.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"
#include "declared_device_attributes.hpp"  // generated from driver_types.h
#include "device_attributes.hpp"

namespace device_attributes {
// Each backend its own copy of the names (kernel.hpp), so that one binary links both.
inline namespace CUDALAB_BACKEND {
namespace {

std::vector<Answer> every_declared_attribute() {
  std::vector<Answer> answers;
  for (const DeclaredDeviceAttribute& declared : kDeclaredDeviceAttributes) {
    Answer answer;
    answer.name = declared.name;
    answer.error = cudaDeviceGetAttribute(&answer.value, declared.attribute, 0);
    answers.push_back(answer);
  }
  cudaGetLastError();
  return answers;
}

// Each member of cudaDeviceProp that an attribute also reports, written out
// here rather than taken from the emulator's table, so that the GPU checks
// the pairing too.
std::vector<Mismatch> properties_against_attributes() {
  cudaDeviceProp p;
  CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
  std::vector<Mismatch> mismatches;
  auto compare = [&](const char* member, long long property, cudaDeviceAttr attr) {
    int value = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, 0));
    // Unsigned members (PCI ids, bit masks) compare as the 32 bits they are.
    if (property != value && property != static_cast<long long>(static_cast<unsigned>(value))) {
      mismatches.push_back({member, property, value});
    }
  };
#define COMPARE(member, attr) compare(#member, static_cast<long long>(p.member), attr)
  COMPARE(sharedMemPerBlock, cudaDevAttrMaxSharedMemoryPerBlock);
  COMPARE(regsPerBlock, cudaDevAttrMaxRegistersPerBlock);
  COMPARE(warpSize, cudaDevAttrWarpSize);
  COMPARE(memPitch, cudaDevAttrMaxPitch);
  COMPARE(maxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock);
  COMPARE(maxThreadsDim[0], cudaDevAttrMaxBlockDimX);
  COMPARE(maxThreadsDim[1], cudaDevAttrMaxBlockDimY);
  COMPARE(maxThreadsDim[2], cudaDevAttrMaxBlockDimZ);
  COMPARE(maxGridSize[0], cudaDevAttrMaxGridDimX);
  COMPARE(maxGridSize[1], cudaDevAttrMaxGridDimY);
  COMPARE(maxGridSize[2], cudaDevAttrMaxGridDimZ);
  COMPARE(totalConstMem, cudaDevAttrTotalConstantMemory);
  COMPARE(major, cudaDevAttrComputeCapabilityMajor);
  COMPARE(minor, cudaDevAttrComputeCapabilityMinor);
  COMPARE(textureAlignment, cudaDevAttrTextureAlignment);
  COMPARE(texturePitchAlignment, cudaDevAttrTexturePitchAlignment);
  COMPARE(multiProcessorCount, cudaDevAttrMultiProcessorCount);
  COMPARE(integrated, cudaDevAttrIntegrated);
  COMPARE(canMapHostMemory, cudaDevAttrCanMapHostMemory);
  COMPARE(maxTexture1D, cudaDevAttrMaxTexture1DWidth);
  COMPARE(maxTexture1DMipmap, cudaDevAttrMaxTexture1DMipmappedWidth);
  COMPARE(maxTexture2D[0], cudaDevAttrMaxTexture2DWidth);
  COMPARE(maxTexture2D[1], cudaDevAttrMaxTexture2DHeight);
  COMPARE(maxTexture2DMipmap[0], cudaDevAttrMaxTexture2DMipmappedWidth);
  COMPARE(maxTexture2DMipmap[1], cudaDevAttrMaxTexture2DMipmappedHeight);
  COMPARE(maxTexture2DLinear[0], cudaDevAttrMaxTexture2DLinearWidth);
  COMPARE(maxTexture2DLinear[1], cudaDevAttrMaxTexture2DLinearHeight);
  COMPARE(maxTexture2DLinear[2], cudaDevAttrMaxTexture2DLinearPitch);
  COMPARE(maxTexture2DGather[0], cudaDevAttrMaxTexture2DGatherWidth);
  COMPARE(maxTexture2DGather[1], cudaDevAttrMaxTexture2DGatherHeight);
  COMPARE(maxTexture3D[0], cudaDevAttrMaxTexture3DWidth);
  COMPARE(maxTexture3D[1], cudaDevAttrMaxTexture3DHeight);
  COMPARE(maxTexture3D[2], cudaDevAttrMaxTexture3DDepth);
  COMPARE(maxTexture3DAlt[0], cudaDevAttrMaxTexture3DWidthAlt);
  COMPARE(maxTexture3DAlt[1], cudaDevAttrMaxTexture3DHeightAlt);
  COMPARE(maxTexture3DAlt[2], cudaDevAttrMaxTexture3DDepthAlt);
  COMPARE(maxTextureCubemap, cudaDevAttrMaxTextureCubemapWidth);
  COMPARE(maxTexture1DLayered[0], cudaDevAttrMaxTexture1DLayeredWidth);
  COMPARE(maxTexture1DLayered[1], cudaDevAttrMaxTexture1DLayeredLayers);
  COMPARE(maxTexture2DLayered[0], cudaDevAttrMaxTexture2DLayeredWidth);
  COMPARE(maxTexture2DLayered[1], cudaDevAttrMaxTexture2DLayeredHeight);
  COMPARE(maxTexture2DLayered[2], cudaDevAttrMaxTexture2DLayeredLayers);
  COMPARE(maxTextureCubemapLayered[0], cudaDevAttrMaxTextureCubemapLayeredWidth);
  COMPARE(maxTextureCubemapLayered[1], cudaDevAttrMaxTextureCubemapLayeredLayers);
  COMPARE(maxSurface1D, cudaDevAttrMaxSurface1DWidth);
  COMPARE(maxSurface2D[0], cudaDevAttrMaxSurface2DWidth);
  COMPARE(maxSurface2D[1], cudaDevAttrMaxSurface2DHeight);
  COMPARE(maxSurface3D[0], cudaDevAttrMaxSurface3DWidth);
  COMPARE(maxSurface3D[1], cudaDevAttrMaxSurface3DHeight);
  COMPARE(maxSurface3D[2], cudaDevAttrMaxSurface3DDepth);
  COMPARE(maxSurface1DLayered[0], cudaDevAttrMaxSurface1DLayeredWidth);
  COMPARE(maxSurface1DLayered[1], cudaDevAttrMaxSurface1DLayeredLayers);
  COMPARE(maxSurface2DLayered[0], cudaDevAttrMaxSurface2DLayeredWidth);
  COMPARE(maxSurface2DLayered[1], cudaDevAttrMaxSurface2DLayeredHeight);
  COMPARE(maxSurface2DLayered[2], cudaDevAttrMaxSurface2DLayeredLayers);
  COMPARE(maxSurfaceCubemap, cudaDevAttrMaxSurfaceCubemapWidth);
  COMPARE(maxSurfaceCubemapLayered[0], cudaDevAttrMaxSurfaceCubemapLayeredWidth);
  COMPARE(maxSurfaceCubemapLayered[1], cudaDevAttrMaxSurfaceCubemapLayeredLayers);
  COMPARE(surfaceAlignment, cudaDevAttrSurfaceAlignment);
  COMPARE(concurrentKernels, cudaDevAttrConcurrentKernels);
  COMPARE(ECCEnabled, cudaDevAttrEccEnabled);
  COMPARE(pciBusID, cudaDevAttrPciBusId);
  COMPARE(pciDeviceID, cudaDevAttrPciDeviceId);
  COMPARE(pciDomainID, cudaDevAttrPciDomainId);
  COMPARE(tccDriver, cudaDevAttrTccDriver);
  COMPARE(asyncEngineCount, cudaDevAttrAsyncEngineCount);
  COMPARE(unifiedAddressing, cudaDevAttrUnifiedAddressing);
  COMPARE(memoryBusWidth, cudaDevAttrGlobalMemoryBusWidth);
  COMPARE(l2CacheSize, cudaDevAttrL2CacheSize);
  COMPARE(persistingL2CacheMaxSize, cudaDevAttrMaxPersistingL2CacheSize);
  COMPARE(maxThreadsPerMultiProcessor, cudaDevAttrMaxThreadsPerMultiProcessor);
  COMPARE(streamPrioritiesSupported, cudaDevAttrStreamPrioritiesSupported);
  COMPARE(globalL1CacheSupported, cudaDevAttrGlobalL1CacheSupported);
  COMPARE(localL1CacheSupported, cudaDevAttrLocalL1CacheSupported);
  COMPARE(sharedMemPerMultiprocessor, cudaDevAttrMaxSharedMemoryPerMultiprocessor);
  COMPARE(regsPerMultiprocessor, cudaDevAttrMaxRegistersPerMultiprocessor);
  COMPARE(managedMemory, cudaDevAttrManagedMemory);
  COMPARE(isMultiGpuBoard, cudaDevAttrIsMultiGpuBoard);
  COMPARE(multiGpuBoardGroupID, cudaDevAttrMultiGpuBoardGroupID);
  COMPARE(hostNativeAtomicSupported, cudaDevAttrHostNativeAtomicSupported);
  COMPARE(pageableMemoryAccess, cudaDevAttrPageableMemoryAccess);
  COMPARE(concurrentManagedAccess, cudaDevAttrConcurrentManagedAccess);
  COMPARE(computePreemptionSupported, cudaDevAttrComputePreemptionSupported);
  COMPARE(canUseHostPointerForRegisteredMem, cudaDevAttrCanUseHostPointerForRegisteredMem);
  COMPARE(cooperativeLaunch, cudaDevAttrCooperativeLaunch);
  COMPARE(sharedMemPerBlockOptin, cudaDevAttrMaxSharedMemoryPerBlockOptin);
  COMPARE(pageableMemoryAccessUsesHostPageTables,
          cudaDevAttrPageableMemoryAccessUsesHostPageTables);
  COMPARE(directManagedMemAccessFromHost, cudaDevAttrDirectManagedMemAccessFromHost);
  COMPARE(maxBlocksPerMultiProcessor, cudaDevAttrMaxBlocksPerMultiprocessor);
  COMPARE(accessPolicyMaxWindowSize, cudaDevAttrMaxAccessPolicyWindowSize);
  COMPARE(reservedSharedMemPerBlock, cudaDevAttrReservedSharedMemoryPerBlock);
  COMPARE(hostRegisterSupported, cudaDevAttrHostRegisterSupported);
  COMPARE(sparseCudaArraySupported, cudaDevAttrSparseCudaArraySupported);
  COMPARE(hostRegisterReadOnlySupported, cudaDevAttrHostRegisterReadOnlySupported);
  COMPARE(timelineSemaphoreInteropSupported, cudaDevAttrTimelineSemaphoreInteropSupported);
  COMPARE(memoryPoolsSupported, cudaDevAttrMemoryPoolsSupported);
  COMPARE(gpuDirectRDMASupported, cudaDevAttrGPUDirectRDMASupported);
  COMPARE(gpuDirectRDMAFlushWritesOptions, cudaDevAttrGPUDirectRDMAFlushWritesOptions);
  COMPARE(gpuDirectRDMAWritesOrdering, cudaDevAttrGPUDirectRDMAWritesOrdering);
  COMPARE(memoryPoolSupportedHandleTypes, cudaDevAttrMemoryPoolSupportedHandleTypes);
  COMPARE(deferredMappingCudaArraySupported, cudaDevAttrDeferredMappingCudaArraySupported);
  COMPARE(ipcEventSupported, cudaDevAttrIpcEventSupport);
  COMPARE(clusterLaunch, cudaDevAttrClusterLaunch);
  COMPARE(deviceNumaConfig, cudaDevAttrNumaConfig);
  COMPARE(deviceNumaId, cudaDevAttrNumaId);
  COMPARE(mpsEnabled, cudaDevAttrMpsEnabled);
  COMPARE(hostNumaId, cudaDevAttrHostNumaId);
  COMPARE(gpuPciDeviceID, cudaDevAttrGpuPciDeviceId);
  COMPARE(gpuPciSubsystemID, cudaDevAttrGpuPciSubsystemId);
  COMPARE(hostNumaMultinodeIpcSupported, cudaDevAttrHostNumaMultinodeIpcSupported);
#undef COMPARE
  return mismatches;
}

std::vector<cudaError_t> bad_queries() {
  int value = 0;
  std::vector<cudaError_t> errors = {
      cudaDeviceGetAttribute(nullptr, cudaDevAttrWarpSize, 0),
      cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, 99),
      cudaDeviceGetAttribute(&value, static_cast<cudaDeviceAttr>(0), 0),
      cudaGetDeviceProperties(nullptr, 0),
  };
  cudaGetLastError();
  return errors;
}

const Kernels& kernels() {
  static const Kernels k{every_declared_attribute, properties_against_attributes, bad_queries};
  return k;
}

}  // namespace
}  // namespace CUDALAB_BACKEND
}  // namespace device_attributes
