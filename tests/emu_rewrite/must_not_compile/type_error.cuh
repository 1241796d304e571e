// A student's kernel file with a type error on line 5: the compiler must name
// this file and line, not the rewritten copy the emulator build compiles.
#include "cudalab/kernel.hpp"

__global__ void store(float* out) { out[0] = "not a number"; }

inline void launch_store(float* out) { store<<<1, 1>>>(out); }
