// The per-access path: bounds and use-after-free, uninitialised reads, races
// within a block's barrier interval and between blocks, and the trace.
//
// Only reached when detail::access_hooks_on is set (a check or a recording is
// on); with everything off a traced access is a plain load or store.
#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "access_checks.hpp"
#include "block_run.hpp"

namespace cudalab::emu::detail {

std::string hex(std::uintptr_t v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%" PRIxPTR, v);
  return buffer;
}

bool access_hooks_on = true;

namespace {

Allocation& shared_sentinel() {
  static Allocation a;
  return a;
}

const char* kind_word(unsigned flags) {
  if (flags & kAtomic) return "atomic";
  return (flags & kWrite) ? "write" : "read";
}

// Fills in what every access report says: kernel, thread, address, allocation.
Report access_report(BlockRun& run, ReportKind kind, const Allocation* a, const void* address,
                     std::size_t bytes, unsigned flags) {
  Report r;
  r.kind = kind;
  r.kernel = run.launch->name;
  r.where = thread_id_of(run.info, current_thread->linear);
  r.address = reinterpret_cast<std::uintptr_t>(address);
  r.access_bytes = bytes;
  r.is_write = (flags & kWrite) != 0;
  if (a && !a->is_shared_space) {
    r.allocation_base = a->base;
    r.allocation_bytes = a->bytes;
  }
  return r;  // LaunchState::report fills in the file and line of the site
}

// A kernel touched memory of a device it has no peer access to.
[[gnu::cold, gnu::noinline]] void report_peer_access(BlockRun& run, const Allocation& a,
                                                     const void* address, std::size_t bytes,
                                                     unsigned flags, SiteRef site) {
  const auto p = reinterpret_cast<std::uintptr_t>(address);
  const int mine = run.launch->device;
  std::ostringstream what;
  what << "Peer access not enabled: " << kind_word(flags) << " of " << bytes << " bytes at "
       << hex(p) << ", offset " << p - a.base << " of allocation " << hex(a.base) << " (" << a.bytes
       << " bytes) on device " << a.device << ", by a kernel on device " << mine
       << ": peer access from device " << mine << " to device " << a.device
       << " is not enabled (cudaSetDevice(" << mine << "); cudaDeviceEnablePeerAccess(" << a.device
       << ", 0) enables it)";
  Report r = access_report(run, ReportKind::peer_access, &a, address, bytes, flags);
  r.message = what.str();
  run.launch->report(std::move(r), cudaErrorIllegalAddress, site);
}

// Why an access outside the memory it may touch is one: out of bounds, use
// after free, no allocation at all. Reports it; the access must not happen.
[[gnu::cold, gnu::noinline]] void report_bad_access(BlockRun& run, const Allocation* a,
                                                    const void* address, std::size_t bytes,
                                                    unsigned flags, SiteRef site) {
  const auto p = reinterpret_cast<std::uintptr_t>(address);
  std::ostringstream what;
  ReportKind kind;
  if (!a) {
    kind = ReportKind::invalid_pointer;
    what << "Invalid " << kind_word(flags) << " of " << bytes << " bytes at " << hex(p)
         << ": the pointer is not inside any cudaMalloc allocation (a host pointer?)";
  } else if (a->freed.load(std::memory_order_relaxed)) {
    kind = ReportKind::use_after_free;
    what << "Use after free: " << kind_word(flags) << " of " << bytes << " bytes at " << hex(p)
         << ", offset " << static_cast<long long>(p - a->base) << " of allocation " << hex(a->base)
         << " (" << a->bytes << " bytes), which was freed (cudaFree or cudaFreeAsync)";
  } else if (p >= a->base && p + bytes <= a->base + a->bytes) {
    kind = ReportKind::out_of_bounds;
    const std::uintptr_t first = a->base + a->guard_front;
    const std::uintptr_t end = a->base + a->bytes - a->guard_back;
    what << "Out-of-bounds " << kind_word(flags) << " of " << bytes << " bytes at " << hex(p)
         << ": ";
    if (p < first) {
      what << first - p << " bytes before";
    } else {
      what << p + bytes - end << " bytes after the end of";
    }
    what << " the " << end - first << " bytes at " << hex(first)
         << " that the kernel was given (the test's guard elements around them, in allocation "
         << hex(a->base) << ", belong to no tensor)";
  } else {
    kind = ReportKind::out_of_bounds;
    what << "Out-of-bounds " << kind_word(flags) << " of " << bytes << " bytes at " << hex(p)
         << ": ";
    if (p < a->base) {
      what << a->base - p << " bytes before";
    } else {
      what << p + bytes - (a->base + a->bytes) << " bytes after the end of";
    }
    what << " allocation " << hex(a->base) << " (" << a->bytes << " bytes, element index "
         << static_cast<long long>(
                (static_cast<std::intptr_t>(p) - static_cast<std::intptr_t>(a->base)) /
                static_cast<std::intptr_t>(bytes ? bytes : 1))
         << ")";
  }
  Report r = access_report(run, kind, a, address, bytes, flags);
  r.message = what.str();
  run.launch->report(std::move(r), cudaErrorIllegalAddress, site);
}

// Inline, and without the messages (report_* above and below): this runs on
// every checked access, and a function that builds a message in an
// ostringstream pays for its large stack frame even when it builds none.
[[gnu::always_inline]] inline bool check_bounds(BlockRun& run, const Allocation* a,
                                                const void* address, std::size_t bytes,
                                                unsigned flags, SiteRef site) {
  const auto p = reinterpret_cast<std::uintptr_t>(address);
  if (a && !a->freed.load(std::memory_order_relaxed) && p >= a->base + a->guard_front &&
      p + bytes <= a->base + a->bytes - a->guard_back) [[likely]] {
    if (a->device == run.device || ((run.launch->accessible_devices >> a->device) & 1u))
        [[likely]] {
      return true;
    }
    report_peer_access(run, *a, address, bytes, flags, site);
    return false;
  }
  report_bad_access(run, a, address, bytes, flags, site);
  return false;
}

// Always on: a GPU faults on a misaligned access whatever the checks say.
[[gnu::cold, gnu::noinline]] void report_misaligned(BlockRun& run, const Allocation* a,
                                                    const void* address, std::size_t bytes,
                                                    std::size_t alignment, unsigned flags,
                                                    SiteRef site) {
  const auto p = reinterpret_cast<std::uintptr_t>(address);
  const bool shared = flags & kShared;
  Report r = access_report(run, ReportKind::misaligned_address, a, address, bytes, flags);
  std::ostringstream what;
  what << "Misaligned address: " << kind_word(flags) << " of " << bytes << " bytes at " << hex(p)
       << " in " << (shared ? "shared" : "global") << " memory, " << p % alignment
       << " bytes past a " << alignment << "-byte boundary";
  if (a && !shared) {
    what << " (offset " << static_cast<long long>(p - a->base) << " of allocation " << hex(a->base)
         << ")";
  }
  what << ". An access of this type must start at a multiple of " << alignment
       << " bytes; the GPU stops the kernel with cudaErrorMisalignedAddress";
  r.message = what.str();
  run.launch->report(std::move(r), cudaErrorMisalignedAddress, site);
}

}  // namespace

// The reports of access_checks.hpp's checks, out of the per-access path.

void report_uninitialised(BlockRun& run, const Allocation& a, const void* address,
                          std::size_t bytes, unsigned flags, SiteRef site) {
  const CheckingAnAccess scope;
  const auto p = reinterpret_cast<std::uintptr_t>(address);
  Report r = access_report(run, ReportKind::uninitialized_read, &a, address, bytes, flags);
  std::ostringstream what;
  what << "Uninitialised read of " << bytes << " bytes at " << hex(p) << " (offset " << p - a.base
       << " of allocation " << hex(a.base)
       << "): nothing wrote this memory since cudaMalloc (no kernel store, cudaMemset or "
          "cudaMemcpy)";
  r.message = what.str();
  run.launch->report(std::move(r), cudaSuccess, site);
}

void report_intra_block_race(BlockRun& run, const Allocation* a, const void* address,
                             std::size_t bytes, unsigned flags, SiteRef site, std::uintptr_t word,
                             const char* conflict, const WordShadow::Access& other) {
  const CheckingAnAccess scope;
  Report r = access_report(run, ReportKind::intra_block_race, a, address, bytes, flags);
  std::ostringstream what;
  const uint3 t = run.threads[other.thread - 1u].thread_idx;
  what << "Race (" << conflict << ") on " << ((flags & kShared) ? "shared" : "global") << " memory "
       << hex(word) << ": this " << kind_word(flags) << " at " << format_site(site)
       << " and thread (" << t.x << "," << t.y << "," << t.z << ")'s access at "
       << format_site(other.site)
       << " fall in the same barrier interval (a __syncthreads() is missing between them)";
  r.message = what.str();
  run.launch->report(std::move(r), cudaSuccess, site);
}

void report_inter_block_race(BlockRun& run, const Allocation& a, const void* address,
                             std::size_t bytes, unsigned flags, SiteRef site, std::uintptr_t word,
                             std::uint64_t other_block) {
  const CheckingAnAccess scope;
  Report r = access_report(run, ReportKind::inter_block_race, &a, address, bytes, flags);
  const dim3 g = run.info.grid_dim;
  std::ostringstream what;
  what << "Race between blocks: block (" << other_block % g.x << "," << other_block / g.x % g.y
       << "," << other_block / (std::uint64_t{g.x} * g.y) << ") and this block both wrote "
       << hex(word) << " (offset " << word - a.base << " of allocation " << hex(a.base)
       << ") without atomics; the result depends on which block runs last";
  r.message = what.str();
  run.launch->report(std::move(r), cudaSuccess, site);
}

bool on_access_at(const Allocation* allocation, const void* address, std::size_t bytes,
                  std::size_t alignment, unsigned flags, SiteRef site) noexcept {
  BlockRun* run = current_thread->run;
  if (!run) return true;  // not a CUDA thread: nothing to check
  const CheckingAnAccess scope;
  const bool shared = allocation && allocation->is_shared_space;
  if (shared) flags |= kShared;
  if (misaligned(address, alignment)) [[unlikely]] {
    report_misaligned(*run, allocation, address, bytes, alignment, flags, site);
    run->abort_block();  // as the GPU aborts the kernel; does not return
  }
  if (allocation && allocation->is_constant_bank) [[unlikely]] {
    return constant_access(*run, *allocation, address, bytes, flags, site);
  }
  const Checks& checks = run->launch->options.checks;
  if (!shared && checks.bounds && !check_bounds(*run, allocation, address, bytes, flags, site)) {
    // Still an access for the race checker between streams: a read of a
    // block that another stream freed is the very hazard it names.
    if (run->launch->recording)
      trace_access(*run, reinterpret_cast<std::uintptr_t>(address), bytes, flags, site);
    return false;
  }
  if (!shared && allocation && !allocation->freed.load(std::memory_order_relaxed)) {
    auto& a = const_cast<Allocation&>(*allocation);
    if (checks.uninitialized && (flags & kRead) && !(flags & kAtomic)) {
      check_initialised(*run, a, address, bytes, flags, site);
    }
    if (flags & kWrite) a.mark_initialised(reinterpret_cast<std::uintptr_t>(address), bytes);
    if (checks.races && (flags & kWrite) && !(flags & kAtomic)) {
      check_inter_block_race(*run, a, address, bytes, flags, site);
    }
  }
  if (checks.races && !(flags & kAtomic)) {
    check_intra_block_race(*run, allocation, address, bytes, flags, site);
  }
  if (run->launch->recording)
    trace_access(*run, reinterpret_cast<std::uintptr_t>(address), bytes, flags, site);
  return true;
}

const Allocation* shared_space() noexcept {
  Allocation& a = shared_sentinel();
  a.is_shared_space = true;
  return &a;
}

}  // namespace cudalab::emu::detail

namespace cudalab::emu {

std::atomic<std::uint64_t>* Allocation::make_writer_shadow() {
  std::atomic<std::uint64_t>* s = nullptr;
  auto* made = new std::atomic<std::uint64_t>[(bytes + 3) / 4]();
  if (last_writer.compare_exchange_strong(s, made, std::memory_order_acq_rel)) return made;
  delete[] made;
  return s;
}

}  // namespace cudalab::emu
