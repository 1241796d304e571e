// Device printf: each device's FIFO of formatted records, flushed to stdout
// at the GPU's flush points; and the device limits (the FIFO's size among them).
#include "cudalab/emu/device_printf.hpp"

#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "block_run.hpp"
#include "cudalab/emu/runtime.hpp"
#include "device_side_effects.hpp"
#include "engine.hpp"

namespace cudalab::emu {
namespace detail {
namespace {

// cudaDeviceGetLimit's defaults on an H200 (CUDA 13). The printf FIFO's,
// 8.25 MiB on the H200 and the H100 (driver 580.159.04, 2026-12-06), is not
// the 1 MiB the Programming Guide gives.
constexpr std::size_t kDefaultFifoBytes = 8650752;
constexpr std::size_t kDefaultStackBytes = 1024;
constexpr std::size_t kDefaultHeapBytes = std::size_t{8} << 20;
// What one record costs in the FIFO. The GPU stores the format string's
// address and the arguments, 8 bytes each, behind a header, not the text;
// this is that layout's size as far as it is documented (the exact header
// is not), so the point where output is dropped is close to the GPU's, not
// equal to it.
constexpr std::size_t kRecordHeaderBytes = 8;
constexpr std::size_t kRecordWordBytes = 8;

struct DeviceOutput {
  std::mutex mutex;
  std::size_t fifo_bytes = kDefaultFifoBytes;
  std::size_t stack_bytes = kDefaultStackBytes;
  std::size_t heap_bytes = kDefaultHeapBytes;
  std::size_t used = 0;         // bytes of records since the last flush
  bool printf_ran = false;      // a kernel called printf: the size is fixed
  std::string out;              // the records that fit, formatted
  std::string assert_messages;  // for stderr
};

DeviceOutput& output_of(int device) {
  static DeviceOutput outputs[kMaxDevices];
  return outputs[device < 0 ? current_device() : device];
}

// The arguments a format names (CUDA's printf returns this count): each
// conversion, and each `*` width or precision; `%%` names none.
int arguments_named(const char* format) {
  int n = 0;
  for (const char* p = format; *p; ++p) {
    if (*p != '%') continue;
    ++p;
    if (*p == '%') continue;
    while (*p && std::string_view("#0- +'").find(*p) != std::string_view::npos) ++p;
    for (; *p && (*p == '*' || *p == '.' || (*p >= '0' && *p <= '9')); ++p) {
      if (*p == '*') ++n;
    }
    while (*p && std::string_view("hlLqjzt").find(*p) != std::string_view::npos) ++p;
    if (!*p) break;
    ++n;
  }
  return n;
}

}  // namespace

void flush_device_output(int device) {
  DeviceOutput& o = output_of(device);
  std::string out, messages;
  {
    std::lock_guard lock(o.mutex);
    out.swap(o.out);
    messages.swap(o.assert_messages);
    o.used = 0;
  }
  if (!out.empty()) {
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
  }
  if (!messages.empty()) {
    std::fwrite(messages.data(), 1, messages.size(), stderr);
    std::fflush(stderr);
  }
}

void buffer_assert_message(int device, std::string message) {
  DeviceOutput& o = output_of(device);
  std::lock_guard lock(o.mutex);
  o.assert_messages += message;
}

void reset_device_output(int device) {
  flush_device_output(device);
  DeviceOutput& o = output_of(device);
  std::lock_guard lock(o.mutex);
  o.fifo_bytes = kDefaultFifoBytes;
  o.stack_bytes = kDefaultStackBytes;
  o.heap_bytes = kDefaultHeapBytes;
  o.printf_ran = false;
}

}  // namespace detail

int device_printf(const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  const detail::BlockRun* run = detail::current_thread->run;
  if (!run) {
    const int printed = format ? std::vprintf(format, args) : -1;
    va_end(args);
    return printed;
  }
  if (!format) {
    va_end(args);
    return -1;
  }
  // The emulator's own writes (the string's buffer) are not the kernel's.
  const detail::CheckingAnAccess quiet;
  std::va_list measure;
  va_copy(measure, args);
  const int length = std::vsnprintf(nullptr, 0, format, measure);
  va_end(measure);
  std::string text(length > 0 ? static_cast<std::size_t>(length) : 0, '\0');
  if (length > 0) std::vsnprintf(text.data(), text.size() + 1, format, args);
  va_end(args);
  const int named = detail::arguments_named(format);
  const std::size_t cost =
      detail::kRecordHeaderBytes + detail::kRecordWordBytes * (1 + static_cast<std::size_t>(named));
  detail::DeviceOutput& o = detail::output_of(run->launch->device);
  std::lock_guard lock(o.mutex);
  o.printf_ran = true;
  // A full FIFO drops the record: the GPU loses output it has no room for.
  if (o.used + cost <= o.fifo_bytes) {
    o.used += cost;
    o.out += text;
  }
  return named;
}

cudaError_t cudaDeviceSetLimit(cudaLimit limit, std::size_t value) {
  if (cudaError_t e = detail::sticky_error(); e != cudaSuccess) return detail::set_last_error(e);
  detail::DeviceOutput& o = detail::output_of(-1);
  std::lock_guard lock(o.mutex);
  switch (limit) {
    case cudaLimitPrintfFifoSize:
      if (o.printf_ran) return detail::set_last_error(cudaErrorInvalidValue);
      o.fifo_bytes = value;
      return cudaSuccess;
    case cudaLimitStackSize:
      o.stack_bytes = value;
      return cudaSuccess;
    case cudaLimitMallocHeapSize:
      o.heap_bytes = value;
      return cudaSuccess;
    default:
      return detail::set_last_error(cudaErrorUnsupportedLimit);
  }
}

cudaError_t cudaDeviceGetLimit(std::size_t* value, cudaLimit limit) {
  if (!value) return detail::set_last_error(cudaErrorInvalidValue);
  detail::DeviceOutput& o = detail::output_of(-1);
  std::lock_guard lock(o.mutex);
  switch (limit) {
    case cudaLimitPrintfFifoSize:
      *value = o.fifo_bytes;
      return cudaSuccess;
    case cudaLimitStackSize:
      *value = o.stack_bytes;
      return cudaSuccess;
    case cudaLimitMallocHeapSize:
      *value = o.heap_bytes;
      return cudaSuccess;
    default:
      return detail::set_last_error(cudaErrorUnsupportedLimit);
  }
}

}  // namespace cudalab::emu
