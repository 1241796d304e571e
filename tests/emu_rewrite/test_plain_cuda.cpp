// kernels/plain_kernels.cuh, plain CUDA rewritten by cudalab_emu_rewrite and
// compiled by the host compiler, runs on the emulator: launches of a template
// kernel with and without its template arguments written out, of a plain
// kernel with a stream argument, and dynamic shared memory;
// kernels/host_builtin_names.cuh, host variables and members named gridDim and
// blockDim beside kernels that read the builtins.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/random.hpp"
#include "host_builtin_names.cuh"  // rewritten copies, as plain_kernels.cuh
#include "plain_kernels.cuh"       // the rewritten copy: the include path names its folder

namespace {

std::vector<float> random_floats(int n) {
  static cudalab::Random rng = cudalab::Random::fresh();
  return rng.uniform(n, -1.0f, 1.0f);
}

TEST(EmuRewrite, TemplateKernelWithExplicitArgumentsAndAStream) {
  const int n = 1031;  // the last block is partly idle
  const std::vector<float> in = random_floats(n);
  cudalab::DeviceBuffer<float> d_in(in);
  cudalab::DeviceBuffer<float> d_out(n);
  triple(d_out.data(), d_in.data(), n, 0);
  CUDA_CHECK_LAUNCH();
  const std::vector<float> out = d_out.copy_to_host();
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i] * 3.0f) << "at " << i;
}

TEST(EmuRewrite, PlainKernelWithDim3Shape) {
  const int n = 200;
  const std::vector<float> in = random_floats(n);
  cudalab::DeviceBuffer<float> data(in);
  increment(data.data(), n);
  CUDA_CHECK_LAUNCH();
  const std::vector<float> out = data.copy_to_host();
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i] + 1.0f) << "at " << i;
}

TEST(EmuRewrite, TemplateKernelDeducedFromTheArguments) {
  const int n = 77;
  cudalab::DeviceBuffer<int> data(std::vector<int>(n, 0));
  fill_with(data.data(), 42, n);
  CUDA_CHECK_LAUNCH();
  EXPECT_EQ(data.copy_to_host(), std::vector<int>(n, 42));
}

TEST(EmuRewrite, DynamicSharedMemoryFromTheThirdChevronArgument) {
  const int blocks = 3;
  const int block_size = 64;
  const std::vector<float> in = random_floats(blocks * block_size);
  cudalab::DeviceBuffer<float> data(in);
  reverse_blocks(data.data(), blocks, block_size);
  CUDA_CHECK_LAUNCH();
  std::vector<float> expected = in;
  for (int b = 0; b < blocks; ++b) {
    std::reverse(expected.begin() + b * block_size, expected.begin() + (b + 1) * block_size);
  }
  EXPECT_EQ(data.copy_to_host(), expected);
}

TEST(EmuRewrite, HostVariablesAndMembersNamedLikeTheBuiltins) {
  const unsigned blocks = 3;
  const unsigned threads = 32;
  const unsigned n = blocks * threads;
  cudalab::DeviceBuffer<unsigned> out(std::vector<unsigned>(2 * n, 0));
  launch_through_host_names(out.data(), blocks, threads);
  CUDA_CHECK_LAUNCH();
  const std::vector<unsigned> got = out.copy_to_host();
  for (unsigned i = 0; i < n; ++i) {
    ASSERT_EQ(got[i], i + blocks * 1000u) << "blockIdx/blockDim/threadIdx/gridDim at " << i;
    ASSERT_EQ(got[n + i], i % threads) << "threadIdx read beside members named blockDim at " << i;
  }
}

}  // namespace
