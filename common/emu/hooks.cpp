// The entry points GCC's thread-sanitizer instrumentation calls
// (-fsanitize=thread on an emulator translation unit, see
// cmake/CudalabEmu.cmake): every load, store and atomic that the optimised
// kernel code still makes arrives here with its address, and the return
// address of the call is its site. libtsan is never linked; this library
// itself is compiled without the instrumentation.
//
// The fast path, in the order the tests run:
//   checks and recording off, aligned for its size    -> nothing more (the hook
//                                                        itself: a test, a return)
//   not a CUDA thread (host code, other OS threads)   -> nothing to see
//   a plain access where this site's allocation was   -> a checked global access
//     (the per-site cache)                               (checked_global_access)
//   the thread's own fiber stack (escaping locals)    -> nothing to see
//   the block's shared-memory arena                   -> a shared access
//   an allocation this worker hit last                -> a global access
//   misaligned for its size                           -> report, stop the block
// and otherwise the slow path: the allocation registry (red zones and freed
// memory give out-of-bounds and use-after-free reports), emulator state that
// kernel code reads legitimately (its ThreadState and BlockInfo, the launch's
// parameter block), the program's read-only data (constant memory) and
// writable data (`__device__` variables), and anything else is an invalid
// address. A faulting access never happens: the
// compiled load or store runs right after the hook returns, so the hook stops
// the block instead of returning, as the GPU stops the kernel.
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <sstream>
#include <vector>

#include "access_checks.hpp"
#include "block_run.hpp"
#include "cluster_model.hpp"
#include "mbarrier_model.hpp"

namespace cudalab::emu::detail {

namespace {

bool inside(std::uintptr_t a, std::size_t bytes, const void* low, std::size_t size) {
  const auto l = reinterpret_cast<std::uintptr_t>(low);
  return a - l < size && a - l + bytes <= size;
}

// The loaded segments of the program and its libraries. Kernel code reads
// the read-only ones as it reads constant memory on a GPU (string literals,
// `static const` tables), and reads and writes the writable ones as
// `__device__` variables (which the shim leaves ordinary globals). Neither is
// traced or checked. Collected on first need and again when an address is
// not found (a library may have been loaded since).
class ProgramSegments {
 public:
  enum class Kind { none, read_only, writable };

  Kind kind_of(std::uintptr_t a, std::size_t bytes) {
    std::lock_guard lock(mutex_);
    Kind k = find(a, bytes);
    if (k != Kind::none) return k;
    collect();
    return find(a, bytes);
  }

 private:
  struct Segment {
    std::uintptr_t low, high;
    bool writable;
  };
  Kind find(std::uintptr_t a, std::size_t bytes) const {
    for (const Segment& s : segments_) {
      if (a >= s.low && a + bytes <= s.high) return s.writable ? Kind::writable : Kind::read_only;
    }
    return Kind::none;
  }
  void collect() {
    segments_.clear();
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* self) {
          auto& segments = static_cast<ProgramSegments*>(self)->segments_;
          for (int i = 0; i < info->dlpi_phnum; ++i) {
            const ElfW(Phdr)& h = info->dlpi_phdr[i];
            if (h.p_type != PT_LOAD) continue;
            const std::uintptr_t low = info->dlpi_addr + h.p_vaddr;
            segments.push_back({low, low + h.p_memsz, (h.p_flags & PF_W) != 0});
          }
          return 0;
        },
        this);
  }
  std::mutex mutex_;
  std::vector<Segment> segments_;
};

ProgramSegments& program_segments() {
  static ProgramSegments segments;
  return segments;
}

// Whether [a, a + bytes) lies in the calling OS thread's thread-local storage:
// where a `__shared__` variable of a file the source rewrite never saw lives
// (the shim makes it a `static thread_local`, one per worker, not per block).
bool in_thread_local_storage(std::uintptr_t a, std::size_t bytes) {
  struct Query {
    std::uintptr_t a;
    std::size_t bytes;
    bool found = false;
  } query{a, bytes};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* context) {
        auto& q = *static_cast<Query*>(context);
        if (!info->dlpi_tls_data) return 0;  // the module has none, or not in this thread yet
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& h = info->dlpi_phdr[i];
          if (h.p_type == PT_TLS && inside(q.a, q.bytes, info->dlpi_tls_data, h.p_memsz)) {
            q.found = true;
            return 1;
          }
        }
        return 0;
      },
      &query);
  return query.found;
}

