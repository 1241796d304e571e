// The adapter from the emulator's recording to the viewer's KernelRun, on
// small kernels run on the emulator here (plain CUDA: CMake compiles the
// rewritten, instrumented copy of this file, as a lab's).
#include "model/emu_run.hpp"

#include <gtest/gtest.h>

#include "cudalab/device_buffer.hpp"
#include "cudalab/kernel.hpp"
#include "model/coalescing_model.hpp"
#include "model/indexing_model.hpp"

namespace cudalab::viewer {
namespace {

// Thread i writes row i % rows, column i / rows of a rows x cols matrix: the
// lecture's mapping, uncoalesced; with `twice` thread 0 also writes element 1.
__global__ void column_walk(float* out, int rows, int cols, bool twice) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows * cols) return;
  out[(i % rows) * cols + i / rows] = 1.0f;
  if (twice && i == 0) out[1] = 2.0f;
}

KernelRun record(int rows, int cols, int block, bool twice) {
  DeviceBuffer<float> out(static_cast<std::size_t>(rows) * cols);
  emu::Recording recording;
  const unsigned blocks = static_cast<unsigned>((rows * cols + block - 1) / block);
  column_walk<<<blocks, static_cast<unsigned>(block)>>>(out.data(), rows, cols, twice);
  cudaDeviceSynchronize();
  return kernel_run_from_launch(recording.last(),
                                {out.data(), sizeof(float), static_cast<std::uint64_t>(rows),
                                 static_cast<std::uint64_t>(cols)});
}

TEST(EmuRun, CoverageNamesTheWriters) {
  const KernelRun run = record(7, 37, 64, false);  // 259 elements, 5 blocks, last one partial
  EXPECT_EQ(run.blocks(), 5u);
  const CoverageStats s = coverage_stats(run);
  EXPECT_EQ(s.once, 7u * 37u);
  // Thread i = 70 (block 1, thread 6) writes row 0, column 10.
  const ElementWrites& e = run.writes[10];
  EXPECT_EQ(e.first, (ThreadRef{1, 6}));
}

TEST(EmuRun, DoubleWritesAreSeen) {
  const KernelRun run = record(7, 37, 64, true);
  EXPECT_EQ(run.writes[1].count, 2u);
  EXPECT_EQ(coverage_stats(run).several, 1u);
  EXPECT_NE(describe_element(run, 1).find("written 2 times"), std::string::npos);
}

TEST(EmuRun, WarpRequestsKeepTheLaneAddresses) {
  const KernelRun run = record(64, 100, 128, false);
  const auto store = first_store_site(run);
  ASSERT_TRUE(store.has_value());
  const auto index = find_request(run, *store, 0, 0);
  ASSERT_TRUE(index.has_value());
  const WarpRequest& r = run.requests[*index];
  EXPECT_EQ(r.active_mask, 0xffffffffu);
  EXPECT_EQ(r.address[1] - r.address[0], 400u);  // one row of 100 floats apart
  EXPECT_EQ(analyse(r).sectors, 32);
  EXPECT_NE(run.sites[*store].label.find("store"), std::string::npos);
}

}  // namespace
}  // namespace cudalab::viewer
