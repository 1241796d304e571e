// The CUDA runtime API subset, on host memory standing in for device memory:
// memory, copies, errors and devices (streams and events: streams.cpp, events.cpp).
#include "cudalab/emu/runtime.hpp"
#include "cudalab/emu/cluster_launch.hpp"

#include <atomic>
#include <cstring>
#include <string>
#include <string_view>

#include "device_side_effects.hpp"
#include "engine.hpp"
#include "streams.hpp"

namespace cudalab::emu {

namespace {

thread_local cudaError_t last_error = cudaSuccess;
// A fault raised by a kernel (illegal address, launch failure), waiting to be
// returned by the next synchronising call.
std::atomic<cudaError_t> pending_fault{cudaSuccess};

cudaError_t fail(cudaError_t e) { return detail::set_last_error(e); }

// The fault of an earlier launch, returned once; a sticky one (a failed
// device assert) every time, until cudaDeviceReset.
cudaError_t take_fault() {
  if (cudaError_t sticky = detail::sticky_error(); sticky != cudaSuccess) return sticky;
  return pending_fault.exchange(cudaSuccess);
}

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

cudaError_t take_pending_fault() noexcept { return take_fault(); }

bool is_default_stream(cudaStream_t stream) noexcept {
  return stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread;
}

}  // namespace detail

cudaError_t cudaMalloc(void** ptr, std::size_t bytes) {
  if (!ptr) return fail(cudaErrorInvalidValue);
  if (cudaError_t e = detail::unsafe_during_capture(); e != cudaSuccess) return fail(e);
  if (cudaError_t sticky = detail::sticky_error(); sticky != cudaSuccess) return fail(sticky);
  // No implicit synchronisation: on an H200 (CUDA 13) cudaMalloc does not
  // wait for pending work, whatever the docs allow (tests/emu/test_stream_probes.cpp).
  Allocation* a = detail::allocate(bytes);
  if (!a) {
    *ptr = nullptr;
    return fail(cudaErrorMemoryAllocation);
  }
  *ptr = reinterpret_cast<void*>(a->base);
  return cudaSuccess;
}

cudaError_t set_guard_bytes(void* base, std::size_t front, std::size_t back) {
  Allocation* a = detail::find_live(base, 1);
  if (!a || a->base != reinterpret_cast<std::uintptr_t>(base) || front + back > a->bytes) {
    return fail(cudaErrorInvalidValue);
  }
  a->guard_front = front;
  a->guard_back = back;
  return cudaSuccess;
}

std::size_t device_bytes_from(const void* p) noexcept {
  const Allocation* a = detail::find_live(p, 1);
  if (!a) return 0;
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t end = a->base + a->bytes - a->guard_back;
  if (address < a->base + a->guard_front || address >= end) return 0;
  return end - address;
}

cudaError_t cudaFree(void* ptr) {
  if (!ptr) return cudaSuccess;
  if (cudaError_t e = detail::unsafe_during_capture(); e != cudaSuccess) return fail(e);
  if (cudaError_t sticky = detail::sticky_error(); sticky != cudaSuccess) return fail(sticky);
  detail::synchronize_device();
  detail::host_synchronised(-1, true);
  detail::forget_managed(ptr);
  detail::forget_pool_block(ptr);
  return detail::release(ptr) ? cudaSuccess : fail(cudaErrorInvalidValue);
}

cudaError_t cudaMallocHost(void** ptr, std::size_t bytes) { return cudaHostAlloc(ptr, bytes, 0); }

cudaError_t cudaMallocHost(void** ptr, std::size_t bytes, unsigned int flags) {
  return cudaHostAlloc(ptr, bytes, flags);
}

cudaError_t cudaHostAlloc(void** ptr, std::size_t bytes, unsigned int flags) {
  constexpr unsigned known =
      cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;
  if (!ptr || (flags & ~known)) return fail(cudaErrorInvalidValue);
  if (cudaError_t e = detail::unsafe_during_capture(); e != cudaSuccess) return fail(e);
  // No implicit synchronisation, as for cudaMalloc (checked on an H200).
  *ptr = detail::allocate_pinned(bytes);
  return *ptr ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}

cudaError_t cudaFreeHost(void* ptr) {
  if (!ptr) return cudaSuccess;
  if (cudaError_t e = detail::unsafe_during_capture(); e != cudaSuccess) return fail(e);
  detail::synchronize_device();
  return detail::release_pinned(ptr) ? cudaSuccess : fail(cudaErrorInvalidValue);
}

namespace {

// Checks a copy's pointers against its direction; the allocation written
// (nullptr for host memory) through `to`.
cudaError_t check_copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                       Allocation** to) {
  if (!dst || !src) return cudaErrorInvalidValue;
  *to = detail::find_live(dst, bytes);
  const bool from_device = detail::find_live(src, bytes) != nullptr;
  switch (kind) {
    case cudaMemcpyHostToDevice:
      return *to ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyDeviceToHost:
      return from_device ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyDeviceToDevice:
      return *to && from_device ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyHostToHost:
    case cudaMemcpyDefault:
      return cudaSuccess;
    default:
      return cudaErrorInvalidMemcpyDirection;
  }
}

void copy_now(void* dst, const void* src, std::size_t bytes, Allocation* to) {
  std::memmove(dst, src, bytes);
  if (to) to->mark_initialised(reinterpret_cast<std::uintptr_t>(dst), bytes);
}

const char* direction(const void* dst, const void* src, std::size_t bytes) {
  const bool to_device = detail::find_live(dst, bytes) != nullptr;
  const bool from_device = detail::find_live(src, bytes) != nullptr;
  if (to_device) return from_device ? "DtoD" : "HtoD";
  return from_device ? "DtoH" : "HtoH";
}

// For a copy between two devices' memory: " from device 0 to device 1"; else "".
std::string between_devices(const void* dst, const void* src, std::size_t bytes) {
  const Allocation* to = detail::find_live(dst, bytes);
  const Allocation* from = detail::find_live(src, bytes);
  if (!to || !from || to->device == from->device) return "";
  return " from device " + std::to_string(from->device) + " to device " +
         std::to_string(to->device);
}

// A copy's duration on the modelled clock.
double copy_modelled_us(void* dst, const void* src, std::size_t bytes) {
  const bool device_side_only = std::string_view(direction(dst, src, bytes)) == "DtoD";
  const bool between = !between_devices(dst, src, bytes).empty();
  const bool pinned = detail::is_pinned(dst, bytes) || detail::is_pinned(src, bytes);
  const double bandwidth = between            ? detail::kPeerCopyBytesPerUs
                           : device_side_only ? detail::kDeviceCopyBytesPerUs
                           : pinned           ? detail::kPinnedBytesPerUs
                                              : detail::kPageableBytesPerUs;
  return detail::kCopyOverheadUs + static_cast<double>(bytes) / bandwidth;
}

double memset_modelled_us(std::size_t bytes) {
  return detail::kCopyOverheadUs + static_cast<double>(bytes) / detail::kMemsetBytesPerUs;
}

// Queues a copy on `stream`; `wait`: the host waits for it.
void queue_copy(const char* call, void* dst, const void* src, std::size_t bytes, Allocation* to,
                cudaStream_t stream, bool wait, detail::SiteRef call_site) {
  detail::QueuedOperation op;
  op.stream = stream;
  op.what = std::string(call) + " " + direction(dst, src, bytes) + " " + std::to_string(bytes) +
            " bytes" + between_devices(dst, src, bytes);
  op.call_site = call_site;
  op.modelled_us = copy_modelled_us(dst, src, bytes);
  op.run = [dst, src, bytes, to](detail::OperationAccesses& accesses) {
    copy_now(dst, src, bytes, to);
    const auto d = reinterpret_cast<std::uintptr_t>(dst);
    const auto s = reinterpret_cast<std::uintptr_t>(src);
    accesses.reads.push_back({s, s + bytes});
    accesses.writes.push_back({d, d + bytes});
  };
  detail::enqueue(std::move(op), wait);
}

// An async copy whose host side is pageable memory completes before the call
// returns, as on the GPU.
bool host_side_pageable(void* dst, const void* src, std::size_t bytes) {
  const bool dst_host = detail::find_live(dst, bytes) == nullptr;
  const bool src_host = detail::find_live(src, bytes) == nullptr;
  return (dst_host && !detail::is_pinned(dst, bytes)) ||
         (src_host && !detail::is_pinned(src, bytes));
}

}  // namespace

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  // Faults of work that ran surface here; the copy then waits for what the
  // legacy default stream orders before it (not for non-blocking streams:
  // checked on an H200, tests/emu/test_stream_probes.cpp).
  if (cudaError_t fault = take_fault(); fault != cudaSuccess) return fail(fault);
  if (cudaError_t e = detail::legacy_work_during_capture(); e != cudaSuccess) return fail(e);
  if (cudaError_t e = detail::unsafe_during_capture(); e != cudaSuccess) return fail(e);
  if (bytes == 0) return cudaSuccess;
  Allocation* to = nullptr;
  if (cudaError_t e = check_copy(dst, src, bytes, kind, &to); e != cudaSuccess) return fail(e);
  if (detail::runs_at_once(nullptr)) {
    // Nothing is queued: the copy is the host synchronising with the device.
    detail::host_synchronised(-1, false);
    const double start_us = detail::unqueued_start_us();
    copy_now(dst, src, bytes, to);
    detail::unqueued_ended(start_us, copy_modelled_us(dst, src, bytes), [&] {
      return std::string("cudaMemcpy ") + direction(dst, src, bytes) + " " + std::to_string(bytes) +
             " bytes";
    });
    return cudaSuccess;
  }
  // On the legacy default stream, and the host waits: a non-blocking
  // stream's unordered work still races with it.
  queue_copy("cudaMemcpy", dst, src, bytes, to, nullptr, true,
             detail::SiteRef::at_pc(__builtin_return_address(0)));
  detail::host_synchronised(-1, false);
  return fail(take_fault());
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  if (!detail::is_valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  if (cudaError_t sticky = detail::sticky_error(); sticky != cudaSuccess) return fail(sticky);
  if (detail::runs_at_once(stream)) return cudaMemcpy(dst, src, bytes, kind);
  if (bytes == 0) return cudaSuccess;
  Allocation* to = nullptr;
  if (cudaError_t e = check_copy(dst, src, bytes, kind, &to); e != cudaSuccess) return fail(e);
  queue_copy("cudaMemcpyAsync", dst, src, bytes, to, stream, host_side_pageable(dst, src, bytes),
             detail::SiteRef::at_pc(__builtin_return_address(0)));
  return cudaSuccess;
}