// An instrumented access to such a variable: the emulator can neither check
// nor trace it as shared memory, so the block stops with a report that says
// why instead of the bare invalid address it would otherwise be.
[[noreturn]] void report_unrewritten_shared(BlockRun& run, std::uintptr_t a, std::size_t bytes,
                                            unsigned flags, SiteRef site) {
  const CheckingAnAccess scope;
  Report r;
  r.kind = ReportKind::invalid_pointer;
  r.kernel = run.launch->name;
  r.where = thread_id_of(run.info, current_thread->linear);
  r.address = a;
  r.access_bytes = bytes;
  r.is_write = flags & kWrite;
  std::ostringstream what;
  what << "Invalid " << ((flags & kWrite) ? "write" : "read") << " of " << bytes << " bytes at "
       << hex(a)
       << ": a __shared__ variable declared in a file the emulator build did not rewrite "
          "(tools/emu_rewrite.py), so it is a per-host-thread static thread_local outside the "
          "block's shared memory, which the emulator can neither check nor trace; put the file "
          "in the lab's folder (every file there is rewritten) or pass it to cudalab_emu_rewrite "
          "(cmake/CudalabEmuRewrite.cmake)";
  r.message = what.str();
  run.launch->report(std::move(r), cudaErrorIllegalAddress, site);
  run.abort_block();
}

// Out-of-bounds index into the arena (outside every declaration's bytes and
// the dynamic part), an uninitialised read, then the common checks.
[[gnu::noinline]] void shared_access(BlockRun& run, std::uintptr_t a, std::size_t bytes,
                                     std::size_t alignment, unsigned flags, SiteRef site) {
  const CheckingAnAccess scope;
  // Peers' multicast copies into this block are in flight from here on.
  if (run.cluster) [[unlikely]]
    take_posted_copies(run);
  const std::size_t offset = a - run.shared_low;
  const LaunchState& launch = *run.launch;
  // Inside what the launch placed: a static declaration (or the padding
  // between two) or the dynamic part.
  const std::size_t placed = launch.shared_arena_end.load(std::memory_order_acquire);
  const std::size_t dynamic = launch.dynamic_shared_offset.load(std::memory_order_relaxed);
  const Checks& checks = launch.options.checks;
  if (offset + bytes > placed && checks.bounds && !(a & (alignment - 1))) {
    Report r;
    r.kind = ReportKind::out_of_bounds;
    r.kernel = launch.name;
    r.where = thread_id_of(run.info, current_thread->linear);
    r.address = a;
    r.access_bytes = bytes;
    r.is_write = flags & kWrite;
    std::ostringstream what;
    what << "Out-of-bounds shared memory " << ((flags & kWrite) ? "write" : "read") << " of "
         << bytes << " bytes at " << hex(a) << ": offset " << offset
         << " of the block's shared memory, which holds "
         << launch.static_shared_bytes.load(std::memory_order_relaxed)
         << " bytes of __shared__ variables and " << launch.shared_bytes
         << " bytes of dynamic shared memory";
    if (dynamic != LaunchState::kDynamicNotPlaced && offset >= dynamic) {
      what << " (" << offset - dynamic << " bytes into the dynamic part, which starts at offset "
           << dynamic << ")";
    }
    r.message = what.str();
    run.launch->report(std::move(r), cudaErrorIllegalAddress, site);
    run.abort_block();
  }
  if (checks.uninitialized && (flags & kRead) && !(flags & kAtomic) && !(a & (alignment - 1))) {
    for (std::size_t i = 0; i < bytes; ++i) {
      if (run.shared_written[offset + i]) continue;
      Report r;
      r.kind = ReportKind::uninitialized_read;
      r.kernel = launch.name;
      r.where = thread_id_of(run.info, current_thread->linear);
      r.address = a;
      r.access_bytes = bytes;
      std::ostringstream what;
      what << "Uninitialised read of " << bytes << " bytes of shared memory at " << hex(a)
           << " (offset " << offset
           << " of the block's shared memory): no thread of this block wrote it; shared memory "
              "starts with unspecified contents in every block";
      r.message = what.str();
      run.launch->report(std::move(r), cudaSuccess, site);
      break;
    }
  }
  if (run.async_copies_in_flight != 0 && run.check_races) [[unlikely]] {
    check_async_copy_pending(run, a, bytes, flags, site);
  }
  if (run.cluster && run.check_races) [[unlikely]] {
    cluster_own_shared_access(run, a, bytes, flags, site);
  }
  if (flags & kWrite) std::memset(run.shared_written + offset, 1, bytes);
  on_access_at(shared_space(), reinterpret_cast<const void*>(a), bytes, alignment, flags, site);
}

