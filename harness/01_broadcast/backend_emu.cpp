// Lab 01 on the CPU emulator: the lab's .cuh files compiled by the host
// compiler (cudalab/kernel.hpp includes the emulator's shim), behind Backend.
#include <cuda_fp16.h>

#include <memory>

#include "backend.hpp"
#include "backend_impl.hpp"

namespace lab01::harness {

std::unique_ptr<Backend> make_emulator_backend() { return std::make_unique<on_emu::LabBackend>(); }

// Defined once, here: CUDA's conversions are host functions too.
std::uint16_t float_to_half_bits(float value) { return __half_as_ushort(__float2half_rn(value)); }
float half_bits_to_float(std::uint16_t bits) { return __half2float(__ushort_as_half(bits)); }

}  // namespace lab01::harness
