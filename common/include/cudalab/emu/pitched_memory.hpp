// Pitched (2D) device memory in the emulator build: cudaMallocPitch,
// cudaMemcpy2D[Async], cudaMemset2D[Async], with CUDA's signatures and error
// codes (docs/emulator.md, "Constant memory and pitched memory"). They are
// declared from the table runtime_api.def (runtime.hpp); here, the pitch's
// constants and the typed overload of cudaMallocPitch.
#pragma once

#include <driver_types.h>

#include <cstddef>

#include "cudalab/emu/runtime.hpp"

namespace cudalab::emu {

// The pitch cudaMallocPitch gives: the width rounded up to this many bytes.
// Our best reading of the H200 (textureAlignment is 512 there); the GPU test
// test_emu_pitched_memory prints and checks the GPU's own pitches.
inline constexpr std::size_t kPitchAlignment = 512;
// The largest pitch a 2D copy accepts (cudaDeviceProp::memPitch).
inline constexpr std::size_t kMaxPitch = 0x7fffffff;

template <class T>
cudaError_t cudaMallocPitch(T** ptr, std::size_t* pitch, std::size_t width, std::size_t height) {
  return ::cudalab::emu::cudaMallocPitch(reinterpret_cast<void**>(ptr), pitch, width, height);
}
}  // namespace cudalab::emu
