// A kernel template whose argument CUDA deduces through `const T*`, launched
// with a `float*` (line 10): the emulator cannot deduce it, and the compiler
// must say, at that line, to write the template argument out.
#include "cudalab/kernel.hpp"

template <class T>
__global__ void copy(const T* in, T* out) {
  out[0] = in[0];
}
inline void launch_copy(float* in, float* out) { copy<<<1, 1>>>(in, out); }