[[gnu::noinline]] void slow_access(const void* address, std::size_t bytes, std::size_t alignment,
                                   unsigned flags, const void* pc) {
  if (checking_an_access) return;  // the emulator's own access, while it checks one
  ThreadState* t = current_thread;
  BlockRun& run = *t->run;
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  const SiteRef site = SiteRef::at_pc(pc);
  // Emulator state that kernel code may read (shim code compiled without
  // the asm loads of thread_state.hpp, the parameters of the launch).
  if (inside(a, bytes, &current_thread, sizeof current_thread) ||
      inside(a, bytes, run.threads.data(), run.threads.size() * sizeof(ThreadState)) ||
      inside(a, bytes, &run.info, sizeof run.info) ||
      inside(a, bytes, run.launch->context, run.launch->context_bytes)) {
    return;
  }
  // A peer block's shared memory (distributed shared memory, cluster.cpp).
  if (run.cluster && cluster_shared_access(run, a, bytes, flags, site)) return;
  const Allocation* allocation = find_span(address);
  if (!allocation) {
    const ProgramSegments::Kind kind = program_segments().kind_of(a, bytes);
    // Constant data read, or a __device__ variable: neither traced nor checked.
    if (kind == ProgramSegments::Kind::writable) return;
    if (kind == ProgramSegments::Kind::read_only && !(flags & kWrite)) return;
    if (kind == ProgramSegments::Kind::none && access_hooks_on &&
        in_thread_local_storage(a, bytes)) {
      report_unrewritten_shared(run, a, bytes, flags, site);
    }
  }
  if (!access_hooks_on) {
    // Only the alignment check is on.
    if (a & (alignment - 1)) on_access_at(allocation, address, bytes, alignment, flags, site);
    return;
  }
  if (!on_access_at(allocation, address, bytes, alignment, flags, site)) {
    run.abort_block();  // out of bounds, freed, or no device memory: the access must not happen
  }
  // A constant bank stays out of the cache: the cached path would trace its
  // reads as global memory.
  if (allocation && !allocation->is_constant_bank &&
      !allocation->freed.load(std::memory_order_relaxed) && a >= allocation->base &&
      a + bytes <= allocation->base + allocation->bytes) {
    const bool accessible = allocation->device == run.device ||
                            ((run.launch->accessible_devices >> allocation->device) & 1u);
    run.cached[run.cache_next] = {
        allocation->base, allocation->bytes, allocation, allocation->base + allocation->guard_front,
        accessible ? allocation->bytes - allocation->guard_front - allocation->guard_back : 0};
    run.cache_next = (run.cache_next + 1) % BlockRun::kCachedAllocations;
  }
}

// What on_access_at does for an aligned access to a live allocation when
// only a Recording wants it: the initialisation shadow (a later launch with
// checks on reads it) and the trace.
[[gnu::always_inline]] inline void trace_only_access(BlockRun& run, const Allocation& allocation,
                                                     std::uintptr_t a, std::size_t bytes,
                                                     unsigned flags, const void* pc) {
  if ((flags & kWrite) && !allocation.freed.load(std::memory_order_relaxed)) {
    const_cast<Allocation&>(allocation).mark_initialised(a, bytes);
  }
  trace_access(run, a, bytes, flags, SiteRef::at_pc(pc));
}

