// Thread block clusters (sm_90): a launch's blocks grouped into clusters
// whose blocks run at once, wait for each other at cluster.sync() and read
// and write each other's shared memory (distributed shared memory, DSMEM).
//
// The blocks of one cluster each run on a host thread of their own (as a
// cooperative launch's blocks do, grid_sync.cpp), so cluster.sync() is the
// grid barrier's mechanism over the cluster's blocks, and a peer's shared
// memory is its arena, live while the peer runs. Clusters run one after
// another: no cluster waits for another on the GPU either (nothing but
// global memory connects them).
//
// The race check of DSMEM: every access to a block's shared memory from a
// peer, and the owner's own accesses, are tagged with the accessing thread's
// interval: 2n after its block's n-th cluster barrier, 2n+1 once the thread
// has arrived at the next (barrier_arrive()) and until its block waits. Two
// accesses of one word by different blocks, one a write, race unless a
// barrier orders them (unordered() below).
//
// The split barrier: barrier_arrive() marks the thread arrived; the block's
// last thread to arrive arrives for the block at the cluster's barrier
// without blocking. barrier_wait() needs the thread's own arrival (else the
// GPU hangs, reported here) and then behaves as cluster.sync()'s second
// half: the block's last thread to wait blocks its host thread until every
// block arrived, the rest of the block waits at the block barrier behind it
// (stricter than the GPU, where a thread that waits need not wait for its
// own block's other threads to reach barrier_wait()).
//
// A peer's mbarrier (mbarrier_arrive_cluster): the mbarrier model is per
// block and wakes threads through the block's scheduler, which only the
// block's own host thread may touch. So the arriving block posts the
// arrival in the owner's mailbox (under the cluster's mailbox_mutex) and
// the owner's host thread delivers it when none of its threads can run:
// the arrival completes the phase there and wakes the waiters. While a
// thread waits on an mbarrier and some peer is neither finished nor blocked,
// the owner's host thread waits for mail (a condition variable); if every
// peer stays finished or blocked, no arrival can come, and the block's
// stall is reported as a hang naming the mbarrier. A multicast bulk tensor
// copy (tma_copies.cpp) travels the same mailbox, and is taken sooner: at
// the owner's threads' next shared access (take_posted_copies), so that a
// read of its box before the wait is reported as a race with the copy.
#include "cluster_model.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "block_run.hpp"
#include "cudalab/emu/cooperative_groups_cluster.hpp"
#include "cudalab/emu/mbarrier.hpp"
#include "mbarrier_model.hpp"

