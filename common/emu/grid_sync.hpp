// Internal: the grid-wide barrier of a cooperative launch, which
// cooperative_groups::this_grid().sync() waits at (grid_sync.cpp).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

namespace cudalab::emu::detail {

// Every block of a cooperative launch runs on a host thread of its own
// (engine.cpp), so a block that waits here blocks its thread and nothing
// else. The last thread of a block to reach grid.sync() waits for the other
// blocks; the rest of its block waits at the block's barrier behind it.
class GridBarrier {
 public:
  // `phase` is the race check's tag of the first phase (the launch's id);
  // `name` is what reports call the barrier (a cluster's is cluster.sync()).
  GridBarrier(std::uint64_t blocks, std::uint64_t phase, const char* name = "grid.sync()")
      : blocks_(blocks), phase_(phase), name_(name) {}
  GridBarrier(const GridBarrier&) = delete;
  GridBarrier& operator=(const GridBarrier&) = delete;

  // Waits until every block of the grid has arrived, then returns true and
  // sets `phase` to the tag of the phase that starts. Returns false, with
  // `why` saying so, when the barrier can never complete: a block ended
  // without arriving (on the GPU the grid would hang).
  bool arrive_and_wait(std::uint64_t* phase, std::string* why) {
    return wait(arrive(), phase, why);
  }
  // The two halves, for a cluster's barrier_arrive() and barrier_wait():
  // arrive() does not block and returns the token that wait() waits with.
  std::uint64_t arrive();
  bool wait(std::uint64_t token, std::uint64_t* phase, std::string* why);
  // A block ended (all its threads exited, or it was stopped by a report);
  // `arrived`: its arrival in the current phase is in (an arrive() without
  // wait()), so that phase can still complete.
  void block_finished(std::uint64_t block_linear, unsigned grid_x, unsigned grid_y,
                      bool arrived = false);

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  const std::uint64_t blocks_;
  std::uint64_t arrived_ = 0;
  std::uint64_t finished_ = 0;
  std::uint64_t finished_arrived_ = 0;  // of those, arrived in generation_excused_
  std::uint64_t generation_excused_ = 0;
  std::uint64_t generation_ = 0;
  std::uint64_t phase_;
  const char* name_;
  bool broken_ = false;
  std::string first_finished_;  // "(x,y,z)" of the first block that ended
};

}  // namespace cudalab::emu::detail
