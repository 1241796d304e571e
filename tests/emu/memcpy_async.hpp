// libcu++'s cuda::barrier, cuda::pipeline and cuda::memcpy_async on both
// backends: memcpy_async.cuh holds the kernels and their launches as plain
// CUDA including <cuda/barrier> and <cuda/pipeline>, compiled for the
// emulator (memcpy_async_emu.cpp, rewritten and instrumented, against the
// emulator's headers) and by nvcc (memcpy_async_gpu.cu, against libcu++);
// test_memcpy_async.cpp runs each on both and checks the values, and the
// emulator's reports of the planted bugs.
#pragma once

#include <string>
#include <vector>

namespace memcpy_async_tests {

// How the tiled sum issues each tile's copy.
enum class CopyForm {
  whole_block,  // cuda::memcpy_async(this_thread_block(), ...): every thread calls it
  one_thread,   // thread 0 calls cuda::memcpy_async(dst, src, bytes, bar)
};

// A bug planted in a kernel (emulator only: on a GPU each reads stale
// bytes or hangs).
enum class Planted {
  none,
  read_before_wait,  // threads read the staged bytes before the barrier's or stage's wait
  count_too_small,   // the barrier is initialised with one arrival fewer than the block's threads
  count_too_large,   // ... with one arrival more
  broken_alignment,  // thread 0 promises cuda::aligned_size_t<16> for a last tile of 180 bytes
};

// One backend's launches.
struct Kernels {
  // partial[b * threads + t]: thread t of block b's sum of the elements
  // i = t, t + threads, ... of each tile it reads, in order. Block b reads
  // tiles b, b + blocks, ... of `tile` floats (the last one partial), each
  // staged in shared memory by cuda::memcpy_async on a cuda::barrier of the
  // block, with arrive_and_wait (and once arrive + wait(token)) around it.
  std::vector<float> (*tiled_sum)(const std::vector<float>& in, int tile, unsigned blocks,
                                  unsigned threads, CopyForm form, Planted bug);
  // out[i] = 2 * in[i] - 1 (one rounding, with or without a fused
  // multiply-add), every thread fetching its elements (grid-stride)
  // `stages` - 1 ahead through a cuda::pipeline<cuda::thread_scope_thread>
  // of `stages` (2 to 4) slots of shared memory; `wait_prior`: waits with
  // pipeline_consumer_wait_prior<stages - 1> instead of consumer_wait.
  std::vector<float> (*pipelined_scale)(const std::vector<float>& in, int stages, bool wait_prior,
                                        unsigned blocks, unsigned threads, Planted bug);
  // As tiled_sum, through a two-stage cuda::pipeline of the block
  // (pipeline_shared_state, make_pipeline(block, &state)).
  std::vector<float> (*block_pipeline_sum)(const std::vector<float>& in, int tile, unsigned blocks,
                                           unsigned threads);
};

const Kernels& emulator_kernels();
const Kernels& gpu_kernels();
std::string gpu_unavailable_reason();

// The emulator's reports of a run with a planted bug: every report as
// "kind at file:line: message" (the file without its folders), one a line,
// and whether the launch failed.
struct PlantedReport {
  std::string reports;
  bool failed_launch = false;
};
PlantedReport tiled_sum_report(Planted bug);
PlantedReport pipelined_scale_report(Planted bug);

}  // namespace memcpy_async_tests
