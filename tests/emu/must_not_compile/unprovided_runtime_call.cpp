// Must not compile: emulator code calling a CUDA runtime function that the
// emulator does not provide. Its test (tests/emu/CMakeLists.txt) passes when
// the compiler's message names the function.
#include "cudalab/kernel.hpp"

cudaError_t share_with_another_process(void* device_pointer) {
  cudaIpcMemHandle_t handle;
  return cudaIpcGetMemHandle(&handle, device_pointer);
}
