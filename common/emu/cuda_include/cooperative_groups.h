// <cooperative_groups.h> for the emulator build: the host compiler finds this
// file before the CUDA toolkit's (whose contents exist only under nvcc).
// The emulator's cooperative groups are in cudalab/emu/cooperative_groups.hpp.
#pragma once

#if defined(__CUDACC__)
#include_next <cooperative_groups.h>  // nvcc: CUDA's own, unchanged
#else
#include "cudalab/emu/cooperative_groups.hpp"
#endif
