// The CUDA runtime API subset, on host memory standing in for device memory.
#include "cudalab/emu/runtime.hpp"

#include <unistd.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "engine.hpp"

namespace cudalab::emu {

namespace {

thread_local cudaError_t last_error = cudaSuccess;
// A fault raised by a kernel (illegal address, launch failure), waiting to be
// returned by the next synchronising call.
std::atomic<cudaError_t> pending_fault{cudaSuccess};

cudaError_t fail(cudaError_t e) { return detail::set_last_error(e); }

// The fault of an earlier launch, returned once.
cudaError_t take_fault() { return pending_fault.exchange(cudaSuccess); }

}  // namespace

namespace detail {

cudaError_t set_last_error(cudaError_t error) noexcept {
  if (error != cudaSuccess) last_error = error;
  return error;
}

void set_pending_fault(cudaError_t error) noexcept {
  cudaError_t expected = cudaSuccess;
  pending_fault.compare_exchange_strong(expected, error);
}

bool is_default_stream(cudaStream_t stream) noexcept {
  return stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread;
}

}  // namespace detail

cudaError_t cudaMalloc(void** ptr, std::size_t bytes) {
  if (!ptr) return fail(cudaErrorInvalidValue);
  Allocation* a = detail::allocate(bytes);
  if (!a) {
    *ptr = nullptr;
    return fail(cudaErrorMemoryAllocation);
  }
  *ptr = reinterpret_cast<void*>(a->base);
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  if (!ptr) return cudaSuccess;
  return detail::release(ptr) ? cudaSuccess : fail(cudaErrorInvalidValue);
}

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  if (cudaError_t fault = take_fault(); fault != cudaSuccess) return fail(fault);
  if (bytes == 0) return cudaSuccess;
  if (!dst || !src) return fail(cudaErrorInvalidValue);
  Allocation* to = detail::find_live(dst, bytes);
  const bool from_device = detail::find_live(src, bytes) != nullptr;
  switch (kind) {
    case cudaMemcpyHostToDevice:
      if (!to) return fail(cudaErrorInvalidValue);
      break;
    case cudaMemcpyDeviceToHost:
      if (!from_device) return fail(cudaErrorInvalidValue);
      break;
    case cudaMemcpyDeviceToDevice:
      if (!to || !from_device) return fail(cudaErrorInvalidValue);
      break;
    case cudaMemcpyHostToHost:
    case cudaMemcpyDefault:
      break;
    default:
      return fail(cudaErrorInvalidMemcpyDirection);
  }
  std::memmove(dst, src, bytes);
  if (to) to->mark_initialised(reinterpret_cast<std::uintptr_t>(dst), bytes);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  if (!detail::is_default_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  return cudaMemcpy(dst, src, bytes, kind);
}

cudaError_t cudaMemset(void* ptr, int value, std::size_t bytes) {
  if (cudaError_t fault = take_fault(); fault != cudaSuccess) return fail(fault);
  if (bytes == 0) return cudaSuccess;
  Allocation* a = detail::find_live(ptr, bytes);
  if (!a) return fail(cudaErrorInvalidValue);
  std::memset(ptr, value, bytes);
  a->mark_initialised(reinterpret_cast<std::uintptr_t>(ptr), bytes);
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* ptr, int value, std::size_t bytes, cudaStream_t stream) {
  if (!detail::is_default_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  return cudaMemset(ptr, value, bytes);
}

cudaError_t cudaGetLastError() {
  cudaError_t fault = take_fault();
  cudaError_t e = fault != cudaSuccess ? fault : last_error;
  last_error = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError() {
  cudaError_t fault = pending_fault.load();
  return fault != cudaSuccess ? fault : last_error;
}

namespace {

struct ErrorText {
  cudaError_t code;
  const char* name;
  const char* description;
};

// The codes the emulator can return, with CUDA's own wording.
constexpr ErrorText kErrorTexts[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
     "invalid configuration argument"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection",
     "invalid copy direction for memcpy"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress",
     "an illegal memory access was encountered"},
    {cudaErrorMisalignedAddress, "cudaErrorMisalignedAddress", "misaligned address"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources",
     "too many resources requested for launch"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

const ErrorText* find_error(cudaError_t error) {
  for (const ErrorText& e : kErrorTexts) {
    if (e.code == error) return &e;
  }
  return nullptr;
}

}  // namespace

const char* cudaGetErrorName(cudaError_t error) {
  const ErrorText* e = find_error(error);
  return e ? e->name : "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
  const ErrorText* e = find_error(error);
  return e ? e->description : "unrecognized error code";
}

cudaError_t cudaDeviceSynchronize() { return fail(take_fault()); }

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (!detail::is_default_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  return cudaDeviceSynchronize();
}

cudaError_t cudaDeviceReset() {
  take_fault();
  last_error = cudaSuccess;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return fail(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  if (!device) return fail(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice);
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (!prop) return fail(cudaErrorInvalidValue);
  if (device != 0) return fail(cudaErrorInvalidDevice);
  std::memset(prop, 0, sizeof *prop);
  std::strncpy(prop->name, kDeviceName, sizeof prop->name - 1);
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  prop->totalGlobalMem = pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * page : 0;
  prop->sharedMemPerBlock = 48 * 1024;
  prop->sharedMemPerBlockOptin = kMaxDynamicSharedBytes;
  prop->sharedMemPerMultiprocessor = 228 * 1024;
  prop->regsPerBlock = 65536;
  prop->regsPerMultiprocessor = 65536;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsDim[0] = 1024;
  prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 0x7fffffff;
  prop->maxGridSize[1] = 65535;
  prop->maxGridSize[2] = 65535;
  prop->maxThreadsPerMultiProcessor = 2048;
  prop->maxBlocksPerMultiProcessor = 32;
  prop->totalConstMem = 64 * 1024;
  // The emulator models the memory system of compute capability 9.0 (32-byte
  // sectors, 128-byte lines, 32 banks); one "multiprocessor" per host worker.
  prop->major = 9;
  prop->minor = 0;
  prop->multiProcessorCount = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  prop->l2CacheSize = 0;
  prop->unifiedAddressing = 1;
  prop->concurrentKernels = 0;
  prop->memPitch = 0x7fffffff;
  prop->textureAlignment = 512;
  return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void* kernel, cudaFuncAttribute attr, int value) {
  switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
      return detail::set_max_dynamic_shared(kernel, value);
    case cudaFuncAttributePreferredSharedMemoryCarveout:
      if (value < -1 || value > 100) return fail(cudaErrorInvalidValue);
      return cudaSuccess;
    default:
      return fail(cudaErrorInvalidValue);
  }
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (!value) return fail(cudaErrorInvalidValue);
  if (device != 0) return fail(cudaErrorInvalidDevice);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock:
      *value = p.maxThreadsPerBlock;
      break;
    case cudaDevAttrWarpSize:
      *value = p.warpSize;
      break;
    case cudaDevAttrMultiProcessorCount:
      *value = p.multiProcessorCount;
      break;
    case cudaDevAttrComputeCapabilityMajor:
      *value = p.major;
      break;
    case cudaDevAttrComputeCapabilityMinor:
      *value = p.minor;
      break;
    case cudaDevAttrMaxSharedMemoryPerBlock:
      *value = static_cast<int>(p.sharedMemPerBlock);
      break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
      *value = static_cast<int>(p.sharedMemPerBlockOptin);
      break;
    case cudaDevAttrMaxBlockDimX:
      *value = 1024;
      break;
    case cudaDevAttrMaxBlockDimY:
      *value = 1024;
      break;
    case cudaDevAttrMaxBlockDimZ:
      *value = 64;
      break;
    case cudaDevAttrMaxGridDimX:
      *value = 0x7fffffff;
      break;
    case cudaDevAttrMaxGridDimY:
      *value = 65535;
      break;
    case cudaDevAttrMaxGridDimZ:
      *value = 65535;
      break;
    default:
      return fail(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

}  // namespace cudalab::emu
