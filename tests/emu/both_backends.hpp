// The fixture of the emulator's tests that run one feature's plain-CUDA code
// on both backends. The feature's header declares a table of functions
// (`Kernels`), the table of each build and why a GPU is not usable; the test
// derives its suite from OnBothBackends and instantiates it with
// EMU_TESTS_ON_BOTH_BACKENDS: Emu/... runs on the emulator, Gpu/... on the
// GPU, skipped with the reason where there is none.
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "cudalab/random.hpp"

namespace emu_tests {

enum class Backend { emulator, gpu };

inline void PrintTo(Backend backend, std::ostream* out) {
  *out << (backend == Backend::gpu ? "gpu" : "emulator");
}

template <class Kernels, const Kernels& (*EmulatorKernels)(), const Kernels& (*GpuKernels)(),
          std::string (*GpuUnavailableReason)()>
class OnBothBackends : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (gpu()) {
      const std::string why_not = GpuUnavailableReason();
      if (!why_not.empty()) GTEST_SKIP() << why_not;
    }
  }
  bool gpu() const { return GetParam() == Backend::gpu; }
  // The feature's code built for this test's backend.
  const Kernels& k() const { return gpu() ? GpuKernels() : EmulatorKernels(); }
  // Fresh inputs each run; CUDALAB_SEED=<seed> repeats a run's inputs.
  cudalab::Random rng_ = cudalab::Random::fresh();
};

}  // namespace emu_tests

#define EMU_TESTS_ON_BOTH_BACKENDS(Suite)                                                  \
  INSTANTIATE_TEST_SUITE_P(Emu, Suite, ::testing::Values(::emu_tests::Backend::emulator)); \
  INSTANTIATE_TEST_SUITE_P(Gpu, Suite, ::testing::Values(::emu_tests::Backend::gpu))
