// Plain-CUDA kernels for the tests of several devices; the test builds the
// rewritten, instrumented copy, so every access is checked against the
// device that owns the memory.
#include "plain_devices.hpp"

#include "cudalab/kernel.hpp"

namespace plain_devices {

// Not in an anonymous namespace: reports name kernels through their
// exported symbols.
namespace device {

__global__ void store_kernel(int* target, int value) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *target = value;
}

__global__ void wait_for_flag_kernel(int* started, const int* flag, long long max_polls,
                                     int* seen) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  *static_cast<volatile int*>(started) = 1;
  const volatile int* poll = flag;
  int value = *poll;
  for (long long polls = 1; value == 0 && polls < max_polls; ++polls) value = *poll;
  *seen = value;
}

}  // namespace device

void store(int* target, int value, cudaStream_t stream) {
  device::store_kernel<<<1, 32, 0, stream>>>(target, value);
}

void wait_for_flag(int* started, const int* flag, long long max_polls, int* seen,
                   cudaStream_t stream) {
  device::wait_for_flag_kernel<<<1, 32, 0, stream>>>(started, flag, max_polls, seen);
}

}  // namespace plain_devices
