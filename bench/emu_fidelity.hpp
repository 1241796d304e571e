// The emulator's side of the ncu comparison (docs/emulator.md, "Fidelity on
// the GPU"): tests/emu/fidelity_kernels.cuh run on the emulator, each launch
// recorded. emu_fidelity.cpp is the instrumented translation unit.
#pragma once

#include <string>
#include <vector>

#include "cudalab/emu/recorder.hpp"

namespace emu_bench {

struct FidelityRecord {
  std::string kernel;
  cudalab::emu::Coalescing coalescing;         // global loads, stores, atomics
  cudalab::emu::BankConflicts bank_conflicts;  // shared loads, stores
  cudalab::emu::ConstantStats constant_loads;  // reads of __constant__ variables
};

// One record per kernel of fidelity_kernels.cuh, in run_all's order.
std::vector<FidelityRecord> run_fidelity_kernels();

}  // namespace emu_bench
