// Internal: one block in execution -- its CUDA threads, the fibers they run
// on, the barrier, the warps' pending collectives and the block's trace.
#pragma once

#include <cstdint>
#include <source_location>
#include <vector>

#include "cudalab/emu/device_functions.hpp"
#include "engine.hpp"
#include "fiber_switch.hpp"
#include "race_shadow.hpp"

namespace cudalab::emu::detail {

// A fiber stack: mmap'ed, a guard page below, touched pages only are committed.
struct Stack {
  void* base = nullptr;  // lowest address (the guard page)
  std::size_t bytes = 0;
  void* top() const { return static_cast<char*>(base) + bytes; }
};

struct Fiber {
  ctx::fcontext_t context = nullptr;
  Stack stack;
  bool finished = false;
};

enum class Waiting : std::uint8_t { no, barrier, warp, coalesce, mbarrier, warpgroup, exited };

// The fibers whose threads may run, first come first run: a ring of one slot
// per thread of the block, so that a push is a store and a pop a load. It
// never holds more: a fiber runs one thread at a time and is queued only
// while that thread is parked, once.
class RunQueue {
 public:
  void reset(unsigned threads) {
    slots_.assign(threads, nullptr);
    head_ = 0;
    count_ = 0;
  }
  bool empty() const { return count_ == 0; }
  void push(Fiber* fiber) {
    if (count_ == slots_.size()) [[unlikely]]
      overflow();
    std::size_t tail = head_ + count_;
    if (tail >= slots_.size()) tail -= slots_.size();
    slots_[tail] = fiber;
    ++count_;
  }
  Fiber* pop() {
    Fiber* fiber = slots_[head_];
    if (++head_ == slots_.size()) head_ = 0;
    --count_;
    return fiber;
  }
  void clear() {
    head_ = 0;
    count_ = 0;
  }

 private:
  [[noreturn]] static void overflow();
  std::vector<Fiber*> slots_;
  std::size_t head_ = 0;
  std::size_t count_ = 0;
};

struct ThreadExtra {
  Fiber* fiber = nullptr;
  Waiting waiting = Waiting::no;
  std::source_location wait_site;
  std::uint64_t result = 0;       // of the barrier or warp collective it waited in
  std::uint64_t modelled_ns = 0;  // its time since the launch started, on the modelled clock
};

struct PendingCollective {
  // Leaves values and arguments unset (a constructor of its own, so that
  // making one does not clear 384 bytes that only arriving lanes write).
  PendingCollective(WarpOp op, unsigned mask, int width, const std::source_location& site)
      : op(op), mask(mask), width(width), site(site) {}

  WarpOp op;
  unsigned mask;  // the lanes it waits for: those named that have not exited
  unsigned arrived = 0;
  int width;
  std::source_location site;
  std::uint64_t values[32];  // of the lanes that arrived
  int arguments[32];
};

// Lanes of one warp waiting in one cooperative_groups::coalesced_threads()
// call (warp_coalesce.cpp): the group they form once no other lane of the
// block can still arrive.
struct PendingCoalesce {
  std::source_location site;
  unsigned arrived = 0;
};

// A collective's mask only ever names lanes that have not exited: exited
// lanes leave the masks of pending collectives (they need not arrive, as on
// the GPU), and a later caller's mask is reduced the same way.
struct WarpState {
  unsigned existing = 0;  // lanes that exist (a last warp may be partial)
  unsigned exited = 0;
  std::uint32_t syncs = 0;  // completed collectives (orders accesses for the race check)
  std::vector<PendingCollective> pending;
  std::vector<PendingCoalesce> coalescing;
};

void fiber_main(ctx::transfer_t t);

class BlockRun {
 public:
  // ---- set per block ----
  LaunchState* launch = nullptr;
  std::uint64_t serial = 0;  // counts the blocks this worker has run (keys per-block caches)
  int device = 0;            // launch->device, where the bounds check reads it on every access
  BlockInfo info;
  unsigned thread_count = 0;
  std::vector<ThreadState> threads;
  std::vector<ThreadExtra> extra;
  std::vector<WarpState> warps;
  void* dynamic_shared = nullptr;

  // ---- shared memory: one arena per block (shared_memory.cpp) ----
  // The static declarations in first-use order, the dynamic part 16-byte
  // aligned after those placed before its first use, any later declaration
  // after it (LaunchState's layout). Instrumented accesses inside it are
  // shared-memory accesses.
  std::uintptr_t shared_low = 0;
  std::uintptr_t shared_bytes = 0;         // the arena's extent (what may ever be placed)
  std::uint8_t* shared_written = nullptr;  // per arena byte: written in this block?
  std::size_t poisoned_end = 0;            // [0, this) was poisoned at block start
  // Parts placed after the block started, already poisoned in it (offsets).
  std::vector<std::uint32_t> poisoned_late;
  std::uint64_t layout_launch = 0;  // launch id the layout cache belongs to
  std::vector<std::pair<const void*, std::uint32_t>> layout_cache;

