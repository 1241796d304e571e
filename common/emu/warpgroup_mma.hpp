// Internal: the engine's view of the wgmma model (warpgroup_mma.cpp).
#pragma once

#include "block_run.hpp"

namespace cudalab::emu::detail {

// Called when nothing of the block can run: reports threads parked in a
// wgmma call that the rest of their warpgroup never makes; false if none.
bool report_stuck_warpgroup(BlockRun& run);

}  // namespace cudalab::emu::detail
