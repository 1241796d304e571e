// <cooperative_groups/scan.h> for the emulator build (see ../cooperative_groups.h).
#pragma once

#if defined(__CUDACC__)
#include_next <cooperative_groups/scan.h>  // nvcc: CUDA's own, unchanged
#else
#include "cudalab/emu/cooperative_groups_scan.hpp"
#endif