// What on_access_at does for a plain (not atomic) aligned access to the
// part of a cached allocation the launch may touch (so it has passed the
// bounds check): the same checks in the same order, without the tests that
// cannot apply to such an access; with every check off (a Recording alone)
// what trace_only_access does. Another access to a cached allocation
// (atomics, guard bytes) goes through on_access_at, which reports a fault
// but, as before this path existed, does not stop the block.
[[gnu::always_inline]] inline void checked_global_access(BlockRun& run,
                                                         const Allocation& allocation,
                                                         std::uintptr_t a, std::size_t bytes,
                                                         std::size_t alignment, unsigned flags,
                                                         const void* pc) {
  const auto* address = reinterpret_cast<const void*>(a);
  const SiteRef site = SiteRef::at_pc(pc);
  if (allocation.freed.load(std::memory_order_relaxed)) [[unlikely]] {
    // Freed while the launch runs (cudaFreeAsync on another stream):
    // on_access_at reports the use after free.
    on_access_at(&allocation, address, bytes, alignment, flags, site);
    return;
  }
  auto& live = const_cast<Allocation&>(allocation);
  if ((flags & kRead) && run.check_uninitialized) {
    check_initialised(run, live, address, bytes, flags, site);
  }
  if (flags & kWrite) {
    live.mark_initialised(a, bytes);
    if (run.check_races) check_inter_block_race(run, live, address, bytes, flags, site);
  }
  if (run.check_races) {
    // A plain hook's access is aligned to its size (seen_when_on's test):
    // of 4 bytes or more, it covers whole words.
    const bool whole_words = alignment == bytes && bytes >= 4;
    check_intra_block_race(run, &live, address, bytes, flags, site, whole_words);
  }
  if (run.recording) trace_access(run, a, bytes, flags, site);
}

// What a hook does once a check or a recording is on (or the access is
// misaligned).
[[gnu::always_inline]] inline void seen_when_on(const void* address, std::size_t bytes,
                                                std::size_t alignment, unsigned flags,
                                                const void* pc) {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  const bool aligned = (a & (alignment - 1)) == 0;
  ThreadState* t = current_thread;
  BlockRun* run = t->run;
  if (!run) return;
  // The common case first: a plain access by a site that touched the same
  // allocation before, where the launch may touch (so neither the stack
  // nor shared memory).
  if (aligned && !(flags & kAtomic)) {
    const BlockRun::SiteCacheEntry& s = run->site_cache[BlockRun::site_slot(pc)];
    if (s.pc == pc && a - s.checked_low <= s.checked_bytes - bytes) [[likely]] {
      checked_global_access(*run, *s.allocation, a, bytes, alignment, flags, pc);
      return;
    }
  }
  if (a - t->stack_low < t->stack_bytes) return;
  if (a - run->shared_low < run->shared_bytes) {
    shared_access(*run, a, bytes, alignment, flags, SiteRef::at_pc(pc));
    return;
  }
  if (aligned) {
    if (!(flags & kAtomic)) {
      for (const BlockRun::CachedAllocation& c : run->cached) {
        if (a - c.checked_low < c.checked_bytes) {
          if (a - c.checked_low + bytes <= c.checked_bytes) [[likely]] {
            // Only parts of at least 16 bytes: the site cache's one compare
            // subtracts the access's size from the part's.
            if (c.checked_bytes >= 16) {
              run->site_cache[BlockRun::site_slot(pc)] = {pc, c.checked_low, c.checked_bytes,
                                                          c.allocation};
            }
            checked_global_access(*run, *c.allocation, a, bytes, alignment, flags, pc);
            return;
          }
          break;
        }
      }
    }
    for (const BlockRun::CachedAllocation& c : run->cached) {
      if (a - c.low < c.bytes && a - c.low + bytes <= c.bytes) {
        if (run->trace_only) {
          trace_only_access(*run, *c.allocation, a, bytes, flags, pc);
        } else {
          on_access_at(c.allocation, address, bytes, alignment, flags, SiteRef::at_pc(pc));
        }
        return;
      }
    }
  }
  slow_access(address, bytes, alignment, flags, pc);
}

