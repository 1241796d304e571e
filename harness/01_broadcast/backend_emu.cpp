// Lab 01 on the CPU emulator: the lab's .cuh files compiled by the host
// compiler (cudalab/kernel.hpp includes the emulator's shim), behind Backend.
// Built twice: over the graded code, and over solutions/ with
// CUDALAB_REFERENCE=1 (cmake/CudalabLab.cmake).
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
#endif

}  // namespace lab01::harness
