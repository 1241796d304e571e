// Turns what the emulator recorded for one launch (cudalab/emu/recorder.hpp)
// into the viewer's KernelRun: who wrote each output element, and every
// warp-wide global memory request with its lane addresses.
#pragma once

#include <cstdint>
#include <string>

#include "cudalab/emu/recorder.hpp"
#include "cudalab/harness/observation.hpp"
#include "kernel_run.hpp"

namespace cudalab::viewer {

// Where the output tensor lives in emulated device memory.
struct OutputTensor {
  const void* base = nullptr;
  std::size_t element_bytes = 4;
  std::uint64_t rows = 0, cols = 0;
};

KernelRun kernel_run_from_launch(const emu::LaunchRecord& launch, const OutputTensor& output);

// What went wrong in a lab call the viewer ran: the exception the lab code
// threw, then the emulator's first three reports (and how many more).
std::string run_problems(const harness::Observation& seen, const emu::Recording& recording);

}  // namespace cudalab::viewer
