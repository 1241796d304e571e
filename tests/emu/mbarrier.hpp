// mbarriers and bulk async copies on both backends: mbarrier.cuh holds the
// kernels and their launches as plain CUDA, compiled for the emulator
// (mbarrier_emu.cpp, rewritten and instrumented) and by nvcc
// (mbarrier_gpu.cu); test_mbarrier.cpp runs each on both and checks the
// values, and the emulator's reports of the planted bugs.
#pragma once

#include <string>
#include <vector>

namespace mbarrier_tests {

// A bug planted in the producer/consumer kernel (emulator only: on a GPU
// each reads stale bytes or hangs).
enum class Planted {
  none,
  read_before_wait,  // consumers read the stage before waiting on its "full" barrier
  missing_arrive,    // the last thread never arrives on the "empty" barrier
  wrong_expect_tx,   // the producer announces 16 bytes more than it copies
  wrong_parity,      // consumers wait on the parity of the phase before
};

// One backend's launches.
struct Kernels {
  // out[i] = 2 * in[i] + 1, through a two-stage ring of shared buffers: one
  // producer thread per block fills a stage with a bulk copy of `chunk`
  // floats (a multiple of 4) that completes on the stage's "full" mbarrier
  // (expect_tx), every thread consumes it and arrives on its "empty"
  // mbarrier. Blocks take chunks grid-stride; in.size() a multiple of 4.
  std::vector<float> (*double_buffered)(const std::vector<float>& in, int chunk, unsigned blocks,
                                        unsigned threads, Planted bug);
  // Each thread arrives `rounds` times on one barrier of count blockDim.x
  // (the last thread with arrive_drop in round 0, leaving it out after) and
  // waits on each phase by parity; out[t] counts the phases it saw complete.
  std::vector<int> (*phases)(unsigned threads, int rounds);
};

const Kernels& emulator_kernels();
const Kernels& gpu_kernels();
std::string gpu_unavailable_reason();

// The emulator's reports for a planted bug: every report's kind and
// message ("kind: message", one a line), and whether the launch failed.
struct PlantedReport {
  std::string reports;
  bool failed_launch = false;
  std::vector<float> out;
};
PlantedReport emulator_report(Planted bug);

}  // namespace mbarrier_tests
