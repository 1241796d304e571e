// Prints what each GPU reports, as JSON: every cudaDeviceAttr the installed
// headers declare (cudaDeviceGetAttribute), every member of cudaDeviceProp
// and cudaGetDeviceFlags. Run on an H100 and an H200, its output is what
// common/emu/device_attributes.def should say; an attribute the GPU refuses
// is printed with its error instead of a value.
//
//   build/<preset>/tests/emu/device_attributes_dump > h100.json
#include <cuda_runtime.h>

#include <cstdio>

#include "cudalab/check.hpp"
#include "declared_device_attributes.hpp"

namespace {

void print_scalar(const char* name, long long value, bool last = false) {
  std::printf("      \"%s\": %lld%s\n", name, value, last ? "" : ",");
}

template <class T, int N>
void print_array(const char* name, const T (&values)[N]) {
  std::printf("      \"%s\": [", name);
  for (int i = 0; i < N; ++i)
    std::printf("%s%lld", i ? ", " : "", static_cast<long long>(values[i]));
  std::printf("],\n");
}

void print_attributes(int device) {
  std::printf("    \"attributes\": {\n");
  const int count = static_cast<int>(std::size(kDeclaredDeviceAttributes));
  for (int i = 0; i < count; ++i) {
    const DeclaredDeviceAttribute& declared = kDeclaredDeviceAttributes[i];
    int value = 0;
    const cudaError_t error = cudaDeviceGetAttribute(&value, declared.attribute, device);
    const char* comma = i + 1 < count ? "," : "";
    if (error == cudaSuccess) {
      std::printf("      \"%s\": %d%s\n", declared.name, value, comma);
    } else {
      std::printf("      \"%s\": \"%s\"%s\n", declared.name, cudaGetErrorName(error), comma);
      cudaGetLastError();
    }
  }
  std::printf("    },\n");
}

void print_properties(int device) {
  cudaDeviceProp p;
  CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  std::printf("    \"properties\": {\n      \"name\": \"%s\",\n", p.name);
#define SCALAR(member) print_scalar(#member, static_cast<long long>(p.member))
#define ARRAY(member) print_array(#member, p.member)
  SCALAR(totalGlobalMem);
  SCALAR(sharedMemPerBlock);
  SCALAR(regsPerBlock);
  SCALAR(warpSize);
  SCALAR(memPitch);
  SCALAR(maxThreadsPerBlock);
  ARRAY(maxThreadsDim);
  ARRAY(maxGridSize);
  SCALAR(totalConstMem);
  SCALAR(major);
  SCALAR(minor);
  SCALAR(textureAlignment);
  SCALAR(texturePitchAlignment);
  SCALAR(multiProcessorCount);
  SCALAR(integrated);
  SCALAR(canMapHostMemory);
  SCALAR(maxTexture1D);
  SCALAR(maxTexture1DMipmap);
  ARRAY(maxTexture2D);
  ARRAY(maxTexture2DMipmap);
  ARRAY(maxTexture2DLinear);
  ARRAY(maxTexture2DGather);
  ARRAY(maxTexture3D);
  ARRAY(maxTexture3DAlt);
  SCALAR(maxTextureCubemap);
  ARRAY(maxTexture1DLayered);
  ARRAY(maxTexture2DLayered);
  ARRAY(maxTextureCubemapLayered);
  SCALAR(maxSurface1D);
  ARRAY(maxSurface2D);
  ARRAY(maxSurface3D);
  ARRAY(maxSurface1DLayered);
  ARRAY(maxSurface2DLayered);
  SCALAR(maxSurfaceCubemap);
  ARRAY(maxSurfaceCubemapLayered);
  SCALAR(surfaceAlignment);
  SCALAR(concurrentKernels);
  SCALAR(ECCEnabled);
  SCALAR(pciBusID);
  SCALAR(pciDeviceID);
  SCALAR(pciDomainID);
  SCALAR(tccDriver);
  SCALAR(asyncEngineCount);
  SCALAR(unifiedAddressing);
  SCALAR(memoryBusWidth);
  SCALAR(l2CacheSize);
  SCALAR(persistingL2CacheMaxSize);
  SCALAR(maxThreadsPerMultiProcessor);
  SCALAR(streamPrioritiesSupported);
  SCALAR(globalL1CacheSupported);
  SCALAR(localL1CacheSupported);
  SCALAR(sharedMemPerMultiprocessor);
  SCALAR(regsPerMultiprocessor);
  SCALAR(managedMemory);
  SCALAR(isMultiGpuBoard);
  SCALAR(multiGpuBoardGroupID);
  SCALAR(hostNativeAtomicSupported);
  SCALAR(pageableMemoryAccess);
  SCALAR(concurrentManagedAccess);
  SCALAR(computePreemptionSupported);
  SCALAR(canUseHostPointerForRegisteredMem);
  SCALAR(cooperativeLaunch);
  SCALAR(sharedMemPerBlockOptin);
  SCALAR(pageableMemoryAccessUsesHostPageTables);
  SCALAR(directManagedMemAccessFromHost);
  SCALAR(maxBlocksPerMultiProcessor);
  SCALAR(accessPolicyMaxWindowSize);
  SCALAR(reservedSharedMemPerBlock);
  SCALAR(hostRegisterSupported);
  SCALAR(sparseCudaArraySupported);
  SCALAR(hostRegisterReadOnlySupported);
  SCALAR(timelineSemaphoreInteropSupported);
  SCALAR(memoryPoolsSupported);
  SCALAR(gpuDirectRDMASupported);
  SCALAR(gpuDirectRDMAFlushWritesOptions);
  SCALAR(gpuDirectRDMAWritesOrdering);
  SCALAR(memoryPoolSupportedHandleTypes);
  SCALAR(deferredMappingCudaArraySupported);
  SCALAR(ipcEventSupported);
  SCALAR(clusterLaunch);
  SCALAR(unifiedFunctionPointers);
  SCALAR(deviceNumaConfig);
  SCALAR(deviceNumaId);
  SCALAR(mpsEnabled);
  SCALAR(hostNumaId);
  SCALAR(gpuPciDeviceID);
  SCALAR(gpuPciSubsystemID);
  print_scalar("hostNumaMultinodeIpcSupported", p.hostNumaMultinodeIpcSupported, true);
#undef SCALAR
#undef ARRAY
  std::printf("    },\n");
}

}  // namespace

int main() {
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  int driver = 0, runtime = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  std::printf("{\n  \"driver_version\": %d,\n  \"runtime_version\": %d,\n  \"devices\": [\n",
              driver, runtime);
  for (int device = 0; device < count; ++device) {
    CUDA_CHECK(cudaSetDevice(device));
    unsigned flags = 0;
    CUDA_CHECK(cudaGetDeviceFlags(&flags));
    std::printf("  {\n    \"device\": %d,\n", device);
    print_attributes(device);
    print_properties(device);
    std::printf("    \"device_flags\": %u\n  }%s\n", flags, device + 1 < count ? "," : "");
  }
  std::printf("  ]\n}\n");
  return 0;
}
