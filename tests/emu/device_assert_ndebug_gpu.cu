// The NDEBUG kernel on the GPU.
#include "device_assert_ndebug.cuh"

namespace device_assert {
int gpu_ndebug() { return ndebug(); }
}  // namespace device_assert
