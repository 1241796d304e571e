// Running a launch: blocks spread over a pool of host worker threads; within
// a block each CUDA thread runs on a fiber (fiber_switch.hpp: Boost.Context's fcontext, the
// project's own switch, or ucontext).
//
// Why it is cheap when nothing synchronises: a fiber does not belong to one
// CUDA thread. It runs thread after thread of its block until one of them
// blocks (a barrier or a warp collective); only then does the scheduler start
// another fiber for the threads not yet started. A barrier-free kernel thus
// runs a whole block on one fiber, one plain function call per CUDA thread.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <thread>

#include "block_run.hpp"
#include "cluster_model.hpp"
#include "cudalab/emu/launch.hpp"
#include "cudalab/emu/running_threads.hpp"
#include "cudalab/emu/runtime.hpp"
#include "grid_sync.hpp"
#include "mbarrier_model.hpp"
#include "streams.hpp"
#include "warpgroup_mma.hpp"

namespace cudalab::emu::detail {

namespace {
// What threadIdx & co read in host code: index 0 everywhere, no block run.
// Constant-initialised, so it is valid before any dynamic initialiser runs.
constinit BlockInfo host_placeholder_block{};
constinit ThreadState host_placeholder_thread{{}, &host_placeholder_block, 0, 0, 0, nullptr};
}  // namespace

__thread ThreadState* current_thread = &host_placeholder_thread;
__thread bool checking_an_access = false;

namespace {

constexpr std::size_t kStackBytes = 256 * 1024;

// Stacks are reused from block to block (and launch to launch) by their worker.
class StackPool {
 public:
  ~StackPool() {
    for (Stack& s : free_) munmap(s.base, s.bytes);
  }
  Stack take() {
    if (!free_.empty()) {
      Stack s = free_.back();
      free_.pop_back();
      return s;
    }
    std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    void* base = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) throw std::bad_alloc();
    mprotect(base, page, PROT_NONE);  // overflow faults instead of corrupting
    return {base, kStackBytes};
  }
  void give_back(Stack s) { free_.push_back(s); }

 private:
  std::vector<Stack> free_;
};

struct Worker {
  StackPool stacks;
  // On the heap, not in the thread-local Worker: the library has an
  // initial-exec thread-local (checking_an_access), so a shared object that
  // links it (a lab's PyTorch op, loaded with dlopen) must find room for
  // all of its thread-locals in glibc's small static-TLS reserve, and the
  // checked path's caches in BlockRun take kilobytes.
  std::unique_ptr<BlockRun> run = std::make_unique<BlockRun>();
  std::vector<Fiber*> spare_fibers;
  std::vector<unsigned char> shared_arena;
  std::vector<std::uint8_t> shared_written;

  ~Worker() {
    for (Fiber* f : spare_fibers) {
      stacks.give_back(f->stack);
      delete f;
    }
  }
};

thread_local Worker worker;

Fiber* new_fiber() {
  // One look-up of the thread-local (each use of `worker` would call its
  // initialisation check).
  Worker& here = worker;
  Fiber* f;
  if (!here.spare_fibers.empty()) {
    f = here.spare_fibers.back();
    here.spare_fibers.pop_back();
  } else {
    f = new Fiber;
    f->stack = here.stacks.take();
  }
  f->finished = false;
  f->context = ctx::make_fcontext(f->stack.top(), f->stack.bytes - 4096, &fiber_main);
  return f;
}

}  // namespace

BlockRun& this_worker_block() { return *worker.run; }

void fiber_main(ctx::transfer_t t) {
  BlockRun* run = worker.run.get();  // fibers never leave the worker that made them
  run->resumed(t);
  Fiber* self = run->running;
  run->fiber_loop(self);
  self->finished = true;
  Fiber* next = run->next_fiber();
  run->running = next;
  ctx::jump_fcontext(next ? next->context : run->scheduler, self);  // never resumed
}