// Out of line, so that a hook with checks and recording off is a test and a
// return: inlined, the checked path's registers were saved and restored on
// every call, checks on or off. One copy per size and kind of the plain
// hooks, so that their sizes stay constants the checks fold.
template <std::size_t Bytes, unsigned Flags>
[[gnu::noinline]] void seen_fixed_in_general(const void* address, const void* pc) {
  seen_when_on(address, Bytes, Bytes, Flags, pc);
}

// The rest of a cached checked access of whole words (the fast path
// below), from its intra-block race check of the word at `word` on.
template <std::size_t Bytes, unsigned Flags>
[[gnu::noinline]] void finish_from_intra_block_check(BlockRun& run, const Allocation& allocation,
                                                     std::uintptr_t a, std::uintptr_t word,
                                                     const void* pc) {
  const SiteRef site = SiteRef::at_pc(pc);
  const auto* address = reinterpret_cast<const void*>(a);
  for (; word < a + Bytes; word += 4) {
    check_intra_block_race_word(run, &allocation, address, Bytes, Flags, site, word, 0xf);
  }
  if (run.recording) trace_access(run, a, Bytes, Flags, site);
}

// The fast path found another block's write of `word` (tagged `other`):
// the report, then the rest of the access's checks.
template <std::size_t Bytes, unsigned Flags>
[[gnu::cold, gnu::noinline]] void inter_block_race_found(BlockRun& run, Allocation& allocation,
                                                         std::uintptr_t a, std::uintptr_t word,
                                                         std::uint64_t other, const void* pc) {
  report_inter_block_race(run, allocation, reinterpret_cast<const void*>(a), Bytes, Flags,
                          SiteRef::at_pc(pc), word, block_of_tag(other));
  finish_from_intra_block_check<Bytes, Flags>(run, allocation, a, a, pc);
}

[[gnu::noinline]] void trace_out_of_line(BlockRun& run, std::uintptr_t a, std::size_t bytes,
                                         unsigned flags, const void* pc) {
  trace_access(run, a, bytes, flags, SiteRef::at_pc(pc));
}

// The common checked access: a plain access of 4, 8 or 16 bytes, aligned,
// by a site whose allocation the per-site cache holds, whose words' race
// entries are in their pages' windows and that nothing conflicts with. It
// makes what checked_global_access makes, in the same order, and calls
// nothing but in tail position: anything else (a cache miss, a report, a
// window to claim, a writer shadow to make, a trace to append) is handed
// to a function that finishes the access, so that this one needs no stack
// frame (it saves one register; with a call anywhere in it, it saved six
// and made a frame, on every access). A hand-over before a check changed
// anything starts the access afresh (seen_fixed_in_general); marking bytes
// initialised is the one change made before, and doing it twice is the
// same as once.
template <std::size_t Bytes, unsigned Flags>
[[gnu::noinline]] void seen_fixed_when_on(const void* address, const void* pc) {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  BlockRun* run = current_thread->run;
  if (Bytes < 4 || (a & (Bytes - 1)) || !run)
    return seen_fixed_in_general<Bytes, Flags>(address, pc);
  const BlockRun::SiteCacheEntry& s = run->site_cache[BlockRun::site_slot(pc)];
  if (s.pc != pc || a - s.checked_low > s.checked_bytes - Bytes) [[unlikely]] {
    return seen_fixed_in_general<Bytes, Flags>(address, pc);
  }
  auto& allocation = const_cast<Allocation&>(*s.allocation);
  if (allocation.freed.load(std::memory_order_relaxed)) [[unlikely]] {
    return seen_fixed_in_general<Bytes, Flags>(address, pc);
  }
  if ((Flags & kRead) && run->check_uninitialized && !allocation.is_initialised(a, Bytes))
      [[unlikely]] {
    return seen_fixed_in_general<Bytes, Flags>(address, pc);
  }
  if (Flags & kWrite) {
    allocation.mark_initialised(a, Bytes);
    if (run->check_races) {
      std::atomic<std::uint64_t>* shadow = allocation.last_writer.load(std::memory_order_acquire);
      if (!shadow) [[unlikely]]
        return seen_fixed_in_general<Bytes, Flags>(address, pc);
      const std::uint64_t mine = inter_block_tag(*run);
      for (std::uintptr_t word = a; word < a + Bytes; word += 4) {
        if (const std::uint64_t other = other_block_writer(shadow, allocation, word, mine))
            [[unlikely]] {
          return inter_block_race_found<Bytes, Flags>(*run, allocation, a, word, other, pc);
        }
      }
    }
  }
  if (run->check_races) {
    for (std::uintptr_t word = a; word < a + Bytes; word += 4) {
      WordShadow* entry = run->shadow.in_window(word);
      if (!entry) [[unlikely]] {
        return finish_from_intra_block_check<Bytes, Flags>(*run, allocation, a, word, pc);
      }
      if (!check_whole_word_if_unconflicted(*run, *entry, Flags, SiteRef::at_pc(pc))) [[unlikely]] {
        return finish_from_intra_block_check<Bytes, Flags>(*run, allocation, a, word, pc);
      }
    }
  }
  if (run->recording) return trace_out_of_line(*run, a, Bytes, Flags, pc);
}
[[gnu::noinline]] void seen_any_when_on(const void* address, std::size_t bytes,
                                        std::size_t alignment, unsigned flags, const void* pc) {
  seen_when_on(address, bytes, alignment, flags, pc);
}

