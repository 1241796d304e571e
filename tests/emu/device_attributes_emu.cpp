// The attribute queries on the emulator: this file's rewritten copy includes
// the rewritten copy of device_attributes.cuh beside it.
#include "device_attributes.cuh"

namespace device_attributes {
const Kernels& emulator_kernels() { return kernels(); }
}  // namespace device_attributes
