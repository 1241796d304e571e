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

#include "cudalab/emu/runtime.hpp"

namespace cudalab::emu {

// cudaMallocManaged, cudaMemPrefetchAsync and cudaMemAdvise are declared from
// the table runtime_api.def (runtime.hpp); here, the typed overload it names.
template <class T>
cudaError_t cudaMallocManaged(T** ptr, std::size_t bytes,
                              unsigned int flags = cudaMemAttachGlobal) {
  return ::cudalab::emu::cudaMallocManaged(reinterpret_cast<void**>(ptr), bytes, flags);
}
}  // namespace cudalab::emu
