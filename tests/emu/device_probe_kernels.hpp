// Launchers of the device probes' kernels (device_probe_kernels.cuh), each
// on the current device and the stream it is given. The launch's error is
// left for cudaGetLastError, as a triple-chevron launch leaves it.
//
// The kernels sit apart from the probes, and only this file is instrumented
// on the emulator, because the probes build strings: before the emulator
// ignored its own accesses while checking one, an instrumented unit's copies
// of std::string's members made its reports recurse until the stack
// overflowed (found with these probes; docs/emulator.md, "Peer access";
// test_emu_report_reentry now covers it).
#pragma once

#include "cudalab/kernel.hpp"

namespace device_probes {
inline namespace CUDALAB_BACKEND {

// a[i] = value for i < n (one block), after `spin_ns` nanoseconds of the
// global timer (on the emulator, of the modelled clock).
void launch_late_fill(float* a, int n, float value, unsigned long long spin_ns,
                      cudaStream_t stream);

// to[i] = from[i] for i < n (one block).
void launch_copy(const float* from, float* to, int n, cudaStream_t stream);

}  // namespace CUDALAB_BACKEND
}  // namespace device_probes
