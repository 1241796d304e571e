// Lab 05 on the CPU emulator, and (CUDALAB_INTERPRET=1) on the tile
// interpreter; each built over the graded code and over solutions/
// (CUDALAB_REFERENCE=1).
#include <memory>

#include "backend_impl.hpp"

namespace lab05::harness {

#if CUDALAB_INTERPRET && CUDALAB_REFERENCE
std::unique_ptr<Backend> make_reference_interpreter_backend() {
  return std::make_unique<LabBackend>();
}
#elif CUDALAB_INTERPRET
std::unique_ptr<Backend> make_interpreter_backend() { return std::make_unique<LabBackend>(); }
#elif CUDALAB_REFERENCE
std::unique_ptr<Backend> make_reference_emulator_backend() {
  return std::make_unique<LabBackend>();
}
#else
std::unique_ptr<Backend> make_emulator_backend() { return std::make_unique<LabBackend>(); }
#endif

}  // namespace lab05::harness