void BlockRun::fiber_loop(Fiber* self) {
  while (next_unstarted < thread_count && !failed) {
    unsigned t = next_unstarted++;
    extra[t].fiber = self;
    threads[t].stack_low = reinterpret_cast<std::uintptr_t>(self->stack.base);
    threads[t].stack_bytes = self->stack.bytes;
    current_thread = &threads[t];
    try {
      launch->body(launch->context);
    } catch (const std::exception& e) {
      report(ReportKind::kernel_exception, t,
             std::string("a C++ exception escaped the kernel: ") + e.what(), nullptr,
             cudaErrorLaunchFailure);
    } catch (...) {
      report(ReportKind::kernel_exception, t, "a C++ exception escaped the kernel", nullptr,
             cudaErrorLaunchFailure);
    }
    thread_exited(t);
  }
}

void BlockRun::thread_exited(unsigned t) {
  extra[t].waiting = Waiting::exited;
  ++exited;
  WarpState& warp = warps[threads[t].warp];
  const unsigned bit = 1u << threads[t].lane;
  warp.exited |= bit;
  // An exited lane need not arrive at a collective (the GPU requires only the
  // lanes of the mask that have not exited): one that waited only for this
  // lane completes now.
  for (std::size_t i = 0; i < warp.pending.size();) {
    PendingCollective& p = warp.pending[i];
    p.mask &= ~bit;
    if (p.arrived == p.mask) {
      complete(warp, p);
      warp.pending.erase(warp.pending.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
}

void BlockRun::abort_block() {
  failed = true;
  checking_an_access = false;  // the check that aborts never returns to its scope's end
  Fiber* self = running;
  running = nullptr;
  // Straight back to execute(); this fiber is recycled there, unfinished.
  ctx::jump_fcontext(scheduler, self);
  std::abort();  // not reached: nothing resumes an aborted fiber
}

void RunQueue::overflow() {
  std::fputs("cudalab emulator: internal error: more fibers ready than the block has threads\n",
             stderr);
  std::abort();
}

// Control passes directly from fiber to fiber: a parking fiber resumes the
// next ready one (or starts a new one for the threads not yet started), so a
// barrier costs one context switch per thread. Only when nothing can run does
// control return to the scheduler in execute(). next_fiber() (block_run.hpp)
// takes a ready fiber itself and comes here for everything else.
Fiber* BlockRun::next_fiber_otherwise() {
  if (failed) return nullptr;
  // Nothing else can run: lanes waiting in coalesced_threads() now know who
  // is with them (warp_coalesce.cpp).
  if (ready.empty() && next_unstarted >= thread_count) {
    if (coalescing_lanes != 0) resolve_coalescing();
    // The latest moment async copies may land: their phases release waiters (mbarrier.cpp).
    if (ready.empty() && async_copies_in_flight != 0) land_async_copies_when_idle(*this);
    // Peer blocks' arrivals on this block's mbarriers (cluster.cpp).
    if (ready.empty() && cluster) [[unlikely]]
      deliver_peer_arrivals(*this);
  }
  if (!ready.empty()) return ready.pop();
  if (next_unstarted < thread_count) {
    Fiber* f = new_fiber();
    fibers.push_back(f);
    return f;
  }
  return nullptr;
}

void BlockRun::resumed(ctx::transfer_t t) {
  if (auto* from = static_cast<Fiber*>(t.data)) {
    from->context = t.fctx;
  } else {
    scheduler = t.fctx;
  }
}

void BlockRun::park() {
  Fiber* self = running;
  ThreadState* me = current_thread;
  Fiber* next = next_fiber();
  if (next == self) {  // made ready again while choosing (a coalesced_threads() group formed)
    running = self;
    return;
  }
  running = next;
  resumed(ctx::jump_fcontext(next ? next->context : scheduler, self));
  running = self;
  current_thread = me;
}

void BlockRun::execute() {
  if (Fiber* first = next_fiber()) {
    running = first;
    resumed(ctx::jump_fcontext(first->context, nullptr));
  }
  // Back here: nothing can run. Either every thread exited or the rest wait
  // for something that will never happen.
  if (exited < thread_count && !failed) report_deadlock();
  current_thread = &host_placeholder_thread;
  // Fibers of threads that never finished are abandoned: their stacks are
  // reused, the objects on them are not destroyed (kernels hold plain data).
  std::vector<Fiber*>& spare = worker.spare_fibers;
  spare.insert(spare.end(), fibers.begin(), fibers.end());
  fibers.clear();
  ready.clear();
  barrier_waiters.clear();
}

int BlockRun::barrier(int predicate, const std::source_location& site) {
  unsigned me = current_thread->linear;
  if (barrier_arrived == 0) {
    barrier_site = site;
    barrier_sites_differ = false;
    barrier_count = 0;
  } else if (site_bits(site) != site_bits(barrier_site) &&
             !(SiteKey::of(site) == SiteKey::of(barrier_site))) [[unlikely]] {
    barrier_sites_differ = true;
  }
  barrier_count += predicate != 0;
  extra[me].wait_site = site;
  if (++barrier_arrived < thread_count) {
    extra[me].waiting = Waiting::barrier;
    barrier_waiters.push_back(me);
    park();
    return barrier_released_count;
  }
  // Everyone is here: release the barrier.
  if (barrier_sites_differ) [[unlikely]]
    report_different_barriers(me, site);
  barrier_arrived = 0;
  barrier_released_count = barrier_count;
  shadow.next_interval();
  for (unsigned t : barrier_waiters) make_ready(t);
  barrier_waiters.clear();
  return barrier_count;
}

// Off barrier()'s path (a string stream there would cost every pass the
// frame it needs).
[[gnu::noinline, gnu::cold]] void BlockRun::report_different_barriers(
    unsigned thread, const std::source_location& site) {
  std::ostringstream what;
  what << "the threads of the block reached different __syncthreads() calls: "
       << format_site(barrier_site) << " and " << format_site(site);
  report(ReportKind::divergent_barrier, thread, what.str(), &site, cudaErrorLaunchFailure);
}

std::string thread_list(const BlockRun& run, const std::vector<unsigned>& ids) {
  std::ostringstream s;
  std::size_t shown = std::min<std::size_t>(ids.size(), 4);
  for (std::size_t i = 0; i < shown; ++i) {
    const uint3& t = run.threads[ids[i]].thread_idx;
    s << (i ? ", " : "") << "(" << t.x << "," << t.y << "," << t.z << ")";
  }
  if (ids.size() > shown) s << " and " << ids.size() - shown << " more";
  return s.str();
}

void BlockRun::report_deadlock() {
  failed = true;
  if (report_stuck_mbarrier(*this)) return;
  if (report_stuck_warpgroup(*this)) return;
  std::vector<unsigned> at_barrier, at_warp, gone;
  for (unsigned t = 0; t < thread_count; ++t) {
    switch (extra[t].waiting) {
      case Waiting::barrier:
        at_barrier.push_back(t);
        break;
      case Waiting::warp:
        at_warp.push_back(t);
        break;
      case Waiting::exited:
        gone.push_back(t);
        break;
      case Waiting::coalesce:   // never at a stall: the group forms first
      case Waiting::mbarrier:   // reported above
      case Waiting::warpgroup:  // likewise
      case Waiting::no:
        break;
    }
  }
  std::ostringstream what;
  if (!at_barrier.empty()) {
    unsigned first = at_barrier.front();
    what << at_barrier.size() << " thread(s) " << thread_list(*this, at_barrier)
         << " wait at __syncthreads() " << format_site(extra[first].wait_site);
    if (!gone.empty()) {
      what << " that " << gone.size() << " thread(s) " << thread_list(*this, gone)
           << " never reach (they exited)";
    }
    if (!at_warp.empty()) {
      what << "; " << at_warp.size() << " thread(s) " << thread_list(*this, at_warp)
           << " wait in a warp collective " << format_site(extra[at_warp.front()].wait_site);
    }
    what << ". A barrier must be reached by every thread of the block.";
    report(ReportKind::divergent_barrier, first, what.str(), &extra[first].wait_site,
           cudaErrorLaunchFailure);
  } else if (!at_warp.empty()) {
    unsigned first = at_warp.front();
    report(ReportKind::warp_collective, first, stuck_collective(first), &extra[first].wait_site,
           cudaErrorLaunchFailure);
  }
  failed = true;
}

void BlockRun::report(ReportKind kind, unsigned thread, std::string message,
                      const std::source_location* site, cudaError_t fault) {
  Report r;
  r.kind = kind;
  r.kernel = launch->name;
  r.where = thread_id_of(info, thread);
  r.message = std::move(message);
  launch->report(std::move(r), fault, site);
}

// ---- the worker pool ---------------------------------------------------------------

namespace {

class Pool {
 public:
  explicit Pool(unsigned workers) {
    for (unsigned i = 1; i < workers; ++i) threads_.emplace_back([this] { serve(); });
  }
  ~Pool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }
  unsigned size() const { return static_cast<unsigned>(threads_.size()) + 1; }

  // Runs job on every worker (the caller is one of them) and waits.
  void run(const std::function<void()>& job) {
    {
      std::lock_guard lock(mutex_);
      job_ = &job;
      busy_ = static_cast<unsigned>(threads_.size());
      ++generation_;
    }
    wake_.notify_all();
    job();
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return busy_ == 0; });
    job_ = nullptr;
  }

 private:
  void serve() {
    std::uint64_t seen = 0;
    for (;;) {
      const std::function<void()>* job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
        job = job_;
      }
      (*job)();
      std::lock_guard lock(mutex_);
      if (--busy_ == 0) done_.notify_one();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void()>* job_ = nullptr;
  std::uint64_t generation_ = 0;
  unsigned busy_ = 0;
  bool stopping_ = false;
};

unsigned wanted_workers() {
  unsigned n = current_options().workers;
  if (n == 0) {
    if (const char* env = std::getenv("CUDALAB_EMU_WORKERS")) n = std::atoi(env);
  }
  if (n == 0) n = std::max(1u, std::thread::hardware_concurrency());
  return n;
}

// Each virtual device runs its launches on its own pool, one launch at a
// time, so that launches on different devices run side by side (a kernel
// spinning on a flag that another device's kernel sets must not wait for it
// to end). The pool (and its size, which options may change) belongs to the
// device's running launch.
struct DevicePool {
  std::mutex one_launch_at_a_time;
  std::unique_ptr<Pool> pool;
};

// Call with the device's one_launch_at_a_time held.
Pool& pool_of(DevicePool& device) {
  const unsigned n = wanted_workers();
  if (!device.pool || device.pool->size() != n) {
    device.pool.reset();
    device.pool = std::make_unique<Pool>(n);
  }
  return *device.pool;
}

DevicePool& device_pool(int device) {
  static DevicePool pools[kMaxDevices];
  return pools[device];
}

std::atomic<std::uint64_t> launch_counter{0};

}  // namespace

// Also cluster.cpp's, on each block's host thread.
void run_block(LaunchState& launch, std::uint64_t linear) {
  register_worker_thread();  // once per OS thread: a watchdog may ask where it is
  BlockRun& run = *worker.run;
  const dim3 g = launch.grid, b = launch.block;
  run.launch = &launch;
  ++run.serial;
  run.device = launch.device;
  run.info.grid_dim = g;
  run.info.block_dim = b;
  run.info.block_linear = linear;
  run.info.block_idx =
      uint3{static_cast<unsigned>(linear % g.x), static_cast<unsigned>(linear / g.x % g.y),
            static_cast<unsigned>(linear / (std::uint64_t{g.x} * g.y))};
  unsigned n = launch.threads_per_block;
  static thread_local dim3 laid_out{0, 0, 0};
  if (laid_out.x != b.x || laid_out.y != b.y || laid_out.z != b.z) {
    laid_out = b;
    run.threads.resize(n);
    run.extra.resize(n);
    for (unsigned t = 0; t < n; ++t) {
      ThreadState& s = run.threads[t];
      s.thread_idx = uint3{t % b.x, t / b.x % b.y, t / (b.x * b.y)};
      s.linear = t;
      s.warp = t / 32;
      s.lane = t % 32;
    }
    run.thread_count = n;
    run.ready.reset(n);
  }
  for (unsigned t = 0; t < n; ++t) {
    run.threads[t].block = &run.info;
    run.threads[t].run = &run;
    run.extra[t] = ThreadExtra{};
  }
  unsigned warp_count = (n + 31) / 32;
  run.warps.assign(warp_count, WarpState{});
  for (unsigned w = 0; w < warp_count; ++w) {
    unsigned lanes = std::min(32u, n - w * 32);
    run.warps[w].existing = lanes == 32 ? ~0u : ((1u << lanes) - 1);
  }
  run.next_unstarted = 0;
  run.exited = 0;
  run.failed = false;
  run.coalescing_lanes = 0;
  run.async_copies_in_flight = 0;
  run.race_phase = launch.id;
  run.barrier_arrived = 0;
  run.trace.clear();
  if (run.cache_launch != launch.id) {
    run.cache_launch = launch.id;
    for (auto& c : run.cached) c = {};
    for (auto& c : run.site_cache) c = {};
  }
  const Checks& checks = launch.options.checks;
  run.shadow.start_block(checks.races);
  run.trace_only = launch.recording && !checks.bounds && !checks.races && !checks.uninitialized;
  run.check_races = checks.races;
  run.check_uninitialized = checks.uninitialized;
  run.recording = launch.recording;
  prepare_shared_arena(run, launch, worker.shared_arena, worker.shared_written);
  if (run.cluster) cluster_block_started(run);
  run.execute();
  if (launch.grid_barrier) launch.grid_barrier->block_finished(linear, g.x, g.y);
  std::uint64_t longest = 0;
  for (unsigned t = 0; t < n; ++t) longest = std::max(longest, run.extra[t].modelled_ns);
  std::uint64_t seen = launch.longest_thread_ns.load(std::memory_order_relaxed);
  while (longest > seen && !launch.longest_thread_ns.compare_exchange_weak(seen, longest)) {
  }
  if (launch.recording) {
    analyse_block(launch, static_cast<std::uint32_t>(linear), run.trace, n);
    record_async_trace(launch, run);
  }
}

namespace {

// A cooperative launch: every block live at once, each on a host thread of
// its own, so that grid.sync() can wait for all of them (grid_sync.cpp). Its
// grid is at most what the GPU keeps resident (cooperative_launch.cpp), and
// the threads mostly wait, so they cost memory, not cores.
void run_cooperative(LaunchState& launch) {
  GridBarrier barrier(launch.total_blocks, launch.id);
  launch.grid_barrier = &barrier;
  std::vector<std::thread> blocks;
  blocks.reserve(launch.total_blocks);
  for (std::uint64_t b = 0; b < launch.total_blocks; ++b) {
    blocks.emplace_back([&launch, b] { run_block(launch, b); });
  }
  for (std::thread& t : blocks) t.join();
  launch.grid_barrier = nullptr;
}

}  // namespace

void run_launch_state(LaunchState& launch) {
  DevicePool& device = device_pool(launch.device);
  std::lock_guard lock(device.one_launch_at_a_time);
  if (launch.cooperative) {
    run_cooperative(launch);
    return;
  }
  if (launch.cluster.x * launch.cluster.y * launch.cluster.z > 1) {
    run_clusters(launch);
    return;
  }
  Pool& pool = pool_of(device);
  std::atomic<std::uint64_t> next{0};
  // Blocks are handed out in small chunks to keep the counter off the hot path.
  const std::uint64_t chunk = std::max<std::uint64_t>(
      1, std::min<std::uint64_t>(64, launch.total_blocks / (8 * pool.size() + 1)));
  std::function<void()> job = [&] {
    for (;;) {
      std::uint64_t first = next.fetch_add(chunk, std::memory_order_relaxed);
      if (first >= launch.total_blocks) break;
      std::uint64_t last = std::min(launch.total_blocks, first + chunk);
      for (std::uint64_t b = first; b < last; ++b) run_block(launch, b);
    }
  };
  pool.run(job);
}

std::uint64_t next_launch_id() { return ++launch_counter; }

bool validate_launch(const void* kernel, dim3 grid, dim3 block, std::size_t shared_bytes,
                     cudaStream_t stream) {
  // Any valid stream: a launch into a stream of another device than the
  // current one runs there (checked on two H200s, CUDA 13; the Programming
  // Guide says it fails: tests/emu/test_device_probes.cpp).
  if (device_of_stream(stream) < 0) {
    set_last_error(cudaErrorInvalidResourceHandle);
    return false;
  }
  std::uint64_t threads = std::uint64_t{block.x} * block.y * block.z;
  bool ok = block.x >= 1 && block.y >= 1 && block.z >= 1 && block.x <= 1024 && block.y <= 1024 &&
            block.z <= 64 && threads <= 1024 && grid.x >= 1 && grid.y >= 1 && grid.z >= 1 &&
            grid.x <= 0x7fffffffu && grid.y <= 65535 && grid.z <= 65535 &&
            shared_bytes <= kMaxDynamicSharedBytes;
  // Above 48 KiB only with cudaFuncSetAttribute(kernel,
  // cudaFuncAttributeMaxDynamicSharedMemorySize, n >= shared_bytes).
  ok = ok && shared_bytes <= max_dynamic_shared_of(kernel);
  // CUDA 13 reports every bad shape as an invalid value (seen on an H200,
  // 2026-11-29); CUDA 12 said cudaErrorInvalidConfiguration.
  if (!ok) set_last_error(cudaErrorInvalidValue);
  return ok;
}

int block_barrier(int predicate, const std::source_location& site) {
  BlockRun* run = current_thread->run;
  if (!run) return predicate != 0;  // host code: nothing to wait for
  return run->barrier(predicate, site);
}

std::uint64_t warp_collective(WarpOp op, unsigned mask, std::uint64_t value, int argument,
                              int width, const std::source_location& site) {
  BlockRun* run = current_thread->run;
  if (!run) return value;
  return run->collective(op, mask, value, argument, width, site);
}

unsigned active_lanes() noexcept {
  BlockRun* run = current_thread->run;
  if (!run) return 1u;
  const WarpState& w = run->warps[current_thread->warp];
  return w.existing & ~w.exited;
}

}  // namespace cudalab::emu::detail

namespace cudalab::emu {
std::uint64_t modelled_timer_ns() noexcept {
  const detail::ThreadState* me = detail::current_thread;
  detail::BlockRun* run = me->run;
  if (!run) return static_cast<std::uint64_t>(detail::unqueued_start_us() * 1000.0);
  std::uint64_t& elapsed = run->extra[me->linear].modelled_ns;
  elapsed += detail::kTimerReadNs;
  return static_cast<std::uint64_t>(run->launch->start_us * 1000.0) + elapsed;
}

void modelled_sleep_ns(unsigned ns) noexcept {
  const detail::ThreadState* me = detail::current_thread;
  if (detail::BlockRun* run = me->run) run->extra[me->linear].modelled_ns += ns;
}

void* dynamic_shared_memory() noexcept {
  detail::BlockRun* run = detail::current_thread->run;
  if (!run) return nullptr;
  return run->dynamic_shared ? run->dynamic_shared : detail::block_dynamic_shared(*run);
}
}  // namespace cudalab::emu
