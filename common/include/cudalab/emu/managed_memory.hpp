// Unified (managed) memory for the host compiler (docs/emulator.md, "Device
// printf, assert and managed memory"). Kernels reach it as global memory
// (traced and checked); the host reaches it directly, except between a
// kernel launch and the synchronisation that waits for it: the emulator
// models a device without concurrent managed access
// (cudaDevAttrConcurrentManagedAccess = 0), and such a host access is
// reported and ends the process with SIGSEGV, as on such a device.
#pragma once

#include <driver_types.h>

#include <cstddef>

namespace cudalab::emu {

// flags: cudaMemAttachGlobal or cudaMemAttachHost; anything else, or 0
// bytes, is cudaErrorInvalidValue. Freed by cudaFree. The memory reads as
// zeros, as fresh managed pages do on the GPU.
cudaError_t cudaMallocManaged(void** ptr, std::size_t bytes,
                              unsigned int flags = cudaMemAttachGlobal);
template <class T>
cudaError_t cudaMallocManaged(T** ptr, std::size_t bytes,
                              unsigned int flags = cudaMemAttachGlobal) {
  return ::cudalab::emu::cudaMallocManaged(reinterpret_cast<void**>(ptr), bytes, flags);
}
// CUDA 13's signatures (a cudaMemLocation, not a device ordinal). Both check
// their arguments as the GPU does and change nothing else: the emulator has
// one memory. A prefetch is an operation of `stream`, ordered as a copy is.
cudaError_t cudaMemPrefetchAsync(const void* ptr, std::size_t bytes, cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream = nullptr);
cudaError_t cudaMemAdvise(const void* ptr, std::size_t bytes, cudaMemoryAdvise advice,
                          cudaMemLocation location);

}  // namespace cudalab::emu