// Checks and recording off: only a misaligned access matters, wherever it is.
template <std::size_t Bytes, unsigned Flags>
[[gnu::always_inline]] inline void seen_fixed(const void* address, const void* pc) {
  if (!access_hooks_on && !(reinterpret_cast<std::uintptr_t>(address) & (Bytes - 1))) [[likely]] {
    return;
  }
  seen_fixed_when_on<Bytes, Flags>(address, pc);
}
[[gnu::always_inline]] inline void seen(const void* address, std::size_t bytes,
                                        std::size_t alignment, unsigned flags, const void* pc) {
  if (!access_hooks_on && !(reinterpret_cast<std::uintptr_t>(address) & (alignment - 1)))
      [[likely]] {
    return;
  }
  seen_any_when_on(address, bytes, alignment, flags, pc);
}

// A range access (a struct copy, an access the compiler cannot prove
// aligned) in pieces of at most 16 bytes on 16-byte boundaries, as the GPU
// would load it with its widest vector accesses.
void seen_range(const void* address, std::size_t bytes, unsigned flags, const void* pc) {
  auto a = reinterpret_cast<std::uintptr_t>(address);
  const std::uintptr_t end = a + bytes;
  while (a < end) {
    const std::uintptr_t next = std::min<std::uintptr_t>(end, (a + 16) & ~std::uintptr_t{15});
    seen(reinterpret_cast<const void*>(a), next - a, 1, flags, pc);
    a = next;
  }
}

using a8 = std::uint8_t;
using a16 = std::uint16_t;
using a32 = std::uint32_t;
using a64 = std::uint64_t;
__extension__ typedef unsigned __int128 a128;

template <class T>
[[gnu::always_inline]] inline void seen_atomic(const volatile T* address, unsigned flags,
                                               const void* pc) {
  seen(const_cast<const T*>(address), sizeof(T), sizeof(T), flags | kAtomic, pc);
}

// 128-bit atomics without cmpxchg16b (not in the x86-64 baseline): a
// striped lock keeps them atomic with respect to each other.
std::mutex& lock_of(const volatile void* a) {
  static std::mutex locks[64];
  return locks[(reinterpret_cast<std::uintptr_t>(a) >> 4) % 64];
}

}  // namespace

void observe_access(const void* address, std::size_t bytes, unsigned flags, const void* pc) {
  seen(address, bytes, bytes, flags, pc);
}

}  // namespace cudalab::emu::detail

using cudalab::emu::detail::a128;
using cudalab::emu::detail::a16;
using cudalab::emu::detail::a32;
using cudalab::emu::detail::a64;
using cudalab::emu::detail::a8;
using cudalab::emu::detail::kAtomic;
using cudalab::emu::detail::kRead;
using cudalab::emu::detail::kWrite;
using cudalab::emu::detail::seen;
using cudalab::emu::detail::seen_atomic;
using cudalab::emu::detail::seen_fixed;
using cudalab::emu::detail::seen_range;

