// What the emulator's workers are running right now, for a watchdog that
// must say where a kernel is stuck: which CUDA thread each worker is
// executing, the machine addresses of its stack (taken by interrupting the
// worker with a signal, so a loop without any memory access is caught too),
// and the state of its block (how many threads wait at a barrier, how many
// have finished).
#pragma once

#include <vector_types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace cudalab::emu {

struct RunningThread {
  std::string kernel;  // demangled name of the launch
  uint3 block{};
  uint3 thread{};
  unsigned block_threads = 0;  // threads in the block
  unsigned at_barrier = 0;     // waiting at __syncthreads()
  unsigned in_warp_op = 0;     // waiting in a warp collective (__shfl_sync, ...)
  unsigned at_mbarrier = 0;    // waiting for an mbarrier's phase (cuda::barrier, cuda::pipeline)
  unsigned finished = 0;       // returned from the kernel
  unsigned not_started = 0;    // not yet run at all (their fibers wait behind this one)
  std::string barrier_site;    // "file:line" of the barrier the waiters wait at, if any
  // Return addresses, innermost first: the interrupted instruction, then its callers.
  std::vector<const void*> stack;
};

// Interrupts every worker that is inside a kernel and describes what it runs.
// Empty when no kernel is running. Waits at most `patience` for the workers
// to answer. Call from a thread that is not an emulator worker.
std::vector<RunningThread> sample_running_threads(
    std::chrono::milliseconds patience = std::chrono::milliseconds(500));

// Called by each OS thread that runs blocks, once: makes it visible to
// sample_running_threads and gives it a signal stack, so that a fault in a
// CUDA thread whose stack overflowed can still be reported.
void register_worker_thread() noexcept;

}  // namespace cudalab::emu
