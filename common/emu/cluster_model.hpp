// Internal: a thread block cluster in execution (cluster.cpp). The blocks of
// one cluster run at once, each on a host thread of its own, as a
// cooperative launch's blocks do, so that cluster.sync() can wait for all of
// them and a block can read a live peer's shared memory.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <latch>
#include <memory>
#include <mutex>
#include <source_location>
#include <string>
#include <vector>

#include "engine.hpp"
#include "grid_sync.hpp"

namespace cudalab::emu::detail {

// Per 4-byte word of a block's shared memory, for the race check of
// distributed shared memory: who wrote it last and which blocks read it,
// each in which cluster.sync() interval. Zero pages until touched (calloc).
class ClusterShadow {
 public:
  ClusterShadow() = default;
  ClusterShadow(const ClusterShadow&) = delete;
  ClusterShadow& operator=(const ClusterShadow&) = delete;
  ~ClusterShadow();
  void make(std::size_t arena_bytes);
  bool made() const { return writes_ != nullptr; }
  // (interval << 8) | (writer rank + 1); 0: never written.
  std::atomic<std::uint64_t>& write(std::size_t word) { return writes_[word]; }
  // (interval << 16) | a bit per reading rank; 0: never read from a peer.
  std::atomic<std::uint64_t>& reads(std::size_t word) { return reads_[word]; }

 private:
  std::atomic<std::uint64_t>* writes_ = nullptr;
  std::atomic<std::uint64_t>* reads_ = nullptr;
};

struct ClusterRun {
  ClusterRun(unsigned blocks, std::uint64_t phase)
      : barrier(blocks, phase, "cluster.sync()"),
        members(blocks),
        started(blocks),
        finished(blocks),
        intervals(blocks),
        shadows(blocks),
        split(blocks),
        mailboxes(blocks),
        copies_posted(blocks),
        stalled(blocks),
        all_finished(blocks) {}

  GridBarrier barrier;  // cluster.sync()
  // Per rank: the block's run (its shared arena is where DSMEM goes), set
  // before the block starts; `started` once its arena is laid out,
  // `finished` once its threads are done.
  std::vector<BlockRun*> members;
  std::vector<std::atomic<bool>> started;
  std::vector<std::atomic<bool>> finished;
  // Per rank: twice the cluster barriers its block has passed (its threads'
  // interval, +1 for a thread between barrier_arrive() and barrier_wait()),
  // and the shadow of its shared memory (with race checks on).
  std::vector<std::uint32_t> intervals;
  std::vector<ClusterShadow> shadows;
  // Per rank, the split barrier: which of its threads arrived and have not
  // waited yet, how many, and the token of the block's arrival.
  struct SplitArrival {
    std::vector<bool> thread_arrived;
    unsigned arrived = 0;
    bool block_arrived = false;
    std::uint64_t token = 0;
  };
  std::vector<SplitArrival> split;
  // Per rank: arrivals that peer blocks made on the block's mbarriers
  // (mbarrier.arrive.shared::cluster). A peer runs on another host thread
  // and may not touch the block's scheduler, so it posts the arrival here;
  // the owner's host thread delivers it when its threads can do nothing
  // else (deliver_peer_arrivals), and blocks for one while a thread waits on
  // an mbarrier. `stalled`: whether the rank's host thread is blocked, in a cluster
  // barrier or for a peer's arrival. All under mailbox_mutex; a post, a
  // stall's end and a block's end notify `mail`.
  // A multicast bulk tensor copy (cp.async.bulk.tensor...multicast::cluster)
  // travels the same way, as a PeerArrival with `bytes`: the box gathered by
  // the issuing block, landing at `destination` and completing its size on
  // `barrier`, both in the owner's shared memory. The owner takes copies
  // sooner than arrivals: at its threads' next shared access
  // (take_posted_copies), when they become in flight there, so a read
  // before the wait is reported; `copies_posted` counts those not yet taken.
  struct PeerArrival {
    std::uintptr_t barrier;
    std::source_location site;
    std::uintptr_t destination = 0;
    std::shared_ptr<const std::vector<std::byte>> bytes;  // null: an arrival
    std::string issuer;                                   // "block (x,y,z) thread (x,y,z)"
  };
  std::mutex mailbox_mutex;
  std::condition_variable mail;
  std::vector<std::vector<PeerArrival>> mailboxes;
  std::vector<std::atomic<unsigned>> copies_posted;
  enum class Stall : std::uint8_t { running, in_cluster_barrier, waiting_for_mail };
  std::vector<Stall> stalled;
  // From the first peer arrival on, the DSMEM race check is off: the
  // ordering a peer's mbarrier gives is not in its intervals.
  std::atomic<bool> ordered_by_mbarriers{false};
  // A finished block keeps its host thread (and so its arena) until the
  // whole cluster is done: a peer reading it late is reported, not a crash.
  std::latch all_finished;
};

// Runs a launch whose cluster has more than one block: cluster after
// cluster, the blocks of each at once (engine.cpp calls it).
void run_clusters(LaunchState& launch);
// run_block's hook once the block's shared arena is ready (engine.cpp).
void cluster_block_started(BlockRun& run) noexcept;
// An instrumented access outside every allocation that may be a peer
// block's shared memory (hooks.cpp's slow path): checked and true if it is.
bool cluster_shared_access(BlockRun& run, std::uintptr_t address, std::size_t bytes, unsigned flags,
                           SiteRef site);
// next_fiber_otherwise's hook (engine.cpp) when none of the block's threads
// can run: delivers peers' mbarrier arrivals, and waits for one while a
// thread waits on an mbarrier and a peer may still arrive.
void deliver_peer_arrivals(BlockRun& run);
// A multicast copy's box for the shared memory of cluster rank `rank`
// (`destination` and `barrier` already mapped there): posted to its mailbox.
void post_peer_copy(BlockRun& run, unsigned rank, std::uintptr_t destination,
                    std::shared_ptr<const std::vector<std::byte>> bytes, std::uintptr_t barrier,
                    const std::source_location& site);
// Makes the copies peers posted to this block in flight on its mbarriers
// (hooks.cpp's shared path and deliver_peer_arrivals, on the owner's host thread).
void take_posted_copies(BlockRun& run);
// The race check of a block's access to its own shared memory in a cluster
// launch (hooks.cpp's shared path, with race checks on): peers may have
// touched the word in this cluster.sync() interval.
void cluster_own_shared_access(BlockRun& run, std::uintptr_t address, std::size_t bytes,
                               unsigned flags, SiteRef site);

}  // namespace cudalab::emu::detail
