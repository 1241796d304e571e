// Unified (managed) memory on a device without concurrent managed access:
// kernels use it as global memory; the host may touch it only while no
// kernel it launched is unsynchronised. Host code is not instrumented, so
// the pages are protected (PROT_NONE) while such a kernel is outstanding and
// no emulated device work runs, and a SIGSEGV handler turns the host's
// access into a report. The GPU behaves so with concurrentManagedAccess = 0
// (before Pascal, and on Windows); an H200 under Linux has it = 1 and lets
// the host in, so a program that passes here is correct on both.
#include "cudalab/emu/managed_memory.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "cudalab/emu/runtime.hpp"
#include "device_side_effects.hpp"
#include "engine.hpp"
#include "streams.hpp"

namespace cudalab::emu {
namespace detail {
namespace {

struct Managed {
  std::size_t bytes = 0;
  std::size_t page_bytes = 0;  // whole pages (allocate_page_aligned)
  unsigned flags = 0;
  int device = 0;
};

struct State {
  std::mutex mutex;
  std::map<std::uintptr_t, Managed> live;  // by base
  int executing = 0;                       // emulated device work running now
  bool busy[kMaxDevices] = {};             // a kernel launched, not synchronised
  std::string kernel[kMaxDevices];         // the last one launched
  bool protected_now = false;
};

State& state() {
  static State s;
  return s;
}

// No managed allocation was ever made: the launch and sync hooks return at once.
std::atomic<bool> any_managed{false};

// What the signal handler reads: no locks, no allocation. Published by
// protect_all() once filled, withdrawn (count 0) before any is unprotected.
struct ProtectedRange {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  std::string what;  // " in managed allocation 0x... (n bytes) ...": built before publishing
};
constexpr std::size_t kMaxRanges = 4096;
ProtectedRange ranges[kMaxRanges];
std::atomic<std::size_t> range_count{0};
struct sigaction previous_segv;

void write_text(const char* text) {
  std::size_t n = std::strlen(text);
  while (n > 0) {
    const ssize_t w = write(STDERR_FILENO, text, n);
    if (w <= 0) return;
    text += w;
    n -= static_cast<std::size_t>(w);
  }
}

void write_hex(std::uintptr_t v) {
  char digits[2 + 16 + 1] = "0x";
  int n = 2;
  bool started = false;
  for (int shift = 60; shift >= 0; shift -= 4) {
    const unsigned d = (v >> shift) & 0xf;
    if (d || started || shift == 0) {
      digits[n++] = "0123456789abcdef"[d];
      started = true;
    }
  }
  digits[n] = '\0';
  write_text(digits);
}

void on_segv(int signal, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  const std::size_t n = range_count.load(std::memory_order_acquire);
  for (std::size_t i = 0; i < n; ++i) {
    if (address < ranges[i].begin || address >= ranges[i].end) continue;
    const char* access = "access";
#if defined(__x86_64__)
    // The page fault's error code: bit 1 set for a write.
    access = (static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_ERR] & 2) ? "write" : "read";
#endif
    write_text("========= Host ");
    write_text(access);
    write_text(" of managed memory at ");
    write_hex(address);
    write_text(ranges[i].what.c_str());
    // The default action ends the process on the same access, as on a
    // device without concurrent managed access.
    struct sigaction fallback {};
    fallback.sa_handler = SIG_DFL;
    sigaction(signal, &fallback, nullptr);
    return;
  }
  // Not ours: the handler that was there before gets the same fault again.
  sigaction(signal, &previous_segv, nullptr);
}

void install_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_sigaction = &on_segv;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &previous_segv);
  });
}

