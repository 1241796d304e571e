// The NDEBUG kernel on the emulator (its rewritten copy, as device_assert_emu.cpp).
#include "device_assert_ndebug.cuh"

namespace device_assert {
int emulator_ndebug() { return ndebug(); }
}  // namespace device_assert
