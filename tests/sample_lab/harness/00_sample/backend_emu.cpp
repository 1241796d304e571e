// Lab 00 on the CPU emulator.
#include <memory>

#include "backend_impl.hpp"

namespace lab00::harness {

std::unique_ptr<Backend> make_emulator_backend() { return std::make_unique<on_emu::LabBackend>(); }

}  // namespace lab00::harness
