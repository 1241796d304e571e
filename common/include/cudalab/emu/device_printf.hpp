// Device printf and the device limits for the host compiler (docs/emulator.md,
// "Device printf, assert and managed memory").
//
// tools/emu_rewrite.py turns `printf(`, `::printf(` and `std::printf(` in a
// rewritten file into `::cudalab::emu::device_printf(`: called by a CUDA
// thread it formats into its device's FIFO, which is written to stdout at the
// next flush point (a launch, a synchronisation, a blocking copy,
// cudaDeviceReset), as the GPU buffers it; called by host code it is vprintf.
// A macro named printf would break `std::printf` and any later header that
// declares a printf of its own, hence the rewrite.
#pragma once

#include <driver_types.h>

#include <cstddef>

#include "cudalab/emu/runtime.hpp"

namespace cudalab::emu {

// In a kernel: the number of arguments the format names, as CUDA's printf
// returns (0 without arguments, -1 for a null format), also when the FIFO
// is full and the record is dropped. In host code: what vprintf returns.
int device_printf(const char* format, ...) __attribute__((format(printf, 1, 2)));

// cudaDeviceSetLimit and cudaDeviceGetLimit (the printf FIFO's size among
// the limits) are declared from the table runtime_api.def, in runtime.hpp.

}  // namespace cudalab::emu
