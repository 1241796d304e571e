// Launchers of the plain-CUDA kernels in plain_streams.cpp (compiled with
// the emulator's instrumentation), each on the stream it is given: the
// producer and the consumer of the lecture's two-stream example, and spins
// that last a given time on the modelled clock.
#pragma once

#include <driver_types.h>

#include <cstdint>

namespace plain_streams {

// a[i] = value for i < n.
void fill(float* a, int n, float value, cudaStream_t stream);
// *out = a[0] + ... + a[n-1], by one thread.
void sum(const float* a, int n, float* out, cudaStream_t stream);
// One thread that lasts `ns` by cudalab::globaltimer_ns(), sleeping between
// reads; the same without the sleep.
void spin(std::uint64_t ns, cudaStream_t stream);
void spin_on_the_timer_alone(std::uint64_t ns, cudaStream_t stream);
// One thread in one __nanosleep(ns).
void sleep(unsigned ns, cudaStream_t stream);

}  // namespace plain_streams
