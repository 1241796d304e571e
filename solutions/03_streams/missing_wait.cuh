// Lab 03, exercise 2: the missing wait.
//
// The lecture's example: A is filled on the default stream (A.normal_())
// and summed on a side stream s (with torch.cuda.stream(s): A.sum()). The
// two streams are independent, so nothing stops the sum from reading A
// before the fill wrote it: s.wait_stream(torch.cuda.default_stream()) is
// what orders them. wait_stream is two runtime calls: record an event on
// the producing stream where its work ends, and make the consuming stream
// wait for that event. The host does not wait, and work issued on other
// streams keeps running (cudaDeviceSynchronize would also order the two, by
// stopping everything).
//
// The exercise is the TODO region of labs/03_streams/ in this file, from its
// `begin` line to its `end` line; README.md says what it wants.
#pragma once

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"
#include "stream_kernels.cuh"

namespace lab03 {
inline namespace CUDALAB_BACKEND {

// Fills a[0..n) with `value` on the legacy default stream, then sums it into
// *out on `side` (a non-blocking stream). `filled` is an event the caller
// created for this (cudaEventDisableTiming).
// (`filled` is [[maybe_unused]] only so that the stub in labs/ compiles
// without warnings.)
inline void produce_then_consume(float* a, int n, float value, float* out, cudaStream_t side,
                                 [[maybe_unused]] cudaEvent_t filled) {
  fill(a, n, value, cudaStreamLegacy);
  CUDA_CHECK(cudaEventRecord(filled, cudaStreamLegacy));
  CUDA_CHECK(cudaStreamWaitEvent(side, filled, 0));
  sum(a, n, out, side);
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab03
