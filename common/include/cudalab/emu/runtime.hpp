// The CUDA runtime API subset the emulator provides, with CUDA's names,
// signatures and error codes, in namespace cudalab::emu. shim.hpp maps the
// global names onto these with macros (`cudaMalloc` -> cudalab::emu::cudaMalloc)
// so that the real libcudart symbols are never defined here: one binary can
// link the GPU build of a lab and the emulator build side by side.
//
// Streams and events (docs/emulator.md, "The device model"): work issued on
// a stream is queued and runs at the next host synchronisation point, in an
// order a scheduler picks among those that respect stream order, events and
// the default-stream rules (Options::schedule, CUDALAB_EMU_SCHEDULE); a race
// checker reports two unordered operations of different streams touching the
// same bytes. While no stream was created (every single-stream program) and
// nothing is queued, work on the default streams runs at once, before the
// call returns, as it always did.
//
// Errors. API misuse returns its error and also sets the "last error", as in
// CUDA. A fault inside a kernel (out-of-bounds or freed memory:
// cudaErrorIllegalAddress; a misaligned access: cudaErrorMisalignedAddress;
// divergent barrier or broken warp collective: cudaErrorLaunchFailure) is
// returned by the next cudaDeviceSynchronize,
// synchronous cudaMemcpy/cudaMemset or cudaGetLastError. Unlike a GPU the
// error is not sticky: returning it once clears it, so one test process can
// plant a bug and carry on.
#pragma once

#include <driver_types.h>

#include <cstddef>

namespace cudalab::emu {

// The name cudaGetDeviceProperties reports.
inline constexpr const char* kDeviceName = "cudalab CPU emulator";
// Largest shared memory per block (static + dynamic) a launch may use: the
// H100's and H200's opt-in limit (cudaDevAttrMaxSharedMemoryPerBlockOptin).
// Dynamic shared memory above 48 KiB needs cudaFuncSetAttribute first, as on
// the GPU.
inline constexpr std::size_t kMaxDynamicSharedBytes = 227 * 1024;

cudaError_t cudaMalloc(void** ptr, std::size_t bytes);
template <class T>
cudaError_t cudaMalloc(T** ptr, std::size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), bytes);
}
cudaError_t cudaFree(void* ptr);
// Not CUDA: a test harness's guard bytes. The first `front` and last `back`
// bytes of the cudaMalloc allocation at `base` belong to no tensor the
// kernel was given: a kernel access there is an out-of-bounds error, as
// outside the allocation, while host copies still reach them. Where a guard
// is only compared afterwards, a read of it (a tail done by over-reading a
// whole float4) goes unseen.
cudaError_t set_guard_bytes(void* base, std::size_t front, std::size_t back);
// Not CUDA: how many bytes of device memory start at `p`, to the end of its
// cudaMalloc allocation (less any guard bytes); 0 when `p` is not device
// memory a kernel may touch. Library stand-ins (cudalab::blas for cuBLAS)
// check the extent of their arguments with it, where the GPU would fault.
std::size_t device_bytes_from(const void* p) noexcept;
cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream = nullptr);
cudaError_t cudaMemset(void* ptr, int value, std::size_t bytes);
cudaError_t cudaMemsetAsync(void* ptr, int value, std::size_t bytes, cudaStream_t stream = nullptr);

// Page-locked ("pinned") host memory: async copies from or to it stay
// asynchronous; from or to any other host memory they complete before the
// call returns, as on the GPU.
cudaError_t cudaMallocHost(void** ptr, std::size_t bytes);
cudaError_t cudaMallocHost(void** ptr, std::size_t bytes, unsigned int flags);
template <class T>
cudaError_t cudaMallocHost(T** ptr, std::size_t bytes, unsigned int flags = 0) {
  return ::cudalab::emu::cudaMallocHost(reinterpret_cast<void**>(ptr), bytes, flags);
}
cudaError_t cudaHostAlloc(void** ptr, std::size_t bytes, unsigned int flags);
template <class T>
cudaError_t cudaHostAlloc(T** ptr, std::size_t bytes, unsigned int flags) {
  return ::cudalab::emu::cudaHostAlloc(reinterpret_cast<void**>(ptr), bytes, flags);
}
cudaError_t cudaFreeHost(void* ptr);

// Stream-ordered allocation (docs/emulator.md): a block freed on a stream is
// reused at once by that stream, by another only once it is ordered after
// the free.
namespace detail {
// `caller`: where host code made the call, for reports.
cudaError_t malloc_async(void** ptr, std::size_t bytes, cudaStream_t stream, const void* caller);
}  // namespace detail
cudaError_t cudaMallocAsync(void** ptr, std::size_t bytes, cudaStream_t stream);
template <class T>
[[gnu::noinline]] cudaError_t cudaMallocAsync(T** ptr, std::size_t bytes, cudaStream_t stream) {
  return detail::malloc_async(reinterpret_cast<void**>(ptr), bytes, stream,
                              __builtin_return_address(0));
}
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream);

cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data);

// CUDA graphs by stream capture (docs/emulator.md, "Graphs"): work issued to
// a capturing stream becomes a node instead of running; a launch issues the
// nodes again, as concurrent as the graph allows, race-checked and timed.
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                 unsigned long long flags = 0);
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph,
                                          unsigned long long flags = 0);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
// nodes == nullptr: *count is set to the number of nodes.
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, std::size_t* count);

cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventCreate(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = nullptr);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
// Milliseconds between the two records on the modelled clock (the cost model
// of docs/emulator.md), not host time.
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);

cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorString(cudaError_t error);
const char* cudaGetErrorName(cudaError_t error);

cudaError_t cudaDeviceSynchronize();
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaDeviceReset();
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
// Several virtual devices (Options::devices, CUDALAB_EMU_DEVICES; docs/emulator.md,
// "Several devices"): every pair of distinct devices can access each other once
// enabled; a kernel touching another device's memory without it is a
// `peer_access` report and cudaErrorIllegalAddress, as on the GPU.
cudaError_t cudaDeviceCanAccessPeer(int* can_access, int device, int peer);
cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags);
cudaError_t cudaDeviceDisablePeerAccess(int peer);
// Copies between two devices' memory. cudaMemcpyPeer waits for the earlier
// work of the current, source and destination devices, then copies before
// it returns; cudaMemcpyPeerAsync is queued on `stream` like cudaMemcpyAsync.
cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device,
                           std::size_t bytes);
cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                std::size_t bytes, cudaStream_t stream = nullptr);
// Device memory: its device; page-locked host memory: cudaMemoryTypeHost;
// anything else: cudaMemoryTypeUnregistered.
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
// Only cudaFuncAttributeMaxDynamicSharedMemorySize has an effect (up to
// kMaxDynamicSharedBytes; more is cudaErrorInvalidValue, as on the GPU);
// cudaFuncAttributePreferredSharedMemoryCarveout is accepted and ignored.
cudaError_t cudaFuncSetAttribute(const void* kernel, cudaFuncAttribute attr, int value);
template <class... Params>
cudaError_t cudaFuncSetAttribute(void (*kernel)(Params...), cudaFuncAttribute attr, int value) {
  return ::cudalab::emu::cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), attr, value);
}

namespace detail {
// True for the default streams (0, cudaStreamLegacy, cudaStreamPerThread).
bool is_default_stream(cudaStream_t stream) noexcept;
// Records an API error as the last error and returns it.
cudaError_t set_last_error(cudaError_t error) noexcept;
}  // namespace detail

}  // namespace cudalab::emu
