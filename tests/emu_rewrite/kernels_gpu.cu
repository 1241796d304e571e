// nvcc compiles kernels/plain_kernels.cuh and host_builtin_names.cuh untouched: the files the
// emulator runs through the rewrite are valid CUDA as they stand. Compiled, not run here;
// the functions below instantiate every launch.
#include "host_builtin_names.cuh"
#include "plain_kernels.cuh"

void plain_kernels_on_gpu(float* a, const float* b, int* c, int n) {
  triple(a, b, n, 0);
  increment(a, n);
  fill_with(c, 1, n);
  reverse_blocks(a, 1, n);
}

void host_builtin_names_on_gpu(unsigned* out) { launch_through_host_names(out, 1, 32); }