std::string range_text(const State& s, std::uintptr_t base, const Managed& m) {
  int busy_device = m.device;
  for (int d = 0; d < kMaxDevices && !s.busy[busy_device]; ++d) {
    if (s.busy[d]) busy_device = d;
  }
  return " in managed allocation " + hex(base) + " (" + std::to_string(m.bytes) +
         " bytes, cudaMallocManaged) while kernel " + s.kernel[busy_device] +
         " launched on device " + std::to_string(busy_device) +
         " may still use it: the host has not synchronised with it since. The emulator models a "
         "device without concurrent managed access (cudaDevAttrConcurrentManagedAccess = 0), "
         "where this access faults; synchronise first (cudaDeviceSynchronize, or "
         "cudaStreamSynchronize of the kernel's stream). An H200 under Linux "
         "(concurrentManagedAccess = 1) would allow it.\n";
}

void protect_all(State& s) {
  std::size_t n = 0;
  for (const auto& [base, m] : s.live) {
    if (m.flags != cudaMemAttachGlobal || n == kMaxRanges) continue;
    ranges[n].begin = base;
    ranges[n].end = base + m.page_bytes;
    ranges[n].what = range_text(s, base, m);
    ++n;
  }
  range_count.store(n, std::memory_order_release);
  for (std::size_t i = 0; i < n; ++i) {
    mprotect(reinterpret_cast<void*>(ranges[i].begin), ranges[i].end - ranges[i].begin, PROT_NONE);
  }
  s.protected_now = true;
}

void unprotect_all(State& s) {
  const std::size_t n = range_count.exchange(0, std::memory_order_acq_rel);
  for (std::size_t i = 0; i < n; ++i) {
    mprotect(reinterpret_cast<void*>(ranges[i].begin), ranges[i].end - ranges[i].begin,
             PROT_READ | PROT_WRITE);
  }
  s.protected_now = false;
}

// Protected exactly while some kernel is outstanding and no device work runs.
void update(State& s) {
  bool busy = false;
  for (bool b : s.busy) busy = busy || b;
  const bool want = busy && s.executing == 0;
  if (want && !s.protected_now) protect_all(s);
  if (!want && s.protected_now) unprotect_all(s);
}

void rebuild(State& s) {
  if (!s.protected_now) return;
  unprotect_all(s);
  update(s);
}

cudaError_t fail(cudaError_t e) { return set_last_error(e); }

// The managed allocation holding [ptr, ptr + bytes), or nullptr.
const Allocation* managed_range(const void* ptr, std::size_t bytes) {
  const Allocation* a = bytes ? find_live(ptr, bytes) : nullptr;
  return a && a->managed_flags ? a : nullptr;
}

}  // namespace

void managed_kernel_launched(int device, const void* kernel) {
  if (!any_managed.load(std::memory_order_acquire)) return;
  std::string name = kernel_name(kernel);
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.busy[device] = true;
  s.kernel[device] = std::move(name);
  rebuild(s);  // the messages name the kernel
  update(s);
}

void device_work_begins() {
  if (!any_managed.load(std::memory_order_acquire)) return;
  State& s = state();
  std::lock_guard lock(s.mutex);
  ++s.executing;
  update(s);
}

void device_work_ends() {
  if (!any_managed.load(std::memory_order_acquire)) return;
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (s.executing > 0) --s.executing;
  update(s);
}

void host_synchronised(int device, bool all_of_device) {
  if (device < 0) device = current_device();
  flush_device_output(device);
  if (!any_managed.load(std::memory_order_acquire)) return;
  const bool idle = all_of_device || !device_has_queued_work(device);
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (idle) s.busy[device] = false;
  update(s);
}

void forget_managed(const void* ptr) {
  if (!any_managed.load(std::memory_order_acquire)) return;
  State& s = state();
  std::lock_guard lock(s.mutex);
  const bool was_protected = s.protected_now;
  if (was_protected) unprotect_all(s);
  s.live.erase(reinterpret_cast<std::uintptr_t>(ptr));
  if (was_protected) update(s);
}

}  // namespace detail