namespace {

// A peer copy's devices and pointers: both sides device memory.
cudaError_t check_peer_copy(void* dst, int dst_device, const void* src, int src_device,
                            std::size_t bytes, Allocation** to) {
  if (!detail::is_device(dst_device) || !detail::is_device(src_device)) {
    return cudaErrorInvalidDevice;
  }
  if (bytes == 0) return cudaSuccess;
  return check_copy(dst, src, bytes, cudaMemcpyDeviceToDevice, to);
}

}  // namespace

cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device,
                           std::size_t bytes) {
  Allocation* to = nullptr;
  if (cudaError_t e = check_peer_copy(dst, dst_device, src, src_device, bytes, &to);
      e != cudaSuccess) {
    return fail(e);
  }
  // The GPU orders it after all earlier work of the three devices and before
  // their later work, and may return before it is done; here the host waits
  // for that work and for the copy (a stronger order, never a weaker one).
  for (int device : {detail::current_device(), src_device, dst_device}) {
    detail::synchronize_device(device);
  }
  if (cudaError_t fault = take_fault(); fault != cudaSuccess) return fail(fault);
  if (bytes == 0) return cudaSuccess;
  if (detail::runs_at_once(nullptr)) {
    copy_now(dst, src, bytes, to);
    return cudaSuccess;
  }
  queue_copy("cudaMemcpyPeer", dst, src, bytes, to, nullptr, true,
             detail::SiteRef::at_pc(__builtin_return_address(0)));
  return cudaSuccess;
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                std::size_t bytes, cudaStream_t stream) {
  if (!detail::is_valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  Allocation* to = nullptr;
  if (cudaError_t e = check_peer_copy(dst, dst_device, src, src_device, bytes, &to);
      e != cudaSuccess) {
    return fail(e);
  }
  if (bytes == 0) return cudaSuccess;
  if (detail::runs_at_once(stream)) {
    copy_now(dst, src, bytes, to);
    return cudaSuccess;
  }
  queue_copy("cudaMemcpyPeerAsync", dst, src, bytes, to, stream, false,
             detail::SiteRef::at_pc(__builtin_return_address(0)));
  return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
  if (!attributes) return fail(cudaErrorInvalidValue);
  *attributes = cudaPointerAttributes{};
  attributes->device = -1;
  if (const Allocation* a = detail::find_live(ptr, 1)) {
    attributes->type = a->managed_flags ? cudaMemoryTypeManaged : cudaMemoryTypeDevice;
    attributes->device = a->device;
    attributes->devicePointer = const_cast<void*>(ptr);
    if (a->managed_flags) attributes->hostPointer = const_cast<void*>(ptr);
  } else if (detail::is_pinned(ptr, 1)) {
    // Portable in the emulator: every device reaches it.
    attributes->type = cudaMemoryTypeHost;
    attributes->device = detail::current_device();
    attributes->devicePointer = const_cast<void*>(ptr);
    attributes->hostPointer = const_cast<void*>(ptr);
  } else {
    attributes->type = cudaMemoryTypeUnregistered;
    attributes->hostPointer = const_cast<void*>(ptr);
  }
  return cudaSuccess;
}

namespace {

void queue_memset(const char* call, void* ptr, int value, std::size_t bytes, Allocation* a,
                  cudaStream_t stream, bool wait, detail::SiteRef call_site) {
  detail::QueuedOperation op;
  op.stream = stream;
  op.what = std::string(call) + " " + std::to_string(bytes) + " bytes";
  op.call_site = call_site;
  op.modelled_us = memset_modelled_us(bytes);
  op.run = [ptr, value, bytes, a](detail::OperationAccesses& accesses) {
    std::memset(ptr, value, bytes);
    a->mark_initialised(reinterpret_cast<std::uintptr_t>(ptr), bytes);
    const auto p = reinterpret_cast<std::uintptr_t>(ptr);
    accesses.writes.push_back({p, p + bytes});
  };
  detail::enqueue(std::move(op), wait);
}

}  // namespace

cudaError_t cudaMemset(void* ptr, int value, std::size_t bytes) {
  if (cudaError_t fault = take_fault(); fault != cudaSuccess) return fail(fault);
  if (cudaError_t e = detail::legacy_work_during_capture(); e != cudaSuccess) return fail(e);
  if (cudaError_t e = detail::unsafe_during_capture(); e != cudaSuccess) return fail(e);
  if (bytes == 0) return cudaSuccess;
  Allocation* a = detail::find_live(ptr, bytes);
  if (!a) return fail(cudaErrorInvalidValue);
  if (detail::runs_at_once(nullptr)) {
    const double start_us = detail::unqueued_start_us();
    detail::device_work_begins();  // device work: managed memory is reachable
    std::memset(ptr, value, bytes);
    detail::device_work_ends();
    a->mark_initialised(reinterpret_cast<std::uintptr_t>(ptr), bytes);
    detail::unqueued_ended(start_us, memset_modelled_us(bytes),
                           [&] { return "cudaMemset " + std::to_string(bytes) + " bytes"; });
    return cudaSuccess;
  }
  queue_memset("cudaMemset", ptr, value, bytes, a, nullptr, true,
               detail::SiteRef::at_pc(__builtin_return_address(0)));
  return fail(take_fault());
}

cudaError_t cudaMemsetAsync(void* ptr, int value, std::size_t bytes, cudaStream_t stream) {
  if (!detail::is_valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  if (cudaError_t sticky = detail::sticky_error(); sticky != cudaSuccess) return fail(sticky);
  if (detail::runs_at_once(stream)) return cudaMemset(ptr, value, bytes);
  if (bytes == 0) return cudaSuccess;
  Allocation* a = detail::find_live(ptr, bytes);
  if (!a) return fail(cudaErrorInvalidValue);
  queue_memset("cudaMemsetAsync", ptr, value, bytes, a, stream, false,
               detail::SiteRef::at_pc(__builtin_return_address(0)));
  return cudaSuccess;
}

cudaError_t cudaGetLastError() {
  cudaError_t fault = take_fault();
  cudaError_t e = fault != cudaSuccess ? fault : last_error;
  last_error = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError() {
  if (cudaError_t sticky = detail::sticky_error(); sticky != cudaSuccess) return sticky;
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
    {cudaErrorPeerAccessAlreadyEnabled, "cudaErrorPeerAccessAlreadyEnabled",
     "peer access is already enabled"},
    {cudaErrorPeerAccessUnsupported, "cudaErrorPeerAccessUnsupported",
     "peer access is not supported between these two devices"},
    {cudaErrorPeerAccessNotEnabled, "cudaErrorPeerAccessNotEnabled",
     "peer access has not been enabled"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered"},
    {cudaErrorUnsupportedLimit, "cudaErrorUnsupportedLimit",
     "limit is not supported on this architecture"},
    {cudaErrorIllegalState, "cudaErrorIllegalState",
     "the operation cannot be performed in the present state"},
    {cudaErrorStreamCaptureUnsupported, "cudaErrorStreamCaptureUnsupported",
     "operation not permitted when stream is capturing"},
    {cudaErrorStreamCaptureInvalidated, "cudaErrorStreamCaptureInvalidated",
     "operation failed due to a previous error during capture"},
    {cudaErrorStreamCaptureMerge, "cudaErrorStreamCaptureMerge",
     "operation would result in a merge of separate capture sequences"},
    {cudaErrorStreamCaptureUnmatched, "cudaErrorStreamCaptureUnmatched",
     "capture was not ended in the same stream as it began"},
    {cudaErrorStreamCaptureUnjoined, "cudaErrorStreamCaptureUnjoined",
     "capturing stream has unjoined work"},
    {cudaErrorStreamCaptureIsolation, "cudaErrorStreamCaptureIsolation",
     "dependency created on uncaptured work in another stream"},
    {cudaErrorStreamCaptureImplicit, "cudaErrorStreamCaptureImplicit",
     "operation would make the legacy stream depend on a capturing blocking stream"},
    {cudaErrorStreamCaptureWrongThread, "cudaErrorStreamCaptureWrongThread",
     "attempt to terminate a thread-local capture sequence from another thread"},
    {cudaErrorCapturedEvent, "cudaErrorCapturedEvent",
     "operation not permitted on an event last recorded in a capturing stream"},
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

cudaError_t cudaDeviceSynchronize() {
  if (cudaError_t e = detail::unsafe_during_capture(); e != cudaSuccess) return fail(e);
  detail::synchronize_device();
  detail::host_synchronised(-1, true);
  return fail(take_fault());
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (!detail::is_valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  if (cudaError_t e = detail::capture_forbids_waiting_for(stream); e != cudaSuccess) {
    return fail(e);
  }
  detail::synchronize_stream(stream);
  detail::host_synchronised(detail::device_of_stream(stream), false);
  return fail(take_fault());
}

cudaError_t cudaDeviceReset() {
  detail::reset_device();
  detail::host_synchronised(-1, true);
  detail::reset_device_output(detail::current_device());
  detail::clear_sticky_error(detail::current_device());
  take_fault();
  last_error = cudaSuccess;
  return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void* kernel, cudaFuncAttribute attr, int value) {
  switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
      return detail::set_max_dynamic_shared(kernel, value);
    case cudaFuncAttributeNonPortableClusterSizeAllowed:  // cluster_launch.cpp
      return detail::set_non_portable_cluster_size_allowed(kernel, value);
    case cudaFuncAttributePreferredSharedMemoryCarveout:
      if (value < -1 || value > 100) return fail(cudaErrorInvalidValue);
      return cudaSuccess;
    default:
      return fail(cudaErrorInvalidValue);
  }
}

}  // namespace cudalab::emu
