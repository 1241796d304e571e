// A kernel storing to an element of a __constant__ array on line 7: the
// emulator's copy is read-only through the name, as nvcc requires.
#include "cudalab/kernel.hpp"

__constant__ float table[16];

__global__ void fill(float v) { table[threadIdx.x] = v; }
