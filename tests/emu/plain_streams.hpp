// Launchers of the plain-CUDA kernels in plain_streams.cpp (compiled with
// the emulator's instrumentation), each on the stream it is given: the
// producer and the consumer of the lecture's two-stream example.
#pragma once

#include <driver_types.h>

namespace plain_streams {

// a[i] = value for i < n.
void fill(float* a, int n, float value, cudaStream_t stream);
// *out = a[0] + ... + a[n-1], by one thread.
void sum(const float* a, int n, float* out, cudaStream_t stream);

}  // namespace plain_streams
