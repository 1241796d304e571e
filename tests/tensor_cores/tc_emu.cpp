// The emulator build of tc_kernels.cuh: CMake compiles the rewritten copy of
// this file (its quoted include finds the rewritten kernels), instrumented.
#include "tc_kernels.cuh"