#define CUDALAB_PC __builtin_return_address(0)

extern "C" {

// ---- plain loads and stores -----------------------------------------------------------
#define CUDALAB_EMU_ACCESS(n)                                                              \
  void __tsan_read##n(void* a) { seen_fixed<n, kRead>(a, CUDALAB_PC); }                    \
  void __tsan_write##n(void* a) { seen_fixed<n, kWrite>(a, CUDALAB_PC); }                  \
  void __tsan_volatile_read##n(void* a) { seen_fixed<n, kRead>(a, CUDALAB_PC); }           \
  void __tsan_volatile_write##n(void* a) { seen_fixed<n, kWrite>(a, CUDALAB_PC); }         \
  void __tsan_unaligned_read##n(void* a) { seen_range(a, n, kRead, CUDALAB_PC); }          \
  void __tsan_unaligned_write##n(void* a) { seen_range(a, n, kWrite, CUDALAB_PC); }        \
  void __tsan_unaligned_volatile_read##n(void* a) { seen_range(a, n, kRead, CUDALAB_PC); } \
  void __tsan_unaligned_volatile_write##n(void* a) { seen_range(a, n, kWrite, CUDALAB_PC); }
CUDALAB_EMU_ACCESS(1)
CUDALAB_EMU_ACCESS(2)
CUDALAB_EMU_ACCESS(4)
CUDALAB_EMU_ACCESS(8)
CUDALAB_EMU_ACCESS(16)
#undef CUDALAB_EMU_ACCESS

void __tsan_read_range(void* a, unsigned long size) { seen_range(a, size, kRead, CUDALAB_PC); }
void __tsan_write_range(void* a, unsigned long size) { seen_range(a, size, kWrite, CUDALAB_PC); }

// ---- what the instrumentation calls besides accesses ---------------------------------
void __tsan_init() {}
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
void __tsan_vptr_update(void** vptr, void*) {
  seen(vptr, sizeof(void*), sizeof(void*), kWrite, CUDALAB_PC);
}
void __tsan_vptr_read(void** vptr) { seen(vptr, sizeof(void*), sizeof(void*), kRead, CUDALAB_PC); }
void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

// One atomic of the device API (device_functions.hpp) on a raw pointer.
void emulated_device_atomic_access(void* address, std::size_t bytes) noexcept {
  seen(address, bytes, bytes, kRead | kWrite | kAtomic, CUDALAB_PC);
}

// ---- atomics: report, then do the operation (sequentially consistent, the
// strongest order, is correct for every order asked for) --------------------------------
#define CUDALAB_EMU_ATOMICS(n)                                                                  \
  a##n __tsan_atomic##n##_load(const volatile a##n* a, int) {                                   \
    seen_atomic(a, kRead, CUDALAB_PC);                                                          \
    return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                                \
  }                                                                                             \
  void __tsan_atomic##n##_store(volatile a##n* a, a##n v, int) {                                \
    seen_atomic(a, kWrite, CUDALAB_PC);                                                         \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                   \
  }                                                                                             \
  a##n __tsan_atomic##n##_exchange(volatile a##n* a, a##n v, int) {                             \
    seen_atomic(a, kRead | kWrite, CUDALAB_PC);                                                 \
    return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                         \
  }                                                                                             \
  a##n __tsan_atomic##n##_fetch_add(volatile a##n* a, a##n v, int) {                            \
    seen_atomic(a, kRead | kWrite, CUDALAB_PC);                                                 \
    return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);                                          \
  }                                                                                             \
  a##n __tsan_atomic##n##_fetch_sub(volatile a##n* a, a##n v, int) {                            \
    seen_atomic(a, kRead | kWrite, CUDALAB_PC);                                                 \
    return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST);                                          \
  }                                                                                             \
  a##n __tsan_atomic##n##_fetch_and(volatile a##n* a, a##n v, int) {                            \
    seen_atomic(a, kRead | kWrite, CUDALAB_PC);                                                 \
    return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST);                                          \
  }                                                                                             \
  a##n __tsan_atomic##n##_fetch_or(volatile a##n* a, a##n v, int) {                             \
    seen_atomic(a, kRead | kWrite, CUDALAB_PC);                                                 \
    return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST);                                           \
  }                                                                                             \
  a##n __tsan_atomic##n##_fetch_xor(volatile a##n* a, a##n v, int) {                            \
    seen_atomic(a, kRead | kWrite, CUDALAB_PC);                                                 \
    return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST);                                          \
  }                                                                                             \
  a##n __tsan_atomic##n##_fetch_nand(volatile a##n* a, a##n v, int) {                           \
    seen_atomic(a, kRead | kWrite, CUDALAB_PC);                                                 \
    return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST);                                         \
  }                                                                                             \
  int __tsan_atomic##n##_compare_exchange_strong(volatile a##n* a, a##n* c, a##n v, int, int) { \
    seen_atomic(a, kRead | kWrite, CUDALAB_PC);                                                 \
    return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);     \
  }                                                                                             \
  int __tsan_atomic##n##_compare_exchange_weak(volatile a##n* a, a##n* c, a##n v, int, int) {   \
    seen_atomic(a, kRead | kWrite, CUDALAB_PC);                                                 \
    return __atomic_compare_exchange_n(a, c, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);      \
  }                                                                                             \
  a##n __tsan_atomic##n##_compare_exchange_val(volatile a##n* a, a##n c, a##n v, int, int) {    \
    seen_atomic(a, kRead | kWrite, CUDALAB_PC);                                                 \
    __atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);           \
    return c;                                                                                   \
  }