cudaError_t cudaMallocManaged(void** ptr, std::size_t bytes, unsigned int flags) {
  using namespace detail;
  if (cudaError_t e = sticky_error(); e != cudaSuccess) return fail(e);
  if (!ptr || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)) {
    return fail(cudaErrorInvalidValue);
  }
  if (bytes == 0) {  // as the H100 answered (2026-12-06): no memory, no error
    *ptr = nullptr;
    return cudaSuccess;
  }
  Allocation* a = allocate_page_aligned(bytes);
  if (!a) {
    *ptr = nullptr;
    return fail(cudaErrorMemoryAllocation);
  }
  a->managed_flags = flags;
  // Host writes are not seen, so every byte counts as written: a kernel's
  // read of managed memory is never an uninitialised read.
  a->mark_initialised(a->base, bytes);
  install_handler();
  State& s = state();
  {
    std::lock_guard lock(s.mutex);
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    s.live[a->base] = Managed{bytes, (bytes + page - 1) / page * page, flags, a->device};
    any_managed.store(true, std::memory_order_release);
    rebuild(s);
  }
  *ptr = reinterpret_cast<void*>(a->base);
  return cudaSuccess;
}

namespace {

cudaError_t check_location(cudaMemLocation location) {
  switch (location.type) {
    case cudaMemLocationTypeDevice:
      return detail::is_device(location.id) ? cudaSuccess : cudaErrorInvalidDevice;
    case cudaMemLocationTypeHost:
    case cudaMemLocationTypeHostNumaCurrent:
      return cudaSuccess;
    case cudaMemLocationTypeHostNuma:
      return location.id == 0 ? cudaSuccess : cudaErrorInvalidValue;  // one host node
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t cudaMemPrefetchAsync(const void* ptr, std::size_t bytes, cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream) {
  using namespace detail;
  if (cudaError_t e = sticky_error(); e != cudaSuccess) return fail(e);
  if (!is_valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  if (flags != 0 || !managed_range(ptr, bytes)) return fail(cudaErrorInvalidValue);
  if (cudaError_t e = check_location(location); e != cudaSuccess) return fail(e);
  if (runs_at_once(stream)) return cudaSuccess;  // one memory: nothing moves
  QueuedOperation op;
  op.stream = stream;
  op.what = "cudaMemPrefetchAsync " + std::to_string(bytes) + " bytes to " +
            (location.type == cudaMemLocationTypeDevice ? "device " + std::to_string(location.id)
                                                        : std::string("the host"));
  op.call_site = SiteRef::at_pc(__builtin_return_address(0));
  op.modelled_us = kCopyOverheadUs + static_cast<double>(bytes) / kPinnedBytesPerUs;
  op.run = [](OperationAccesses&) {};  // a migration changes no byte
  enqueue(std::move(op), false);
  return cudaSuccess;
}

cudaError_t cudaMemAdvise(const void* ptr, std::size_t bytes, cudaMemoryAdvise advice,
                          cudaMemLocation location) {
  using namespace detail;
  if (cudaError_t e = sticky_error(); e != cudaSuccess) return fail(e);
  if (!managed_range(ptr, bytes)) return fail(cudaErrorInvalidValue);
  switch (advice) {
    case cudaMemAdviseSetReadMostly:
    case cudaMemAdviseUnsetReadMostly:
    case cudaMemAdviseUnsetPreferredLocation:
      return cudaSuccess;  // the location is ignored
    case cudaMemAdviseSetPreferredLocation:
    case cudaMemAdviseSetAccessedBy:
    case cudaMemAdviseUnsetAccessedBy:
      // A prefetch to a device that does not exist is cudaErrorInvalidDevice,
      // advice naming one cudaErrorInvalidValue (both as the H100 answered,
      // 2026-12-06).
      if (check_location(location) != cudaSuccess) return fail(cudaErrorInvalidValue);
      return cudaSuccess;
    default:
      return fail(cudaErrorInvalidValue);
  }
}

}  // namespace cudalab::emu
