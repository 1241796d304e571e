// cooperative_groups::this_grid().sync(): a barrier of every thread of the
// grid, for kernels launched with cudaLaunchCooperativeKernel.
//
// The GPU can only promise it for a grid whose blocks are all resident at
// once, which is why such a launch is refused above the occupancy limit
// (cooperative_launch.cpp). The emulator keeps the same promise by running
// every block of a cooperative launch on a host thread of its own
// (engine.cpp): a block's last thread to arrive blocks its host thread here
// until every block has arrived, then completes its block's barrier, which
// the block's other threads wait at. A block that ends without arriving
// would leave the others waiting forever (the GPU hangs): the waiting blocks
// are stopped with a report instead.
#include "grid_sync.hpp"

#include <sstream>

#include "block_run.hpp"

namespace cudalab::emu::detail {

std::uint64_t next_launch_id();  // engine.cpp

std::uint64_t GridBarrier::arrive() {
  std::lock_guard lock(mutex_);
  const std::uint64_t excused = generation_excused_ == generation_ ? finished_arrived_ : 0;
  if (finished_ > excused) broken_ = true;  // that block will never arrive
  const std::uint64_t mine = generation_;
  if (!broken_ && ++arrived_ == blocks_) {
    arrived_ = 0;
    ++generation_;
    phase_ = next_launch_id();  // unique among launches and phases
    wake_.notify_all();
  }
  return mine;
}

bool GridBarrier::wait(std::uint64_t token, std::uint64_t* phase, std::string* why) {
  std::unique_lock lock(mutex_);
  wake_.wait(lock, [&] { return broken_ || generation_ != token; });
  if (generation_ != token) {
    *phase = phase_;
    return true;
  }
  wake_.notify_all();
  const CheckingAnAccess quiet;  // strings made on a kernel's fiber (engine.hpp says why)
  *why = "block " + first_finished_ +
         " ended without reaching it. Every thread of every block must reach each " + name_ +
         " (on the GPU the other blocks would wait forever)";
  return false;
}

void GridBarrier::block_finished(std::uint64_t block_linear, unsigned grid_x, unsigned grid_y,
                                 bool arrived) {
  std::lock_guard lock(mutex_);
  const CheckingAnAccess quiet;
  if (finished_++ == 0) {
    std::ostringstream b;
    b << "(" << block_linear % grid_x << "," << block_linear / grid_x % grid_y << ","
      << block_linear / (std::uint64_t{grid_x} * grid_y) << ")";
    first_finished_ = b.str();
  }
  if (arrived) {
    if (generation_excused_ != generation_) finished_arrived_ = 0;
    generation_excused_ = generation_;
    ++finished_arrived_;
  } else if (arrived_ > 0) {
    broken_ = true;
    wake_.notify_all();
  }
}

bool grid_is_valid() noexcept {
  const BlockRun* run = current_thread->run;
  return run && run->launch->cooperative;
}

void grid_sync(const std::source_location& site) {
  BlockRun* run = current_thread->run;
  if (!run) return;  // host code: nothing to wait for
  const unsigned me = current_thread->linear;
  LaunchState& launch = *run->launch;
  if (!launch.cooperative) {
    run->report(ReportKind::grid_sync, me,
                "grid.sync() in a kernel not launched with cudaLaunchCooperativeKernel: nothing "
                "makes its blocks resident together, so no barrier can wait for all of them. On "
                "the GPU this_grid().is_valid() is false here and sync() traps the kernel "
                "(cudaErrorLaunchFailure)",
                &site, cudaErrorLaunchFailure);
    run->abort_block();
  }
  // The block's last thread waits for the other blocks before it completes
  // the block's barrier, so no thread of the block passes before every
  // block has arrived.
  if (run->barrier_arrived + 1 == run->thread_count) {
    std::string why;
    if (!launch.grid_barrier->arrive_and_wait(&run->race_phase, &why)) {
      const CheckingAnAccess quiet;
      run->report(ReportKind::divergent_barrier, me,
                  "grid.sync() at " + format_site(site) + ": " + why, &site,
                  cudaErrorLaunchFailure);
      run->abort_block();
    }
  }
  run->barrier(0, site);
}

}  // namespace cudalab::emu::detail
