// Lab 01 on the CPU emulator: the lab's .cuh files compiled by the host
// compiler (cudalab/kernel.hpp includes the emulator's shim), behind Backend.
// Built twice: over the graded code, and over solutions/ with
// CUDALAB_REFERENCE=1 (cmake/CudalabLab.cmake).
#include <cuda_fp16.h>

#include <memory>

#include "backend.hpp"
#include "backend_impl.hpp"

namespace lab01::harness {

#if CUDALAB_REFERENCE
std::unique_ptr<Backend> make_reference_emulator_backend() {
  return std::make_unique<LabBackend>();
}
#else
std::unique_ptr<Backend> make_emulator_backend() { return std::make_unique<LabBackend>(); }

// Defined once, here: CUDA's conversions are host functions too.
std::uint16_t float_to_half_bits(float value) { return __half_as_ushort(__float2half_rn(value)); }
float half_bits_to_float(std::uint16_t bits) { return __half2float(__ushort_as_half(bits)); }
#endif

}  // namespace lab01::harness
