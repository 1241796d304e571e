// Pitched memory: cudaMallocPitch and the 2D copies and memsets. A 2D
// operation is one operation of the device model (one queue entry, one
// entry of the race checker with a byte range per row), so it is ordered,
// timed and race-checked as cudaMemcpy is; only the width columns of each
// row are touched, never the padding.
#include "cudalab/emu/pitched_memory.hpp"

#include <cstring>
#include <string>

#include "cudalab/emu/runtime.hpp"
#include "streams.hpp"

namespace cudalab::emu {

namespace {

cudaError_t fail(cudaError_t e) { return detail::set_last_error(e); }

// The bytes a 2D operation spans: the last row ends after `width` bytes.
std::size_t extent(std::size_t pitch, std::size_t width, std::size_t height) {
  return (height - 1) * pitch + width;
}

// Each side's allocation (nullptr: host memory), after the direction check:
// a device side must lie wholly inside one live allocation, so a copy past
// its end is an error that changes nothing.
cudaError_t check_2d_copy(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                          std::size_t width, std::size_t height, cudaMemcpyKind kind,
                          Allocation** to, Allocation** from) {
  if (!dst || !src) return cudaErrorInvalidValue;
  if (width > dpitch || width > spitch || dpitch > kMaxPitch || spitch > kMaxPitch) {
    return cudaErrorInvalidPitchValue;
  }
  const std::size_t dst_bytes = extent(dpitch, width, height);
  const std::size_t src_bytes = extent(spitch, width, height);
  *to = detail::find_live(dst, dst_bytes);
  *from = detail::find_live(const_cast<void*>(src), src_bytes);
  // A pointer into device memory whose rows run past the allocation.
  const bool dst_overruns = !*to && detail::find_live(dst, 1);
  const bool src_overruns = !*from && detail::find_live(src, 1);
  switch (kind) {
    case cudaMemcpyHostToDevice:
      return *to ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyDeviceToHost:
      return *from ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyDeviceToDevice:
      return *to && *from ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyHostToHost:
    case cudaMemcpyDefault:
      return dst_overruns || src_overruns ? cudaErrorInvalidValue : cudaSuccess;
    default:
      return cudaErrorInvalidMemcpyDirection;
  }
}

void copy_rows(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
               std::size_t width, std::size_t height, Allocation* to,
               detail::OperationAccesses* accesses) {
  for (std::size_t row = 0; row < height; ++row) {
    auto* d = static_cast<unsigned char*>(dst) + row * dpitch;
    const auto* s = static_cast<const unsigned char*>(src) + row * spitch;
    std::memmove(d, s, width);
    const auto da = reinterpret_cast<std::uintptr_t>(d);
    const auto sa = reinterpret_cast<std::uintptr_t>(s);
    if (to) to->mark_initialised(da, width);
    if (accesses) {
      accesses->reads.push_back({sa, sa + width});
      accesses->writes.push_back({da, da + width});
    }
  }
}

void set_rows(void* ptr, std::size_t pitch, int value, std::size_t width, std::size_t height,
              Allocation* a, detail::OperationAccesses* accesses) {
  for (std::size_t row = 0; row < height; ++row) {
    auto* d = static_cast<unsigned char*>(ptr) + row * pitch;
    std::memset(d, value, width);
    const auto da = reinterpret_cast<std::uintptr_t>(d);
    a->mark_initialised(da, width);
    if (accesses) accesses->writes.push_back({da, da + width});
  }
}

const char* direction(const Allocation* to, const Allocation* from) {
  if (to) return from ? "DtoD" : "HtoD";
  return from ? "DtoH" : "HtoH";
}

double copy_2d_modelled_us(const Allocation* to, const Allocation* from, const void* dst,
                           const void* src, std::size_t bytes) {
  const bool pinned = detail::is_pinned(dst, 1) || detail::is_pinned(src, 1);
  const double bandwidth = to && from ? detail::kDeviceCopyBytesPerUs
                           : pinned   ? detail::kPinnedBytesPerUs
                                      : detail::kPageableBytesPerUs;
  return detail::kCopyOverheadUs + static_cast<double>(bytes) / bandwidth;
}

std::string copy_name(const char* call, const Allocation* to, const Allocation* from,
                      std::size_t width, std::size_t height) {
  return std::string(call) + " " + direction(to, from) + " " + std::to_string(height) +
         " rows of " + std::to_string(width) + " bytes";
}

// A host side that is not page-locked makes an async copy complete before
// the call returns, as on the GPU (and as cudaMemcpyAsync does here).
bool host_side_pageable(const Allocation* to, const Allocation* from, const void* dst,
                        const void* src) {
  return (!to && !detail::is_pinned(dst, 1)) || (!from && !detail::is_pinned(src, 1));
}

cudaError_t copy_2d(const char* call, void* dst, std::size_t dpitch, const void* src,
                    std::size_t spitch, std::size_t width, std::size_t height, cudaMemcpyKind kind,
                    cudaStream_t stream, bool async, const void* caller) {
  if (async && !detail::is_valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  const bool at_once = detail::runs_at_once(async ? stream : nullptr);
  if (!async || at_once) {
    if (cudaError_t fault = detail::take_pending_fault(); fault != cudaSuccess) return fail(fault);
  }
  if (width == 0 || height == 0) return cudaSuccess;
  Allocation* to = nullptr;
  Allocation* from = nullptr;
  if (cudaError_t e = check_2d_copy(dst, dpitch, src, spitch, width, height, kind, &to, &from);
      e != cudaSuccess) {
    return fail(e);
  }
  const double modelled = copy_2d_modelled_us(to, from, dst, src, width * height);
  if (at_once) {
    const double start_us = detail::unqueued_start_us();
    copy_rows(dst, dpitch, src, spitch, width, height, to, nullptr);
    detail::unqueued_ended(start_us, modelled,
                           [&] { return copy_name(call, to, from, width, height); });
    return cudaSuccess;
  }
  detail::QueuedOperation op;
  op.stream = async ? stream : nullptr;
  op.what = copy_name(call, to, from, width, height);
  op.call_site = detail::SiteRef::at_pc(caller);
  op.modelled_us = modelled;
  op.run = [=](detail::OperationAccesses& accesses) {
    copy_rows(dst, dpitch, src, spitch, width, height, to, &accesses);
  };
  const bool wait = !async || host_side_pageable(to, from, dst, src);
  detail::enqueue(std::move(op), wait);
  return async ? cudaSuccess : fail(detail::take_pending_fault());
}

cudaError_t set_2d(const char* call, void* ptr, std::size_t pitch, int value, std::size_t width,
                   std::size_t height, cudaStream_t stream, bool async, const void* caller) {
  if (async && !detail::is_valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  const bool at_once = detail::runs_at_once(async ? stream : nullptr);
  if (!async || at_once) {
    if (cudaError_t fault = detail::take_pending_fault(); fault != cudaSuccess) return fail(fault);
  }
  if (width == 0 || height == 0) return cudaSuccess;
  if (!ptr || width > pitch || pitch > kMaxPitch) return fail(cudaErrorInvalidValue);
  Allocation* a = detail::find_live(ptr, extent(pitch, width, height));
  if (!a) return fail(cudaErrorInvalidValue);
  const double modelled =
      detail::kCopyOverheadUs + static_cast<double>(width * height) / detail::kMemsetBytesPerUs;
  auto name = [&] {
    return std::string(call) + " " + std::to_string(height) + " rows of " + std::to_string(width) +
           " bytes";
  };
  if (at_once) {
    const double start_us = detail::unqueued_start_us();
    set_rows(ptr, pitch, value, width, height, a, nullptr);
    detail::unqueued_ended(start_us, modelled, name);
    return cudaSuccess;
  }
  detail::QueuedOperation op;
  op.stream = async ? stream : nullptr;
  op.what = name();
  op.call_site = detail::SiteRef::at_pc(caller);
  op.modelled_us = modelled;
  op.run = [=](detail::OperationAccesses& accesses) {
    set_rows(ptr, pitch, value, width, height, a, &accesses);
  };
  detail::enqueue(std::move(op), !async);
  return async ? cudaSuccess : fail(detail::take_pending_fault());
}

}  // namespace

cudaError_t cudaMallocPitch(void** ptr, std::size_t* pitch, std::size_t width, std::size_t height) {
  if (!ptr || !pitch || width > kMaxPitch) return fail(cudaErrorInvalidValue);
  const std::size_t p = (width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
  if (cudaError_t e = cudaMalloc(ptr, p * height); e != cudaSuccess) return e;
  *pitch = p;
  return cudaSuccess;
}

cudaError_t cudaMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                         std::size_t width, std::size_t height, cudaMemcpyKind kind) {
  return copy_2d("cudaMemcpy2D", dst, dpitch, src, spitch, width, height, kind, nullptr, false,
                 __builtin_return_address(0));
}

cudaError_t cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                              std::size_t width, std::size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream) {
  return copy_2d("cudaMemcpy2DAsync", dst, dpitch, src, spitch, width, height, kind, stream, true,
                 __builtin_return_address(0));
}

cudaError_t cudaMemset2D(void* ptr, std::size_t pitch, int value, std::size_t width,
                         std::size_t height) {
  return set_2d("cudaMemset2D", ptr, pitch, value, width, height, nullptr, false,
                __builtin_return_address(0));
}

cudaError_t cudaMemset2DAsync(void* ptr, std::size_t pitch, int value, std::size_t width,
                              std::size_t height, cudaStream_t stream) {
  return set_2d("cudaMemset2DAsync", ptr, pitch, value, width, height, stream, true,
                __builtin_return_address(0));
}

}  // namespace cudalab::emu
