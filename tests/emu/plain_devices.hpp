// Launchers of the plain-CUDA kernels in plain_devices.cpp (compiled with
// the emulator's instrumentation), each on the current device and the
// stream it is given: a store, and a kernel that waits for another kernel's
// store (what ranks on several GPUs do when they signal each other).
#pragma once

#include <driver_types.h>

namespace plain_devices {

// *target = value, by one thread.
void store(int* target, int value, cudaStream_t stream);

// Sets *started, then polls *flag until it is nonzero or `max_polls` polls
// have read zero (a bound, so that a kernel that never sees the flag ends
// the test instead of hanging it); *seen = the last value read.
void wait_for_flag(int* started, const int* flag, long long max_polls, int* seen,
                   cudaStream_t stream);

}  // namespace plain_devices
