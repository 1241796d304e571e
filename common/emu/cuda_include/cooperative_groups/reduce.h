// <cooperative_groups/reduce.h> for the emulator build (see ../cooperative_groups.h).
#pragma once

#if defined(__CUDACC__)
#include_next <cooperative_groups/reduce.h>  // nvcc: CUDA's own, unchanged
#else
#include "cudalab/emu/cooperative_groups_reduce.hpp"
#endif
