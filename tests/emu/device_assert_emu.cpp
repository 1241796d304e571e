// The assert kernels on the emulator: this file's rewritten copy includes
// the rewritten copy of device_assert.cuh beside it, instrumented.
#include "device_assert.cuh"

namespace device_assert {
const Kernels& emulator_kernels() { return kernels(&emulator_ndebug); }
int doubled_assert_line() { return device::kDoubledAssertLine; }
int guide_assert_line() { return device::kGuideAssertLine; }
}  // namespace device_assert