  // ---- the instrumented path's cache (hooks.cpp): the allocations hit last ----
  // (a kernel reads x and writes y: one entry would miss on every access).
  // Emptied when a launch starts, as cudaFree may run between launches.
  // `checked_*` is the part a kernel of this launch may touch (the
  // allocation less a test's guard bytes; nothing of another device's memory
  // without peer access): an access there has passed the bounds check.
  struct CachedAllocation {
    std::uintptr_t low = 0;
    std::uintptr_t bytes = 0;
    const Allocation* allocation = nullptr;
    std::uintptr_t checked_low = 0;
    std::uintptr_t checked_bytes = 0;
  };
  static constexpr unsigned kCachedAllocations = 4;
  CachedAllocation cached[kCachedAllocations];
  unsigned cache_next = 0;  // the entry to replace next
  std::uint64_t cache_launch = 0;
  // In front of it, per access site (the hook's return address, hashed): the
  // part of the allocation that site touched last that the launch may
  // touch. A site mostly keeps to one array, so this one compare finds a
  // checked access's allocation; emptied with `cached`.
  struct SiteCacheEntry {
    const void* pc = nullptr;
    std::uintptr_t checked_low = 0;
    std::uintptr_t checked_bytes = 0;
    const Allocation* allocation = nullptr;
  };
  static constexpr unsigned kSiteCacheEntries = 64;
  SiteCacheEntry site_cache[kSiteCacheEntries];
  static unsigned site_slot(const void* pc) {
    return static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(pc) >> 2) % kSiteCacheEntries;
  }
  // A Recording with every check off (what the viewer and the trace tests
  // ask for): the hooks record a cached global access themselves instead of
  // going through on_access_at's general path.
  bool trace_only = false;
  // The launch's checks and recording, where every checked access reads them.
  bool check_races = false;
  bool check_uninitialized = false;
  bool recording = false;

  // ---- scheduling ----
  unsigned next_unstarted = 0;
  unsigned exited = 0;
  RunQueue ready;
  std::vector<Fiber*> fibers;  // all fibers made for this block
  Fiber* running = nullptr;
  ctx::fcontext_t scheduler = nullptr;
  bool failed = false;            // a divergent barrier etc.: stop scheduling
  unsigned coalescing_lanes = 0;  // lanes parked in coalesced_threads(), all warps
  // A cluster launch's block (cluster.cpp): its cluster and rank there;
  // nullptr for every other launch's.
  ClusterRun* cluster = nullptr;
  unsigned cluster_rank = 0;
  // Async copies issued and not landed (mbarrier.cpp): while nonzero, shared
  // accesses are checked against their bytes and an idle block lands them.
  unsigned async_copies_in_flight = 0;

  // ---- barrier ----
  unsigned barrier_arrived = 0;
  int barrier_count = 0;
  // What the last barrier to complete returns to its waiters: each reads it
  // when it resumes, before the next barrier can complete without it.
  int barrier_released_count = 0;
  std::source_location barrier_site;
  bool barrier_sites_differ = false;
  std::vector<unsigned> barrier_waiters;

  // ---- checks and trace ----
  // What the inter-block race check tags this block's writes with: the
  // launch's id, and a fresh id after each grid.sync() of a cooperative
  // launch (writes on either side of it are ordered, not a race).
  std::uint64_t race_phase = 0;
  RaceShadow shadow;  // the intra-block race check's, per word touched
  std::vector<RawAccess> trace;
  // While recording: the block's mbarrier and async-copy events (mbarrier.cpp,
  // tma_copies.cpp) with each one's site, named when the block ends, and its
  // bulk tensor copies; record_async_trace empties them at the block's end.
  std::vector<AsyncEvent> async_events;
  std::vector<SiteRef> async_sites;
  std::vector<TmaCopyRecord> tma_copies;

  // Runs every thread of the block to completion (or to a reported deadlock).
  void execute();

  // Called on a fiber: park the current thread until someone makes it ready.
  void park();
  [[gnu::always_inline]] void make_ready(unsigned thread) {
    extra[thread].waiting = Waiting::no;
    ready.push(extra[thread].fiber);
  }
  // The fiber to run next, or nullptr for "back to the scheduler". The
  // common case, a ready fiber, is inline: every park takes this path.
  Fiber* next_fiber() {
    if (!failed && !ready.empty()) [[likely]]
      return ready.pop();
    return next_fiber_otherwise();
  }
  // Called when a fiber or the scheduler is resumed: saves the context of
  // whoever switched to it.
  void resumed(ctx::transfer_t t);

  int barrier(int predicate, const std::source_location& site);
  std::uint64_t collective(WarpOp op, unsigned mask, std::uint64_t value, int argument, int width,
                           const std::source_location& site);
  // cooperative_groups::coalesced_threads(): the lanes of the caller's warp
  // that reach this call together (warp_coalesce.cpp).
  unsigned coalesce(const std::source_location& site);

  void report(ReportKind kind, unsigned thread, std::string message,
              const std::source_location* site, cudaError_t fault);

  // Called on a fiber whose thread faulted (a misaligned access): stops the
  // block, as a GPU stops the kernel, and never returns. Threads waiting at a
  // barrier or in a collective are not resumed, so nothing waits for the
  // faulted thread and no divergent-barrier report follows.
  [[noreturn]] void abort_block();

 private:
  friend void fiber_main(ctx::transfer_t);
  void fiber_loop(Fiber* self);
  Fiber* next_fiber_otherwise();
  void report_different_barriers(unsigned thread, const std::source_location& site);
  void thread_exited(unsigned thread);
  void report_deadlock();
  // Why lanes wait in a collective that cannot complete: which lanes of its
  // mask never arrived, and where they are instead (warp.cpp).
  std::string stuck_collective(unsigned waiting_thread) const;
  void complete(WarpState& warp, PendingCollective& pending);
  void report_bad_collective(WarpOp op, unsigned& mask, int& width,
                             const std::source_location& site);
  void report_different_collectives(WarpOp op, const PendingCollective& pending,
                                    const std::source_location& site);
  // Called when nothing of the block can run: every pending
  // coalesced_threads() group forms from the lanes waiting in it.
  void resolve_coalescing();
};

// "(0,0,0), (1,0,0), (2,0,0), (3,0,0) and 5 more": threads of `run` by linear index.
std::string thread_list(const BlockRun& run, const std::vector<unsigned>& ids);

// The per-OS-thread engine state (engine.cpp).
BlockRun& this_worker_block();

}  // namespace cudalab::emu::detail
