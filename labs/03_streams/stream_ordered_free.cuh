// Lab 03, exercise 4: stream-ordered allocation.
//
// cudaMallocAsync and cudaFreeAsync allocate and free in stream order: the
// free happens when the stream reaches it, and the block is at once
// available to later cudaMallocAsync calls on the same stream. The
// lecture's hazard comes back in a new form: A is allocated, filled and
// freed on the default stream and summed on a side stream; the free is
// ordered after the fill, not after the sum, so the next allocation on the
// default stream can get A's memory and write it while the sum reads it. The
// fix orders the free after the sum, on the device: the default stream waits
// for an event recorded on the side stream after the sum. A host sync
// (cudaStreamSynchronize, cudaDeviceSynchronize) also orders them, by
// stopping the host and with it all the work it would issue next.
//
// The exercise is the TODO region of labs/03_streams/ in this file, from its
// `begin` line to its `end` line; README.md says what it wants.
#pragma once

#include <cstddef>

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"
#include "stream_kernels.cuh"

namespace lab03 {
inline namespace CUDALAB_BACKEND {

// A (n floats) from cudaMallocAsync on the legacy default stream, filled
// with `value` there, summed into *out on `side` (a non-blocking stream),
// and freed with cudaFreeAsync on the default stream. `filled` and
// `summed` are events the caller created for this (cudaEventDisableTiming).
// Returns A's address (already freed: for comparing only).
// (`summed` is [[maybe_unused]] only so that the stub in labs/ compiles
// without warnings.)
inline const void* produce_consume_free(int n, float value, float* out, cudaStream_t side,
                                        cudaEvent_t filled, [[maybe_unused]] cudaEvent_t summed) {
  float* a = nullptr;
  CUDA_CHECK(cudaMallocAsync(&a, static_cast<std::size_t>(n) * sizeof(float), cudaStreamLegacy));
  fill(a, n, value, cudaStreamLegacy);
  CUDA_CHECK(cudaEventRecord(filled, cudaStreamLegacy));
  CUDA_CHECK(cudaStreamWaitEvent(side, filled, 0));
  sum(a, n, out, side);
  // TODO(ex4) begin, about 2 lines: the default stream must not free A
  // before the side stream's sum is done, and the host must not wait.
  // TODO(ex4) end
  CUDA_CHECK(cudaFreeAsync(a, cudaStreamLegacy));
  return a;
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab03
