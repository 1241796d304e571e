// The checks: planted bugs must be reported (and correct kernels must not be).
#include <nlohmann/json.hpp>

#include "emu_test_kernels.cuh"
#include "emu_test_support.hpp"

namespace emu_tests {
namespace {

using cudalab::emu::Recording;
using cudalab::emu::ReportKind;

TEST(Checks, OutOfBoundsWriteIsReportedWithItsLineAndFaultsTheLaunch) {
  cudalab::emu::ScopedOptions scoped(quiet());
  const int n = 100;
  std::vector<float> x = random_floats(n);
  DeviceBuffer<float> data(x);
  Recording rec;
  scale_off_by_one<<<dim3(1), dim3(128)>>>(data.data(), n, 2.0f);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  const auto* r = first_report(rec, ReportKind::out_of_bounds);
  ASSERT_NE(r, nullptr) << rec.reports_text();
  EXPECT_EQ(r->where.thread.x, 100u);
  EXPECT_EQ(r->allocation_bytes, n * sizeof(float));
  EXPECT_EQ(r->address, reinterpret_cast<std::uintptr_t>(data.data() + n));
  EXPECT_NE(r->file.find("emu_test_kernels.cuh"), std::string::npos);
  EXPECT_GT(r->line, 0u);
  EXPECT_NE(r->kernel.find("scale_off_by_one"), std::string::npos) << r->kernel;
  // The in-bounds elements were scaled; the out-of-bounds access was dropped.
  std::vector<float> got = data.copy_to_host();
  for (int i = 0; i < n; ++i) EXPECT_EQ(got[i], 2.0f * x[i]);
}

TEST(Checks, MisalignedFloat4IsReportedAndFaultsTheLaunchWithoutTouchingMemory) {
  cudalab::emu::ScopedOptions scoped(quiet());
  const int n4 = 100;
  std::vector<float> x = random_floats(4 * n4 + 4), y = random_floats(4 * n4 + 4);
  DeviceBuffer<float> in(x), out(y);
  Recording rec;
  copy_float4_misaligned<<<dim3(1), dim3(128)>>>(in.data(), out.data(), n4);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorMisalignedAddress);
  const auto* r = first_report(rec, ReportKind::misaligned_address);
  ASSERT_NE(r, nullptr) << rec.reports_text();
  EXPECT_EQ(r->access_bytes, 16u);
  EXPECT_FALSE(r->is_write) << "the read comes first";
  EXPECT_EQ(r->address, reinterpret_cast<std::uintptr_t>(in.data() + 1));
  EXPECT_EQ(r->address % 16, 4u);
  EXPECT_EQ(r->where.block.x, 0u);
  EXPECT_EQ(r->where.thread.x, 0u);
  EXPECT_NE(r->kernel.find("copy_float4_misaligned"), std::string::npos) << r->kernel;
  EXPECT_NE(r->file.find("emu_test_kernels.cuh"), std::string::npos) << r->file;
  EXPECT_GT(r->line, 0u);
  const std::string text = r->to_string();
  EXPECT_NE(text.find("Misaligned address: read of 16 bytes"), std::string::npos) << text;
  EXPECT_NE(text.find("4 bytes past a 16-byte boundary"), std::string::npos) << text;
  EXPECT_NE(text.find("kind misaligned_address"), std::string::npos) << text;
  EXPECT_EQ(cudalab::emu::to_json(rec.last())["error"], "cudaErrorMisalignedAddress");
  EXPECT_EQ(out.copy_to_host(), y) << "each faulting thread stops its block before writing";
  EXPECT_STREQ(cudaGetErrorString(cudaErrorMisalignedAddress), "misaligned address");

  // The check is always on, and CUDA_CHECK throws as it would on a GPU.
  cudalab::emu::Options off = quiet();
  off.checks = {false, false, false};
  cudalab::emu::ScopedOptions unchecked(off);
  copy_float4_misaligned<<<dim3(2), dim3(64)>>>(in.data(), out.data(), n4);
  EXPECT_THROW(CUDA_CHECK(cudaDeviceSynchronize()), cudalab::CudaError);
  EXPECT_EQ(out.copy_to_host(), y);
}

TEST(Checks, MisalignedAccessStopsItsBlockInsteadOfHangingTheBarrier) {
  cudalab::emu::ScopedOptions scoped(quiet());
  std::vector<double> x(64, 1.0);
  DeviceBuffer<double> data(x);
  Recording rec;
  misaligned_before_barrier<<<dim3(3), dim3(64)>>>(data.data());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorMisalignedAddress);
  const std::vector<cudalab::emu::Report> reports = rec.reports();
  ASSERT_EQ(reports.size(), 1u) << "no divergent-barrier report: " << rec.reports_text();
  const cudalab::emu::Report& r = reports[0];
  EXPECT_EQ(r.kind, ReportKind::misaligned_address);
  EXPECT_EQ(r.where.thread.x, 5u);
  EXPECT_EQ(r.access_bytes, 8u);
  EXPECT_EQ(r.address % 8, 4u);
  EXPECT_EQ(data.copy_to_host(), x) << "no thread passed the barrier";
}

