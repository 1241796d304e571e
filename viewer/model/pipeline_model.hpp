// What the pipeline view draws: one block's async pipeline as the emulator
// ran it (cudalab::emu::AsyncEvent), on the timeline view's rows and spans.
// The x axis is the order of the block's async events: the emulator runs a
// block's threads one at a time, so that order is one real interleaving,
// not a clock. Rows: each barrier (the copies in flight on it, from issue to
// landing, and its phase completions), then each warp (its waits, from the
// first lane parking to the last one released, and its arrivals).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cudalab/emu/recorder.hpp"
#include "timeline_model.hpp"

namespace cudalab::viewer {

// The span kinds, for the legend and the tests.
inline constexpr const char* kCopyInFlight = "copy";  // the timeline's copy colour
inline constexpr const char* kWaiting = "wait";       // the timeline's wait colour
inline constexpr const char* kArrivals = "arrive";
inline constexpr const char* kPhaseDone = "phase done";

// `barrier_names[i]`: what the kernel calls its i-th barrier ("full[0]");
// missing ones are "barrier i".
Timeline pipeline_timeline(const emu::LaunchRecord& launch, std::uint32_t block,
                           const std::vector<std::string>& barrier_names = {});

}  // namespace cudalab::viewer