namespace cudalab::emu::detail {

void run_block(LaunchState& launch, std::uint64_t linear);  // engine.cpp

ClusterShadow::~ClusterShadow() {
  std::free(writes_);
  std::free(reads_);
}

void ClusterShadow::make(std::size_t arena_bytes) {
  const std::size_t words = arena_bytes / 4 + 1;
  writes_ = static_cast<std::atomic<std::uint64_t>*>(std::calloc(words, sizeof *writes_));
  reads_ = static_cast<std::atomic<std::uint64_t>*>(std::calloc(words, sizeof *reads_));
  if (!writes_ || !reads_) throw std::bad_alloc();
}

namespace {

void run_member(LaunchState& launch, ClusterRun& cluster, unsigned rank, std::uint64_t linear) {
  BlockRun& run = this_worker_block();
  run.cluster = &cluster;
  run.cluster_rank = rank;
  cluster.members[rank] = &run;
  run_block(launch, linear);
  cluster.finished[rank].store(true, std::memory_order_release);
  cluster.barrier.block_finished(linear, launch.grid.x, launch.grid.y,
                                 cluster.split[rank].block_arrived);
  {
    std::lock_guard lock(cluster.mailbox_mutex);  // a peer waiting for arrivals rechecks
  }
  cluster.mail.notify_all();
  cluster.all_finished.arrive_and_wait();  // keeps the arena for late peers
}

std::string block_name(const BlockRun& run) {
  const uint3 b = run.info.block_idx;
  std::ostringstream s;
  s << "block (" << b.x << "," << b.y << "," << b.z << ") (cluster rank " << run.cluster_rank
    << ")";
  return s.str();
}

[[noreturn]] void report_and_stop(BlockRun& run, ReportKind kind, std::uintptr_t address,
                                  std::size_t bytes, unsigned flags, const std::string& message,
                                  SiteRef site, cudaError_t fault) {
  Report r;
  r.kind = kind;
  r.kernel = run.launch->name;
  r.where = thread_id_of(run.info, current_thread->linear);
  r.address = address;
  r.access_bytes = bytes;
  r.is_write = flags & kWrite;
  r.message = message;
  run.launch->report(std::move(r), fault, site);
  run.abort_block();
}

void report_race(BlockRun& run, const BlockRun& owner, const BlockRun& other, bool other_wrote,
                 std::uintptr_t address, std::size_t bytes, unsigned flags, SiteRef site) {
  std::ostringstream what;
  what << "Distributed shared memory race: " << block_name(run)
       << ((flags & kWrite) ? " writes " : " reads ") << bytes << " bytes at offset "
       << address - owner.shared_low << " of the shared memory of " << block_name(owner)
       << ", which " << block_name(other) << (other_wrote ? " wrote" : " read")
       << " in the same cluster.sync() interval; put a cluster.sync() between the two";
  Report r;
  r.kind = ReportKind::inter_block_race;
  r.kernel = run.launch->name;
  r.where = thread_id_of(run.info, current_thread->linear);
  r.address = address;
  r.access_bytes = bytes;
  r.is_write = flags & kWrite;
  r.message = what.str();
  run.launch->report(std::move(r), cudaSuccess, site);
}

// Whether no cluster barrier orders accesses of blocks in intervals a and b
// (the race check's tags, see the top of the file).
bool unordered(std::uint64_t a, std::uint64_t b) {
  if (a > b) std::swap(a, b);
  return b - a <= 1 || (a % 2 == 1 && b - a == 2);
}

// Checks and tags the words of [address, address + bytes) in `owner`'s
// shared memory for an access by `run`'s block.
void check_words(BlockRun& run, unsigned owner_rank, std::uintptr_t address, std::size_t bytes,
                 unsigned flags, SiteRef site) {
  ClusterRun& cluster = *run.cluster;
  ClusterShadow& shadow = cluster.shadows[owner_rank];
  if (!shadow.made() || (flags & kAtomic) ||
      cluster.ordered_by_mbarriers.load(std::memory_order_relaxed)) {
    return;
  }
  const BlockRun& owner = *cluster.members[owner_rank];
  const std::vector<bool>& arrived = cluster.split[run.cluster_rank].thread_arrived;
  const std::uint64_t interval = cluster.intervals[run.cluster_rank] +
                                 (!arrived.empty() && arrived[current_thread->linear] ? 1 : 0);
  const std::uint64_t me = run.cluster_rank;
  const std::size_t first = (address - owner.shared_low) / 4;
  const std::size_t last = (address + bytes - 1 - owner.shared_low) / 4;
  for (std::size_t w = first; w <= last; ++w) {
    const std::uint64_t wrote = shadow.write(w).load(std::memory_order_acquire);
    if ((wrote & 0xff) != 0 && unordered(wrote >> 8, interval) && (wrote & 0xff) - 1 != me) {
      report_race(run, owner, *cluster.members[(wrote & 0xff) - 1], true, address, bytes, flags,
                  site);
      return;
    }
    if (flags & kWrite) {
      const std::uint64_t read = shadow.reads(w).load(std::memory_order_acquire);
      const std::uint64_t others = read & 0xffff & ~(std::uint64_t{1} << me);
      if (others != 0 && unordered(read >> 16, interval)) {
        report_race(run, owner, *cluster.members[std::countr_zero(others)], false, address, bytes,
                    flags, site);
        return;
      }
      shadow.write(w).store(interval << 8 | (me + 1), std::memory_order_release);
    } else if (owner_rank != me) {
      // Only peers' reads are kept: the owner's own reads race with no peer
      // write that its write check would miss.
      std::uint64_t read = shadow.reads(w).load(std::memory_order_relaxed);
      std::uint64_t tagged;
      do {
        tagged = (read >> 16 == interval ? read : interval << 16) | std::uint64_t{1} << me;
      } while (!shadow.reads(w).compare_exchange_weak(read, tagged, std::memory_order_acq_rel));
    }
  }
}

}  // namespace

void run_clusters(LaunchState& launch) {
  const dim3 c = launch.cluster, g = launch.grid;
  const unsigned size = c.x * c.y * c.z;
  const dim3 count{g.x / c.x, g.y / c.y, g.z / c.z};
  const std::uint64_t clusters = std::uint64_t{count.x} * count.y * count.z;
  for (std::uint64_t k = 0; k < clusters; ++k) {
    const std::uint64_t cx = k % count.x, cy = k / count.x % count.y,
                        cz = k / (std::uint64_t{count.x} * count.y);
    ClusterRun cluster(size, launch.id);
    std::vector<std::thread> blocks;
    blocks.reserve(size);
    for (unsigned r = 0; r < size; ++r) {
      const std::uint64_t x = cx * c.x + r % c.x, y = cy * c.y + r / c.x % c.y,
                          z = cz * c.z + r / (c.x * c.y);
      const std::uint64_t linear = x + (y + z * g.y) * g.x;
      blocks.emplace_back(
          [&launch, &cluster, r, linear] { run_member(launch, cluster, r, linear); });
    }
    for (std::thread& t : blocks) t.join();
  }
}

void cluster_block_started(BlockRun& run) noexcept {
  ClusterRun& cluster = *run.cluster;
  if (run.check_races) cluster.shadows[run.cluster_rank].make(run.shared_bytes);
  cluster.started[run.cluster_rank].store(true, std::memory_order_release);
}

bool cluster_shared_access(BlockRun& run, std::uintptr_t address, std::size_t bytes, unsigned flags,
                           SiteRef site) {
  ClusterRun& cluster = *run.cluster;
  for (unsigned r = 0; r < cluster.members.size(); ++r) {
    if (!cluster.started[r].load(std::memory_order_acquire)) continue;
    const BlockRun& peer = *cluster.members[r];
    if (address - peer.shared_low >= peer.shared_bytes) continue;
    const CheckingAnAccess quiet;
    if (cluster.finished[r].load(std::memory_order_acquire)) {
      report_and_stop(
          run, ReportKind::use_after_free, address, bytes, flags,
          "Distributed shared memory access after its block exited: " + block_name(run) +
              ((flags & kWrite) ? " writes " : " reads ") + std::to_string(bytes) +
              " bytes of the shared memory of " + block_name(peer) +
              ", whose threads have all exited; on the GPU its shared memory may "
              "already belong to another block (undefined behaviour). A block must "
              "not exit while peers still use its shared memory: end the kernel "
              "with cluster.sync()",
          site, cudaErrorLaunchFailure);
    }
    if (run.check_races) check_words(run, r, address, bytes, flags, site);
    // The owner's uninitialised-read check counts a peer's write.
    if ((flags & kWrite) && peer.shared_written) {
      std::memset(cluster.members[r]->shared_written + (address - peer.shared_low), 1, bytes);
    }
    return true;
  }
  return false;
}

void cluster_own_shared_access(BlockRun& run, std::uintptr_t address, std::size_t bytes,
                               unsigned flags, SiteRef site) {
  const CheckingAnAccess quiet;
  check_words(run, run.cluster_rank, address, bytes, flags, site);
}

namespace {

// The rank's host thread blocks in a cluster barrier, or is back (running).
void set_stalled(ClusterRun& cluster, unsigned rank, ClusterRun::Stall stalled) {
  {
    std::lock_guard lock(cluster.mailbox_mutex);
    cluster.stalled[rank] = stalled;
  }
  cluster.mail.notify_all();
}

bool waits_on_mbarrier(const BlockRun& run) {
  for (unsigned t = 0; t < run.thread_count; ++t) {
    if (run.extra[t].waiting == Waiting::mbarrier) return true;
  }
  return false;
}

// Every other block of the cluster has ended or is blocked (under
// mailbox_mutex): no arrival can come.
bool no_peer_can_arrive(const ClusterRun& cluster, unsigned me) {
  for (unsigned r = 0; r < cluster.members.size(); ++r) {
    if (r == me || cluster.finished[r].load(std::memory_order_acquire)) continue;
    if (cluster.stalled[r] == ClusterRun::Stall::running) return false;
    // Still inside a cluster barrier this block has passed: it comes out
    // (its interval is read only while it is stalled, under the mutex).
    if (cluster.stalled[r] == ClusterRun::Stall::in_cluster_barrier &&
        cluster.intervals[r] < cluster.intervals[me]) {
      return false;
    }
  }
  return true;
}

}  // namespace

void deliver_peer_arrivals(BlockRun& run) {
  ClusterRun& cluster = *run.cluster;
  const unsigned me = run.cluster_rank;
  std::unique_lock lock(cluster.mailbox_mutex);
  bool looked_stuck = false;
  for (;;) {
    if (!cluster.mailboxes[me].empty()) {
      std::vector<ClusterRun::PeerArrival> posted;
      posted.swap(cluster.mailboxes[me]);
      lock.unlock();
      // On this block's host thread: the phases they complete wake its threads.
      for (ClusterRun::PeerArrival& a : posted) {
        auto* barrier = reinterpret_cast<std::uint64_t*>(a.barrier);
        if (a.bytes) {
          cluster.copies_posted[me].fetch_sub(1, std::memory_order_relaxed);
          staged_copy_on_barrier(run, reinterpret_cast<void*>(a.destination), std::move(a.bytes),
                                 barrier, a.site, std::move(a.issuer));
        } else {
          ::cudalab::emu::mbarrier_arrive(barrier, 1, 0, false, a.site);
        }
      }
      // Nothing of the block can run: the copies may land now.
      if (run.async_copies_in_flight != 0) land_async_copies_when_idle(run);
      if (!run.ready.empty()) return;
      lock.lock();
      looked_stuck = false;
      continue;
    }
    if (!waits_on_mbarrier(run)) return;
    if (no_peer_can_arrive(cluster, me)) {
      // A blocked peer may be on its way out of a cluster barrier: the block
      // is stuck (report_deadlock names the mbarrier) only if that stays so.
      if (looked_stuck) return;
      looked_stuck = true;
    } else {
      looked_stuck = false;
    }
    cluster.stalled[me] = ClusterRun::Stall::waiting_for_mail;
    cluster.mail.notify_all();
    cluster.mail.wait_for(lock, std::chrono::milliseconds(20));
    cluster.stalled[me] = ClusterRun::Stall::running;
  }
}

void post_peer_copy(BlockRun& run, unsigned rank, std::uintptr_t destination,
                    std::shared_ptr<const std::vector<std::byte>> bytes, std::uintptr_t barrier,
                    const std::source_location& site) {
  ClusterRun& cluster = *run.cluster;
  if (cluster.finished[rank].load(std::memory_order_acquire)) {
    const CheckingAnAccess quiet;
    report_and_stop(run, ReportKind::use_after_free, destination, bytes->size(), kWrite,
                    "multicast bulk tensor copy to the shared memory of " +
                        block_name(*cluster.members[rank]) +
                        ", whose threads have all exited: a block must not exit while peers "
                        "still copy into its shared memory",
                    SiteRef(site), cudaErrorLaunchFailure);
  }
  // The ordering the destination's mbarrier gives is not in the intervals.
  cluster.ordered_by_mbarriers.store(true, std::memory_order_relaxed);
  std::string issuer = thread_id_of(run.info, current_thread->linear).to_string() +
                       " (cluster rank " + std::to_string(run.cluster_rank) + ", a multicast)";
  {
    std::lock_guard lock(cluster.mailbox_mutex);
    cluster.mailboxes[rank].push_back(
        {barrier, site, destination, std::move(bytes), std::move(issuer)});
    cluster.copies_posted[rank].fetch_add(1, std::memory_order_relaxed);
  }
  cluster.mail.notify_all();
}

void take_posted_copies(BlockRun& run) {
  ClusterRun& cluster = *run.cluster;
  const unsigned me = run.cluster_rank;
  if (cluster.copies_posted[me].load(std::memory_order_relaxed) == 0) return;
  std::vector<ClusterRun::PeerArrival> copies;
  {
    std::lock_guard lock(cluster.mailbox_mutex);
    auto& mailbox = cluster.mailboxes[me];
    // The arrivals stay for deliver_peer_arrivals: they wake threads.
    const auto arrivals = std::stable_partition(
        mailbox.begin(), mailbox.end(), [](const ClusterRun::PeerArrival& a) { return !a.bytes; });
    copies.assign(std::make_move_iterator(arrivals), std::make_move_iterator(mailbox.end()));
    mailbox.erase(arrivals, mailbox.end());
    cluster.copies_posted[me].fetch_sub(static_cast<unsigned>(copies.size()),
                                        std::memory_order_relaxed);
  }
  const CheckingAnAccess quiet;
  for (ClusterRun::PeerArrival& c : copies) {
    staged_copy_on_barrier(run, reinterpret_cast<void*>(c.destination), std::move(c.bytes),
                           reinterpret_cast<std::uint64_t*>(c.barrier), c.site,
                           std::move(c.issuer));
  }
}

// ---- what kernel code calls (cudalab/emu/cooperative_groups_cluster.hpp) ----------

dim3 cluster_dims() noexcept {
  const BlockRun* run = current_thread->run;
  return run ? run->launch->cluster : dim3{1, 1, 1};
}

void cluster_sync(const std::source_location& site) {
  BlockRun* run = current_thread->run;
  if (!run) return;  // host code: nothing to wait for
  if (ClusterRun* cluster = run->cluster;
      cluster && run->barrier_arrived + 1 == run->thread_count) {
    // As grid.sync(): the block's last thread waits for the other blocks.
    std::string why;
    set_stalled(*cluster, run->cluster_rank, ClusterRun::Stall::in_cluster_barrier);
    const bool passed = cluster->barrier.arrive_and_wait(&run->race_phase, &why);
    set_stalled(*cluster, run->cluster_rank, ClusterRun::Stall::running);
    if (!passed) {
      const CheckingAnAccess quiet;
      run->report(ReportKind::divergent_barrier, current_thread->linear,
                  "cluster.sync() at " + format_site(site) + ": " + why, &site,
                  cudaErrorLaunchFailure);
      run->abort_block();
    }
    cluster->intervals[run->cluster_rank] += 2;
  }
  run->barrier(0, site);
}

namespace {

[[noreturn]] void report_split_misuse(BlockRun& run, const std::string& message,
                                      const std::source_location& site) {
  const CheckingAnAccess quiet;
  run.report(ReportKind::divergent_barrier, current_thread->linear, message, &site,
             cudaErrorLaunchFailure);
  run.abort_block();
}

}  // namespace

void cluster_barrier_arrive(const std::source_location& site) {
  BlockRun* run = current_thread->run;
  if (!run || !run->cluster) return;  // a cluster of one: barrier_wait() is the barrier
  ClusterRun& cluster = *run->cluster;
  ClusterRun::SplitArrival& split = cluster.split[run->cluster_rank];
  if (split.thread_arrived.empty()) split.thread_arrived.resize(run->thread_count);
  const unsigned me = current_thread->linear;
  if (split.thread_arrived[me]) {
    report_split_misuse(*run,
                        "cluster barrier_arrive() at " + format_site(site) +
                            " by a thread that already arrived and has not called "
                            "barrier_wait() since: each arrival must be followed by a wait",
                        site);
  }
  split.thread_arrived[me] = true;
  if (++split.arrived == run->thread_count) {
    split.token = cluster.barrier.arrive();
    split.block_arrived = true;
  }
}

void cluster_barrier_wait(const std::source_location& site) {
  BlockRun* run = current_thread->run;
  if (!run) return;
  ClusterRun* cluster = run->cluster;
  if (!cluster) {
    run->barrier(0, site);
    return;
  }
  ClusterRun::SplitArrival& split = cluster->split[run->cluster_rank];
  const unsigned me = current_thread->linear;
  if (split.thread_arrived.empty() || !split.thread_arrived[me]) {
    report_split_misuse(
        *run,
        "cluster barrier_wait() at " + format_site(site) +
            " by a thread that has not called barrier_arrive(): the barrier completes only "
            "once every thread of the cluster has arrived, this one included, so on the GPU "
            "the cluster would wait forever (a hang). Call barrier_arrive() first",
        site);
  }
  split.thread_arrived[me] = false;
  if (run->barrier_arrived + 1 == run->thread_count) {
    std::string why;
    bool passed = split.block_arrived;
    if (passed) {
      set_stalled(*cluster, run->cluster_rank, ClusterRun::Stall::in_cluster_barrier);
      passed = cluster->barrier.wait(split.token, &run->race_phase, &why);
      set_stalled(*cluster, run->cluster_rank, ClusterRun::Stall::running);
    }
    if (!passed) {
      if (!split.block_arrived) why = "not every thread of the block called barrier_arrive()";
      const CheckingAnAccess quiet;
      run->report(ReportKind::divergent_barrier, me,
                  "cluster barrier_wait() at " + format_site(site) + ": " + why, &site,
                  cudaErrorLaunchFailure);
      run->abort_block();
    }
    split.arrived = 0;
    split.block_arrived = false;
    cluster->intervals[run->cluster_rank] += 2;
  }
  run->barrier(0, site);
}

void* map_shared_rank(const void* pointer, unsigned rank, const std::source_location& site) {
  BlockRun* run = current_thread->run;
  if (!run) return const_cast<void*>(pointer);
  const auto a = reinterpret_cast<std::uintptr_t>(pointer);
  const dim3 c = run->launch->cluster;
  const unsigned size = c.x * c.y * c.z;
  ClusterRun* cluster = run->cluster;
  const CheckingAnAccess quiet;
  if (rank >= size) {
    report_and_stop(*run, ReportKind::out_of_bounds, a, 0, 0,
                    "cluster.map_shared_rank(" + hex(a) + ", " + std::to_string(rank) + "): rank " +
                        std::to_string(rank) + " is outside the cluster, whose " +
                        std::to_string(size) + " blocks have ranks 0 to " +
                        std::to_string(size - 1),
                    SiteRef(site), cudaErrorIllegalAddress);
  }
  // The offset into the shared memory `pointer` points at: the caller's own
  // or, mapped before, a peer's.
  const BlockRun* from = run;
  if (cluster && a - run->shared_low >= run->shared_bytes) {
    for (unsigned r = 0; r < size; ++r) {
      if (cluster->started[r].load(std::memory_order_acquire) &&
          a - cluster->members[r]->shared_low < cluster->members[r]->shared_bytes) {
        from = cluster->members[r];
      }
    }
  }
  if (a - from->shared_low >= from->shared_bytes) {
    report_and_stop(*run, ReportKind::invalid_pointer, a, 0, 0,
                    "cluster.map_shared_rank(" + hex(a) + ", " + std::to_string(rank) +
                        "): the address is not in the block's shared memory (only a __shared__ "
                        "variable's address can be mapped to a peer block)",
                    SiteRef(site), cudaErrorIllegalAddress);
  }
  if (!cluster) return const_cast<void*>(pointer);  // a launch without clusters: rank 0 only
  // The peer's arena exists once it started; the GPU starts a cluster's
  // blocks together.
  while (!cluster->started[rank].load(std::memory_order_acquire)) std::this_thread::yield();
  return reinterpret_cast<void*>(cluster->members[rank]->shared_low + (a - from->shared_low));
}

unsigned query_shared_rank(const void* pointer) noexcept {
  const BlockRun* run = current_thread->run;
  if (!run || !run->cluster) return 0;
  const auto a = reinterpret_cast<std::uintptr_t>(pointer);
  const ClusterRun& cluster = *run->cluster;
  for (unsigned r = 0; r < cluster.members.size(); ++r) {
    if (cluster.started[r].load(std::memory_order_acquire) &&
        a - cluster.members[r]->shared_low < cluster.members[r]->shared_bytes) {
      return r;
    }
  }
  return run->cluster_rank;
}

}  // namespace cudalab::emu::detail

