// A kernel storing to a __constant__ scalar on line 7: nvcc rejects it, and so
// must the emulator build, naming this file and line.
#include "cudalab/kernel.hpp"

__constant__ float scale;

__global__ void set_scale(float s) { scale = s; }
