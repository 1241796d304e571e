// A deliberately broken "lab" for testing the shared harness itself: one
// exercise per way student code goes wrong (right, crashes in a kernel,
// never ends, right values from a racy kernel, right values from two
// streams that nothing orders). Emulator only: the host
// compiler builds it against the emulator's shim.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/harness/device_call.hpp"
#include "cudalab/harness/testing.hpp"
#include "cudalab/kernel.hpp"

namespace fixture {

using cudalab::global_ptr;

// Kernels outside the anonymous namespace: the emulator names a kernel by
// its exported symbol.

__global__ void copy_kernel(global_ptr<float> out, global_ptr<const float> in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// Thread 5 of block 1 writes through a pointer into nothing.
__global__ void crash_kernel(global_ptr<float> out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x == 1 && threadIdx.x == 5) *reinterpret_cast<volatile int*>(16) = 1;
  if (i < n) out[i] = 0.0f;
}

__global__ void endless_kernel(global_ptr<float> out) {
  volatile bool forever = true;
  while (forever) {
  }
  out[0] = 1.0f;
}

// Every thread writes the same value to out[0]: the right answer, by a race.
__global__ void racy_kernel(global_ptr<float> out) { out[0] = 42.0f; }

namespace {

// The same copy on the default stream and on a non-blocking stream: the
// right values whichever runs last, but a race between streams.
void copy_on_two_streams(float* out, const float* in, int n) {
  cudaStream_t side = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  cudalab::launch(copy_kernel, cudalab::LaunchShape{dim3(2), dim3(64), 0, side}, out, in, n);
  cudalab::launch(copy_kernel, dim3(2), dim3(64), out, in, n);
  CUDA_CHECK(cudaStreamDestroy(side));  // its work still runs, at the next synchronisation
}

class Backend : public cudalab::harness::BackendBase {
 public:
  virtual cudalab::harness::Observation run(const std::string& what, std::vector<float>& out) = 0;
};

class EmulatorBackend final : public cudalab::harness::BackendFor<Backend> {
 public:
  cudalab::harness::Observation run(const std::string& what, std::vector<float>& out) override {
    const int n = static_cast<int>(out.size());
    cudalab::DeviceBuffer<float> in(std::vector<float>(out.size(), 42.0f));
    return cudalab::harness::call_on_output(out, {}, [&](float* device) {
      if (what == "copy") cudalab::launch(copy_kernel, dim3(2), dim3(64), device, in.data(), n);
      if (what == "crash") cudalab::launch(crash_kernel, dim3(2), dim3(64), device, n);
      if (what == "endless") cudalab::launch(endless_kernel, dim3(1), dim3(1), device);
      if (what == "racy") cudalab::launch(racy_kernel, dim3(1), dim3(64), device);
      if (what == "two streams") copy_on_two_streams(device, in.data(), n);
    });
  }
};

std::unique_ptr<Backend> make_emulator() { return std::make_unique<EmulatorBackend>(); }
std::unique_ptr<Backend> make_no_gpu(std::string* why_not) {
  *why_not = "the harness fixture runs on the emulator only";
  return nullptr;
}

using OnBackend = cudalab::harness::OnBackend<Backend, make_emulator, make_no_gpu>;
class Fixture : public OnBackend {
 protected:
  void expect_42(const std::string& what) {
    std::vector<float> out(what == "racy" ? 1 : 100, 0.0f);
    const auto run = backend().run(what, out);
    ASSERT_TRUE(cudalab::harness::ran(run)) << what;
    EXPECT_TRUE(cudalab::harness::matches(out, std::vector<float>(out.size(), 42.0f), {}, what));
  }
};

const bool titled = cudalab::harness::describe_exercise(1, "right") &&
                    cudalab::harness::describe_exercise(2, "crashes in a kernel") &&
                    cudalab::harness::describe_exercise(3, "never ends") &&
                    cudalab::harness::describe_exercise(4, "right values from a racy kernel") &&
                    cudalab::harness::describe_exercise(5, "right values from unordered streams");

TEST_P(Fixture, Ex1_Right) {
  expect_42("copy");
  cudalab::harness::note("a note from exercise 1");
}
TEST_P(Fixture, Ex2_CrashesInAKernel) { expect_42("crash"); }
TEST_P(Fixture, Ex3_NeverEnds) { expect_42("endless"); }
TEST_P(Fixture, Ex4_RightValuesFromARacyKernel) { expect_42("racy"); }
TEST_P(Fixture, Ex5_RightValuesFromUnorderedStreams) { expect_42("two streams"); }

CUDALAB_ON_BOTH_BACKENDS(Fixture);

}  // namespace
}  // namespace fixture