namespace cudalab::emu {

void mbarrier_arrive_cluster(std::uint64_t* barrier, unsigned rank,
                             const std::source_location& site) {
  using namespace detail;
  BlockRun* run = current_thread->run;
  if (!run) throw std::logic_error("an mbarrier used outside a kernel");
  // mapa: the rank and the address are checked as map_shared_rank's.
  auto* peer_barrier = static_cast<std::uint64_t*>(map_shared_rank(barrier, rank, site));
  if (!run->cluster || rank == run->cluster_rank) {
    mbarrier_arrive(peer_barrier, 1, 0, false, site);
    return;
  }
  ClusterRun& cluster = *run->cluster;
  if (cluster.finished[rank].load(std::memory_order_acquire)) {
    const CheckingAnAccess quiet;
    report_and_stop(*run, ReportKind::use_after_free,
                    reinterpret_cast<std::uintptr_t>(peer_barrier), 8, kWrite,
                    "mbarrier arrive on the barrier of " + block_name(*cluster.members[rank]) +
                        ", whose threads have all exited: a block must not exit while peers "
                        "still signal its barriers",
                    SiteRef(site), cudaErrorLaunchFailure);
  }
  cluster.ordered_by_mbarriers.store(true, std::memory_order_relaxed);
  {
    std::lock_guard lock(cluster.mailbox_mutex);
    cluster.mailboxes[rank].push_back(
        {reinterpret_cast<std::uintptr_t>(peer_barrier), site, 0, nullptr, {}});
  }
  cluster.mail.notify_all();
}

}  // namespace cudalab::emu
