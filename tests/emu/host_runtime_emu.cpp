// Device flags, registered memory and profiler ranges on the emulator: this
// file's rewritten copy includes the rewritten copy of host_runtime.cuh.
#include "host_runtime.cuh"

namespace host_runtime {
const Kernels& emulator_kernels() { return kernels(); }
}  // namespace host_runtime
