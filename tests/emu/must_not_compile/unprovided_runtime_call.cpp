// Must not compile: emulator code calling a CUDA runtime function that the
// emulator does not provide. Its test (tests/emu/CMakeLists.txt) passes when
// the compiler's message names the function.
#include "cudalab/kernel.hpp"

cudaError_t allocate_stream_ordered(cudaStream_t stream) {
  void* p = nullptr;
  return cudaMallocAsync(&p, 256, stream);
}
