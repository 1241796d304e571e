// CUDA graphs made by stream capture, on both backends: graphs.cuh holds the
// kernels and host code as plain CUDA, built for the emulator (graphs_emu.cpp,
// rewritten and instrumented) and by nvcc (graphs_gpu.cu); test_graphs.cpp
// expects the same from each (docs/emulator.md, "Graphs").
#pragma once

#include <driver_types.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace graphs {

struct ChainOutcome {
  std::vector<float> after_capture;         // the output buffer once capture ended: untouched
  std::vector<std::vector<float>> outputs;  // one per launch
  std::size_t nodes = 0;                    // cudaGraphGetNodes
};

struct ForkJoinOutcome {
  std::vector<float> output;
  std::size_t nodes = 0;
};

struct Kernels {
  // On a created stream, captures: copy inputs' pinned host buffer in,
  // y = a*x + 1, y = b*y (kernels in blocks of `block`), copy y out to pinned
  // host memory. Instantiates the graph and launches it once per input, the
  // host writing that input into the pinned buffer before each launch and
  // reading the output after cudaStreamSynchronize.
  ChainOutcome (*chain)(const std::vector<std::vector<float>>& inputs, float a, float b,
                        unsigned block);
  // A fork and a join: origin stream copies x in and records an event, a
  // second stream waits for it; each stream scales its half of x by `a`
  // (kernels); the second records an event the origin waits for; the origin
  // copies the result out. Launched on the legacy default stream when
  // `on_legacy`, else on a created stream.
  ForkJoinOutcome (*fork_join)(const std::vector<float>& x, float a, unsigned block,
                               bool on_legacy);
  // Milliseconds between events around one launch of a graph of two kernels
  // that each spin `spin_ms` on the global timer: captured on two streams
  // (fork and join) when `forked`, else one after the other on one stream.
  float (*elapsed_two_spins)(float spin_ms, bool forked);
  // The errors of misused capture, named: what the backend returned.
  std::vector<std::pair<std::string, cudaError_t>> (*capture_errors)();
};

const Kernels& emulator_kernels();
const Kernels& gpu_kernels();
std::string gpu_unavailable_reason();

// Emulator only: a graph whose two branches write the same buffer, joined
// (`ordered`: the second branch waits for the first) or not; launched once,
// then synchronised. The race, if any, is in the caller's Recording.
void emulator_two_writers(bool ordered);

}  // namespace graphs
