// What ran when on the emulator's modelled clock (docs/emulator.md, "The
// modelled clock"), as a result file's timeline: one row per stream, one
// span per operation (kernel, copy, memset, host function, allocation,
// free), in milliseconds from the first span's start.
//
//   cudalab::emu::start_modelled_timeline();
//   ... work on streams, then a synchronisation ...
//   result.add_timeline(cudalab::emu::take_modelled_timeline("4 streams"));
//
// An operation is in it once it ran: take the timeline after the host has
// waited for the work.
#pragma once

#include <string>

#include "cudalab/results.hpp"

namespace cudalab::emu {

// Starts collecting (again, from nothing).
void start_modelled_timeline();
// What ran since start_modelled_timeline; stops collecting.
Timeline take_modelled_timeline(std::string name);

}  // namespace cudalab::emu
