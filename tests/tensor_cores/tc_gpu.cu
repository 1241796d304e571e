// The GPU build of tc_kernels.cuh.
#include "tc_kernels.cuh"