CUDALAB_EMU_ATOMICS(8)
CUDALAB_EMU_ATOMICS(16)
CUDALAB_EMU_ATOMICS(32)
CUDALAB_EMU_ATOMICS(64)
#undef CUDALAB_EMU_ATOMICS

// 128 bits: the same operations under a lock.
#define CUDALAB_EMU_LOCKED(flags, ...)                    \
  seen_atomic(a, flags, CUDALAB_PC);                      \
  std::lock_guard lock(cudalab::emu::detail::lock_of(a)); \
  a128& x = *const_cast<a128*>(a);                        \
  __VA_ARGS__
a128 __tsan_atomic128_load(const volatile a128* a, int) { CUDALAB_EMU_LOCKED(kRead, return x;) }
void __tsan_atomic128_store(volatile a128* a, a128 v, int) { CUDALAB_EMU_LOCKED(kWrite, x = v;) }
#define CUDALAB_EMU_RMW128(name, expression)                                      \
  a128 __tsan_atomic128_##name(volatile a128* a, a128 v, int) {                   \
    CUDALAB_EMU_LOCKED(kRead | kWrite, a128 old = x; x = expression; return old;) \
  }
CUDALAB_EMU_RMW128(exchange, v)
CUDALAB_EMU_RMW128(fetch_add, old + v)
CUDALAB_EMU_RMW128(fetch_sub, old - v)
CUDALAB_EMU_RMW128(fetch_and, old& v)
CUDALAB_EMU_RMW128(fetch_or, old | v)
CUDALAB_EMU_RMW128(fetch_xor, old ^ v)
CUDALAB_EMU_RMW128(fetch_nand, ~(old& v))
#undef CUDALAB_EMU_RMW128
int __tsan_atomic128_compare_exchange_strong(volatile a128* a, a128* c, a128 v, int, int) {
  CUDALAB_EMU_LOCKED(
      kRead | kWrite,
      if (x == *c) {
        x = v;
        return 1;
      }* c = x;
      return 0;)
}
int __tsan_atomic128_compare_exchange_weak(volatile a128* a, a128* c, a128 v, int, int) {
  CUDALAB_EMU_LOCKED(
      kRead | kWrite,
      if (x == *c) {
        x = v;
        return 1;
      }* c = x;
      return 0;)
}
a128 __tsan_atomic128_compare_exchange_val(volatile a128* a, a128 c, a128 v, int, int) {
  CUDALAB_EMU_LOCKED(kRead | kWrite, a128 old = x; if (old == c) x = v; return old;)
}
#undef CUDALAB_EMU_LOCKED

}  // extern "C"
