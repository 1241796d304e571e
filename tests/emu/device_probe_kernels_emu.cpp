// The device probes' kernels on the emulator: this file's rewritten copy
// includes the rewritten copy of device_probe_kernels.cuh beside it, and is
// the one translation unit of the probes compiled with instrumentation.
#include "device_probe_kernels.cuh"
