// Pitched (2D) device memory in the emulator build: cudaMallocPitch,
// cudaMemcpy2D[Async], cudaMemset2D[Async], with CUDA's signatures and error
// codes (docs/emulator.md, "Constant memory and pitched memory").
#pragma once

#include <driver_types.h>

#include <cstddef>

namespace cudalab::emu {

// The pitch cudaMallocPitch gives: the width rounded up to this many bytes.
// Our best reading of the H200 (textureAlignment is 512 there); the GPU test
// test_emu_pitched_memory prints and checks the GPU's own pitches.
inline constexpr std::size_t kPitchAlignment = 512;
// The largest pitch a 2D copy accepts (cudaDeviceProp::memPitch).
inline constexpr std::size_t kMaxPitch = 0x7fffffff;

cudaError_t cudaMallocPitch(void** ptr, std::size_t* pitch, std::size_t width, std::size_t height);
template <class T>
cudaError_t cudaMallocPitch(T** ptr, std::size_t* pitch, std::size_t width, std::size_t height) {
  return ::cudalab::emu::cudaMallocPitch(reinterpret_cast<void**>(ptr), pitch, width, height);
}
cudaError_t cudaMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                         std::size_t width, std::size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                              std::size_t width, std::size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream = nullptr);
cudaError_t cudaMemset2D(void* ptr, std::size_t pitch, int value, std::size_t width,
                         std::size_t height);
cudaError_t cudaMemset2DAsync(void* ptr, std::size_t pitch, int value, std::size_t width,
                              std::size_t height, cudaStream_t stream = nullptr);

}  // namespace cudalab::emu
