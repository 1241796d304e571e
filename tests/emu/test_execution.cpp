// Execution semantics: indexing, barriers, shared memory, atomics, launch
// validation and the runtime API subset.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "emu_test_kernels.cuh"
#include "emu_test_support.hpp"

namespace emu_tests {
namespace {

using cudalab::emu::Recording;

struct Shape {
  dim3 grid;
  dim3 block;
};

class Indexing : public ::testing::TestWithParam<Shape> {};

TEST_P(Indexing, EveryThreadSeesItsCoordinates) {
  const Shape s = GetParam();
  const std::size_t threads_per_block = std::size_t{s.block.x} * s.block.y * s.block.z;
  const std::size_t blocks = std::size_t{s.grid.x} * s.grid.y * s.grid.z;
  DeviceBuffer<int4> out(blocks * threads_per_block);
  Recording rec;
  write_coordinates<<<s.grid, s.block>>>(out.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
  std::vector<int4> got = out.copy_to_host();
  std::size_t wrong = 0;
  for (unsigned bz = 0; bz < s.grid.z; ++bz)
    for (unsigned by = 0; by < s.grid.y; ++by)
      for (unsigned bx = 0; bx < s.grid.x; ++bx)
        for (unsigned tz = 0; tz < s.block.z; ++tz)
          for (unsigned ty = 0; ty < s.block.y; ++ty)
            for (unsigned tx = 0; tx < s.block.x; ++tx) {
              std::size_t b = bx + s.grid.x * (by + s.grid.y * bz);
              std::size_t t = tx + s.block.x * (ty + s.block.y * tz);
              const int4 v = got[b * threads_per_block + t];
              wrong += v.x != static_cast<int>(bx * s.block.x + tx) ||
                       v.y != static_cast<int>(by * s.block.y + ty) ||
                       v.z != static_cast<int>(bz * s.block.z + tz) || v.w != static_cast<int>(t);
            }
  EXPECT_EQ(wrong, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, Indexing,
    ::testing::Values(Shape{dim3(1), dim3(1)}, Shape{dim3(7), dim3(33)},
                      Shape{dim3(70001), dim3(1)},  // more than 65535 blocks in x
                      Shape{dim3(3, 5), dim3(16, 4)}, Shape{dim3(2, 3, 4), dim3(5, 3, 2)},
                      Shape{dim3(1, 1, 3), dim3(1, 1, 64)}, Shape{dim3(2), dim3(1024)}),
    [](const ::testing::TestParamInfo<Shape>& info) {
      const Shape& s = info.param;
      return "grid" + std::to_string(s.grid.x) + "x" + std::to_string(s.grid.y) + "x" +
             std::to_string(s.grid.z) + "_block" + std::to_string(s.block.x) + "x" +
             std::to_string(s.block.y) + "x" + std::to_string(s.block.z);
    });

TEST(Execution, SharedMemoryBlockSumWithBarriers) {
  for (int n : {1, 255, 256, 1000, 4099}) {
    std::vector<float> x = random_floats(n);
    DeviceBuffer<float> in(x);
    const int blocks = (n + kReduceBlock - 1) / kReduceBlock;
    DeviceBuffer<float> out(blocks);
    Recording rec;
    block_sum<<<dim3(blocks), dim3(kReduceBlock)>>>(in.data(), out.data(), n);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(rec.clean()) << rec.reports_text();
    std::vector<float> got = out.copy_to_host();
    for (int b = 0; b < blocks; ++b) {
      float want = 0;
      for (int i = b * kReduceBlock; i < std::min(n, (b + 1) * kReduceBlock); ++i) want += x[i];
      EXPECT_NEAR(got[b], want, 1e-4f) << "n " << n << " block " << b;
    }
  }
}

TEST(Execution, TiledTransposeThroughSharedMemory) {
  for (auto [rows, cols] : {std::pair{1, 1}, {67, 45}, {32, 32}, {100, 257}}) {
    std::vector<float> x = random_floats(static_cast<std::size_t>(rows) * cols);
    DeviceBuffer<float> in(x);
    DeviceBuffer<float> out(x.size());
    Recording rec;
    const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
    transpose_tiled<<<grid, dim3(kTile, 8)>>>(in.data(), out.data(), rows, cols);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(rec.clean()) << rec.reports_text();
    std::vector<float> got = out.copy_to_host();
    std::size_t wrong = 0;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) wrong += got[c * rows + r] != x[r * cols + c];
    EXPECT_EQ(wrong, 0u) << rows << "x" << cols;
  }
}

TEST(Execution, AtomicsAreExactWhileBlocksRunInParallel) {
  cudalab::emu::Options o = cudalab::emu::options();
  o.workers = 4;  // more workers than cores: blocks interleave
  cudalab::emu::ScopedOptions scoped(o);
  const int n = 100003, bin_count = 17;
  std::vector<int> v = random_ints(n, 0, 1000);
  DeviceBuffer<int> values(v);
  DeviceBuffer<unsigned> bins(bin_count);
  bins.fill_bytes(0);
  DeviceBuffer<float> sum(1);
  sum.fill_bytes(0);
  DeviceBuffer<int> maximum(1);
  maximum.fill_bytes(0);
  atomic_histogram<<<dim3((n + 127) / 128), dim3(128)>>>(values.data(), n, bins.data(), bin_count,
                                                         sum.data(), maximum.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned> want(bin_count, 0);
  double want_sum = 0;
  for (int x : v) {
    ++want[x % bin_count];
    want_sum += x % 64;
  }
  EXPECT_EQ(bins.copy_to_host(), want);
  EXPECT_EQ(sum.copy_to_host()[0], want_sum);
  EXPECT_EQ(maximum.copy_to_host()[0], *std::max_element(v.begin(), v.end()));
}

TEST(Execution, CompareAndSwapLockSerialisesBlocks) {
  cudalab::emu::Options o = cudalab::emu::options();
  o.workers = 4;
  cudalab::emu::ScopedOptions scoped(o);
  DeviceBuffer<int> lock(1), counter(1);
  lock.fill_bytes(0);
  counter.fill_bytes(0);
  cas_lock_counter<<<dim3(997), dim3(32)>>>(lock.data(), counter.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(counter.copy_to_host()[0], 997);
}

TEST(Execution, DynamicSharedMemoryIsPerBlock) {
  const int n = 1000, block = 128;
  std::vector<int> x = random_ints(n, -50, 50);
  DeviceBuffer<int> in(x), out(n);
  out.fill_bytes(0);
  const dim3 grid((n + block - 1) / block);
  reverse_in_block<<<grid, dim3(block), block * sizeof(int)>>>(in.data(), out.data(), n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> got = out.copy_to_host();
  for (int i = 0; i < n; ++i) {
    int b = i / block, t = i % block;
    int src = b * block + (block - 1 - t);
    EXPECT_EQ(got[i], src < n ? x[src] : 0) << i;
  }
}

TEST(Execution, SixteenByteAccessesThroughReinterpretGlobal) {
  const int n4 = 333;
  std::vector<float> x = random_floats(4 * n4);
  DeviceBuffer<float> in(x), out(x.size());
  Recording rec;
  copy_float4<<<dim3(3), dim3(128)>>>(in.data(), out.data(), n4);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
  EXPECT_EQ(out.copy_to_host(), x);
  // 333 = 10 full warps + 13 lanes: a full warp of float4 loads moves 512
  // bytes = 16 sectors; the partial one 13 * 16 bytes = 7 sectors (6.5 rounded up).
  const auto& loads = rec.last().coalescing.loads;
  EXPECT_EQ(loads.requests, 11u);
  ASSERT_GT(loads.sectors_histogram.size(), 16u);
  EXPECT_EQ(loads.sectors_histogram[16], 10u);
  EXPECT_EQ(loads.sectors_histogram[7], 1u);
}

TEST(Execution, HalfAndBfloat16ThroughCudaHeaders) {
  const int n = 131;
  std::vector<float> x = random_floats(n, -8.0f, 8.0f);
  std::vector<__half> hx(n);
  std::vector<__nv_bfloat16> bx(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = __float2half(x[i]);
    bx[i] = __float2bfloat16(x[i]);
  }
  DeviceBuffer<__half> h(hx);
  DeviceBuffer<__nv_bfloat16> b(bx);
  Recording rec;
  double_half_and_bf16<<<dim3(2), dim3(96)>>>(h.data(), b.data(), n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
  std::vector<__half> hy = h.copy_to_host();
  std::vector<__nv_bfloat16> by = b.copy_to_host();
  for (int i = 0; i < n; ++i) {
    // Doubling is exact in both formats.
    EXPECT_EQ(__half2float(hy[i]), 2.0f * __half2float(hx[i])) << i;
    EXPECT_EQ(__bfloat162float(by[i]), 2.0f * __bfloat162float(bx[i])) << i;
  }
}

TEST(Execution, BadLaunchShapeRunsNothingAndReportsInvalidConfiguration) {
  DeviceBuffer<int4> out(64);
  ASSERT_EQ(cudaMemset(out.data(), 0x11, 64 * sizeof(int4)), cudaSuccess);
  std::vector<int4> before = out.copy_to_host();
  const Shape bad[] = {
      {dim3(1), dim3(1025)},     {dim3(1), dim3(32, 33)},      {dim3(1), dim3(1, 1, 65)},
      {dim3(1, 65536), dim3(1)}, {dim3(1, 1, 65536), dim3(1)}, {dim3(0), dim3(32)},
      {dim3(1), dim3(0)}};
  for (const Shape& s : bad) {
    Recording rec;
    write_coordinates<<<s.grid, s.block>>>(out.data());
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue)
        << "grid " << s.grid.x << "," << s.grid.y << "," << s.grid.z << " block " << s.block.x
        << "," << s.block.y << "," << s.block.z;
    EXPECT_TRUE(rec.launches().empty());
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the launch error is not sticky";
  }
  write_coordinates<<<dim3(1), dim3(1), cudalab::emu::kMaxDynamicSharedBytes + 1>>>(out.data());
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  std::vector<int4> after = out.copy_to_host();
  EXPECT_EQ(std::memcmp(before.data(), after.data(), before.size() * sizeof(int4)), 0);
}

TEST(Runtime, ReportsTheEmulatedDevice) {
  int count = 0, device = -1;
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(count, 1);
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(device, 0);
  EXPECT_EQ(cudaSetDevice(1), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
  cudaDeviceProp p;
  ASSERT_EQ(cudaGetDeviceProperties(&p, 0), cudaSuccess);
  EXPECT_STREQ(p.name, "cudalab CPU emulator");
  EXPECT_EQ(p.warpSize, 32);
  EXPECT_EQ(p.maxThreadsPerBlock, 1024);
  EXPECT_STREQ(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress");
}

TEST(Runtime, CopiesCheckTheirPointers) {
  DeviceBuffer<float> d(10);
  std::vector<float> h(10, 1.0f);
  EXPECT_EQ(cudaMemcpy(d.data(), h.data(), 11 * sizeof(float), cudaMemcpyHostToDevice),
            cudaErrorInvalidValue)
      << "one element past the allocation";
  EXPECT_EQ(cudaMemcpy(h.data(), h.data() + 1, sizeof(float), cudaMemcpyDeviceToHost),
            cudaErrorInvalidValue)
      << "a host pointer as the device source";
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  int dummy;
  EXPECT_EQ(cudaFree(&dummy), cudaErrorInvalidValue);
  cudaGetLastError();
}

}  // namespace
}  // namespace emu_tests