TEST(Checks, MissingBarrierInSharedReductionIsARace) {
  cudalab::emu::ScopedOptions scoped(quiet());
  const int n = 3 * kReduceBlock;
  DeviceBuffer<float> in(random_floats(n)), out(3);
  {
    Recording rec;
    block_sum_missing_barrier<<<dim3(3), dim3(kReduceBlock)>>>(in.data(), out.data(), n);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << "a race is reported, not a CUDA error";
    const auto* r = first_report(rec, ReportKind::intra_block_race);
    ASSERT_NE(r, nullptr) << rec.reports_text();
    EXPECT_NE(r->message.find("shared"), std::string::npos) << r->message;
  }
  {
    Recording rec;  // the same reduction with its barriers is clean
    block_sum<<<dim3(3), dim3(kReduceBlock)>>>(in.data(), out.data(), n);
    EXPECT_TRUE(rec.clean()) << rec.reports_text();
  }
}

TEST(Checks, BarrierInDivergentBranchIsAnErrorNotAHang) {
  cudalab::emu::ScopedOptions scoped(quiet());
  const int n = 50;
  DeviceBuffer<float> data(random_floats(64));
  Recording rec;
  barrier_in_branch<<<dim3(1), dim3(64)>>>(data.data(), n);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  const auto* r = first_report(rec, ReportKind::divergent_barrier);
  ASSERT_NE(r, nullptr) << rec.reports_text();
  EXPECT_NE(r->message.find("exited"), std::string::npos) << r->message;
  EXPECT_NE(r->kernel.find("barrier_in_branch"), std::string::npos);
  EXPECT_GT(r->line, 0u);
}

TEST(Checks, BarriersAtDifferentCallSitesAreDivergent) {
  cudalab::emu::ScopedOptions scoped(quiet());
  DeviceBuffer<int> data(32);
  Recording rec;
  barriers_at_two_sites<<<dim3(2), dim3(32)>>>(data.data());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  const auto* r = first_report(rec, ReportKind::divergent_barrier);
  ASSERT_NE(r, nullptr) << rec.reports_text();
  EXPECT_NE(r->message.find("different __syncthreads"), std::string::npos) << r->message;
}

TEST(Checks, SyncwarpOrdersAccessesWithinAWarp) {
  cudalab::emu::ScopedOptions scoped(quiet());
  std::vector<int> x = random_ints(64, 0, 1000);
  DeviceBuffer<int> data(x);
  {
    Recording rec;
    warp_exchange<<<dim3(1), dim3(64)>>>(data.data(), true);
    EXPECT_TRUE(rec.clean()) << rec.reports_text();
    std::vector<int> got = data.copy_to_host();
    for (int i = 0; i < 64; ++i) EXPECT_EQ(got[i], x[i ^ 1]) << i;
  }
  Recording rec;
  warp_exchange<<<dim3(1), dim3(64)>>>(data.data(), false);
  EXPECT_TRUE(has_report(rec, ReportKind::intra_block_race)) << rec.reports_text();
}

TEST(Checks, UninitialisedReadIsReported) {
  cudalab::emu::ScopedOptions scoped(quiet());
  const int n = 77;
  DeviceBuffer<float> in(random_floats(n)), out(n);  // out never written
  {
    Recording rec;
    accumulate_uninitialised<<<dim3(2), dim3(64)>>>(in.data(), out.data(), n);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_TRUE(has_report(rec, ReportKind::uninitialized_read)) << rec.reports_text();
  }
  // After a cudaMemset the same kernel is clean.
  out.fill_bytes(0);
  Recording again;
  accumulate_uninitialised<<<dim3(2), dim3(64)>>>(in.data(), out.data(), n);
  EXPECT_TRUE(again.clean()) << again.reports_text();
}

TEST(Checks, BlocksWritingOneAddressWithoutAtomicsRace) {
  cudalab::emu::ScopedOptions scoped(quiet());
  DeviceBuffer<float> out(1);
  Recording rec;
  every_block_writes_first<<<dim3(8), dim3(32)>>>(out.data());
  EXPECT_TRUE(has_report(rec, ReportKind::inter_block_race)) << rec.reports_text();
}

TEST(Checks, UseAfterFreeIsReported) {
  cudalab::emu::ScopedOptions scoped(quiet());
  float* raw = nullptr;
  ASSERT_EQ(cudaMalloc(&raw, 64 * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaFree(raw), cudaSuccess);
  Recording rec;
  scale_off_by_one<<<dim3(1), dim3(32)>>>(raw, 16, 2.0f);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  EXPECT_TRUE(has_report(rec, ReportKind::use_after_free)) << rec.reports_text();
}

TEST(Checks, HostPointerPassedToKernelIsReported) {
  cudalab::emu::ScopedOptions scoped(quiet());
  std::vector<float> host(32, 1.0f);
  Recording rec;
  scale_off_by_one<<<dim3(1), dim3(32)>>>(host.data(), 16, 2.0f);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  EXPECT_TRUE(has_report(rec, ReportKind::invalid_pointer)) << rec.reports_text();
  EXPECT_EQ(host[0], 1.0f) << "the access was dropped";
}

TEST(Checks, EachCheckCanBeTurnedOff) {
  cudalab::emu::Options o = quiet();
  o.checks.uninitialized = false;
  o.checks.races = false;
  cudalab::emu::ScopedOptions scoped(o);
  const int n = kReduceBlock;
  DeviceBuffer<float> in(random_floats(n)), out(1);
  Recording rec;
  block_sum_missing_barrier<<<dim3(1), dim3(kReduceBlock)>>>(in.data(), out.data(), n);
  DeviceBuffer<float> fresh(n);
  accumulate_uninitialised<<<dim3(1), dim3(n)>>>(in.data(), fresh.data(), n);
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
}

}  // namespace
}  // namespace emu_tests
