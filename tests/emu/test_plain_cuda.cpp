// Plain CUDA on the emulator through host code that is neither rewritten nor
// instrumented: the kernels with plain pointers and plain __shared__ memory
// are in plain_kernels.cpp (rewritten and compiled with the instrumentation),
// launched through the functions of plain_kernels.hpp; they are checked and
// analysed, and reports name the kernel file's lines.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "emu_test_support.hpp"
#include "plain_kernels.hpp"

namespace emu_tests {
namespace {

using cudalab::emu::Recording;
using cudalab::emu::ReportKind;

bool names_kernel_line(const cudalab::emu::Report& r, int line) {
  return r.file == plain_kernels::kFile && r.line == static_cast<unsigned>(line);
}

TEST(PlainCuda, CoverageAndSectorsOfAScale) {
  const int n = 1000;
  DeviceBuffer<float> x(n), y(n);
  x.fill_bytes(0);
  y.fill_bytes(0);
  Recording rec;
  plain_kernels::scale(x.data(), y.data(), n, 2.0f, 4, 256);
  ASSERT_EQ(rec.launches().size(), 1u);
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
  const auto& plain = rec.launches()[0];
  // 1000 floats of 4 bytes: 31 full warps read and write 128 bytes (4
  // sectors) each, the last warp's 8 lanes 32 bytes (1 sector).
  EXPECT_EQ(plain.coalescing.loads.requests, 32u) << "1000 threads: 31 full warps and one of 8";
  EXPECT_EQ(plain.coalescing.loads.sectors, 31u * 4 + 1);
  EXPECT_EQ(plain.coalescing.stores.requests, 32u);
  EXPECT_EQ(plain.coalescing.stores.sectors, 31u * 4 + 1);
  auto plain_cov = cudalab::emu::coverage(plain, y.data(), sizeof(float), n);
  EXPECT_EQ(plain_cov.unwritten(), 0u);
  EXPECT_EQ(plain_cov.written_twice(), 0u);
  for (int i : {0, 1, 255, 256, 999}) {
    ASSERT_EQ(plain_cov.elements[i].writes, 1u) << plain_cov.describe(i);
    EXPECT_EQ(plain_cov.elements[i].writers[0].block.x, static_cast<unsigned>(i / 256)) << i;
    EXPECT_EQ(plain_cov.elements[i].writers[0].thread.x, static_cast<unsigned>(i % 256)) << i;
  }
  // Sites name the kernel file's line, resolved from the pc.
  ASSERT_FALSE(plain.coalescing.per_site.empty());
  const auto* site = plain.find_site(plain.coalescing.per_site[0].site);
  ASSERT_NE(site, nullptr);
  EXPECT_EQ(site->file, plain_kernels::kFile);
  EXPECT_GT(site->line, 0u);
}

void expect_block_sum_race(bool dynamic) {
  cudalab::emu::ScopedOptions scoped(quiet());
  const int n = 256;
  std::vector<int> ones(n, 1);
  DeviceBuffer<int> in(n), out(1);
  in.copy_from_host(std::span<const int>(ones));
  {
    Recording rec;
    plain_kernels::block_sum(in.data(), out.data(), n, n, dynamic, true);
    EXPECT_TRUE(rec.clean()) << rec.reports_text();
    EXPECT_EQ(out.copy_to_host()[0], n);
  }
  Recording rec;
  plain_kernels::block_sum(in.data(), out.data(), n, n, dynamic, false);
  const auto* race = first_report(rec, ReportKind::intra_block_race);
  ASSERT_NE(race, nullptr) << rec.reports_text();
  const int write =
      dynamic ? plain_kernels::block_sum_dynamic_write_line : plain_kernels::block_sum_write_line;
  const int read =
      dynamic ? plain_kernels::block_sum_dynamic_read_line : plain_kernels::block_sum_read_line;
  EXPECT_TRUE(names_kernel_line(*race, write) || names_kernel_line(*race, read))
      << race->to_string();
  EXPECT_NE(race->message.find("plain_kernels.cpp:" + std::to_string(write)), std::string::npos)
      << race->message;
  EXPECT_NE(race->message.find("plain_kernels.cpp:" + std::to_string(read)), std::string::npos)
      << race->message;
  EXPECT_NE(race->message.find("shared memory"), std::string::npos) << race->message;
}

TEST(PlainCuda, MissingSyncthreadsOnAPlainSharedArrayIsARace) { expect_block_sum_race(false); }

TEST(PlainCuda, MissingSyncthreadsOnDynamicSharedMemoryIsARace) { expect_block_sum_race(true); }

TEST(PlainCuda, TransposeTileWithoutPaddingHas32WayBankConflicts) {
  DeviceBuffer<float> in(32 * 32), out(32 * 32);
  std::vector<float> values(32 * 32);
  for (int i = 0; i < 32 * 32; ++i) values[i] = static_cast<float>(i);
  in.copy_from_host(std::span<const float>(values));
  for (auto [padded, dynamic] : {std::pair{false, false}, std::pair{true, false},
                                 std::pair{false, true}, std::pair{true, true}}) {
    SCOPED_TRACE(std::string(padded ? "padded" : "unpadded") + (dynamic ? ", dynamic" : ""));
    Recording rec;
    plain_kernels::transpose(in.data(), out.data(), padded, dynamic);
    EXPECT_TRUE(rec.clean()) << rec.reports_text();
    const auto& banks = rec.last().bank_conflicts;
    EXPECT_EQ(banks.loads.requests, 32u);
    EXPECT_EQ(banks.stores.requests, 32u);
    EXPECT_DOUBLE_EQ(banks.loads.ways_per_request(), padded ? 1.0 : 32.0);
    EXPECT_DOUBLE_EQ(banks.stores.ways_per_request(), 1.0);
    std::vector<float> result = out.copy_to_host();
    EXPECT_EQ(result[1], 32.0f);
    EXPECT_EQ(result[32], 1.0f);
  }
}

TEST(PlainCuda, WritePastTheEndThroughAFloatPointerIsOutOfBounds) {
  cudalab::emu::ScopedOptions scoped(quiet());
  const int n = 64;  // 256 bytes: a[n] is past the allocation's rounded size too
  DeviceBuffer<float> a(n);
  Recording rec;
  plain_kernels::write_past_end(a.data(), n);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  const auto* oob = first_report(rec, ReportKind::out_of_bounds);
  ASSERT_NE(oob, nullptr) << rec.reports_text();
  EXPECT_TRUE(names_kernel_line(*oob, plain_kernels::write_past_end_line)) << oob->to_string();
  EXPECT_EQ(oob->address, reinterpret_cast<std::uintptr_t>(a.data() + n));
  EXPECT_TRUE(oob->is_write);
  EXPECT_EQ(oob->where.thread.x, static_cast<unsigned>(n % 64));
  EXPECT_NE(oob->kernel.find("write_past_end_kernel"), std::string::npos) << oob->kernel;
}

TEST(PlainCuda, ReadAfterCudaFreeIsUseAfterFree) {
  cudalab::emu::ScopedOptions scoped(quiet());
  const int n = 64;
  float* freed = nullptr;
  ASSERT_EQ(cudaMalloc(&freed, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemset(freed, 0, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaFree(freed), cudaSuccess);
  DeviceBuffer<float> out(n);
  Recording rec;
  plain_kernels::copy(freed, out.data(), n);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  const auto* uaf = first_report(rec, ReportKind::use_after_free);
  ASSERT_NE(uaf, nullptr) << rec.reports_text();
  EXPECT_TRUE(names_kernel_line(*uaf, plain_kernels::copy_read_line)) << uaf->to_string();
}

TEST(PlainCuda, HostPointerIsAnInvalidAddress) {
  cudalab::emu::ScopedOptions scoped(quiet());
  std::vector<float> host(64, 1.0f);
  DeviceBuffer<float> out(64);
  Recording rec;
  plain_kernels::copy(host.data(), out.data(), 64);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  const auto* bad = first_report(rec, ReportKind::invalid_pointer);
  ASSERT_NE(bad, nullptr) << rec.reports_text();
  EXPECT_TRUE(names_kernel_line(*bad, plain_kernels::copy_read_line)) << bad->to_string();
}

TEST(PlainCuda, ReadOfUnwrittenGlobalMemoryIsReported) {
  cudalab::emu::ScopedOptions scoped(quiet());
  DeviceBuffer<float> in(64), out(64);
  Recording rec;
  plain_kernels::copy(in.data(), out.data(), 64);
  const auto* r = first_report(rec, ReportKind::uninitialized_read);
  ASSERT_NE(r, nullptr) << rec.reports_text();
  EXPECT_TRUE(names_kernel_line(*r, plain_kernels::copy_read_line)) << r->to_string();
}

TEST(PlainCuda, ReadOfUnwrittenSharedMemoryIsReported) {
  cudalab::emu::ScopedOptions scoped(quiet());
  DeviceBuffer<float> out(32);
  Recording rec;
  plain_kernels::read_shared_unwritten(out.data());
  const auto* r = first_report(rec, ReportKind::uninitialized_read);
  ASSERT_NE(r, nullptr) << rec.reports_text();
  EXPECT_TRUE(names_kernel_line(*r, plain_kernels::read_shared_unwritten_line)) << r->to_string();
  EXPECT_NE(r->message.find("shared memory"), std::string::npos) << r->message;
}

TEST(PlainCuda, SharedArrayOfAnUnrewrittenHeaderIsReportedWithTheReason) {
  cudalab::emu::ScopedOptions scoped(quiet());
  DeviceBuffer<float> out(32);
  out.fill_bytes(0);
  Recording rec;
  plain_kernels::unrewritten_shared(out.data());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  const auto* r = first_report(rec, ReportKind::invalid_pointer);
  ASSERT_NE(r, nullptr) << rec.reports_text();
  EXPECT_EQ(r->file, plain_kernels::unrewritten_shared_file) << r->to_string();
  EXPECT_EQ(r->line, static_cast<unsigned>(plain_kernels::unrewritten_shared_write_line))
      << r->to_string();
  EXPECT_TRUE(r->is_write);
  EXPECT_NE(r->message.find("did not rewrite"), std::string::npos) << r->message;
  EXPECT_EQ(out.copy_to_host()[0], 0.0f) << "the block must stop before the store";
}

TEST(PlainCuda, AtomicsAreCountedApartFromStores) {
  const int n = 512;
  std::vector<int> keys(n);
  for (int i = 0; i < n; ++i) keys[i] = i % 8;
  DeviceBuffer<int> d_keys(n), counts(8), out(n);
  d_keys.copy_from_host(std::span<const int>(keys));
  counts.fill_bytes(0);
  Recording rec;
  plain_kernels::histogram(d_keys.data(), counts.data(), out.data(), n);
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
  const auto& c = rec.last().coalescing;
  EXPECT_EQ(c.atomics.requests, 16u) << "one atomicAdd per warp";
  EXPECT_EQ(c.stores.requests, 16u) << "the store of out[i] only";
  EXPECT_EQ(c.stores.sectors, 64u);
  for (int k : counts.copy_to_host()) EXPECT_EQ(k, n / 8);
}

TEST(PlainCuda, MisalignedFloat4LoadIsReportedNotACrash) {
  cudalab::emu::ScopedOptions scoped(quiet());
  DeviceBuffer<float> p(64), out(32);
  p.fill_bytes(0);
  Recording rec;
  plain_kernels::load_float4(p.data(), out.data());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorMisalignedAddress);
  const auto* r = first_report(rec, ReportKind::misaligned_address);
  ASSERT_NE(r, nullptr) << rec.reports_text();
  EXPECT_EQ(r->access_bytes, 16u);
  EXPECT_TRUE(names_kernel_line(*r, plain_kernels::load_float4_line)) << r->to_string();
}

TEST(PlainCuda, DynamicSharedAbove48KiBNeedsTheAttribute) {
  DeviceBuffer<int> out(1);
  const std::size_t bytes = 100 * 1024;
  Recording rec;
  plain_kernels::touch_dynamic_shared(bytes, out.data());
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_TRUE(rec.launches().empty()) << "nothing runs";
  EXPECT_EQ(plain_kernels::allow_dynamic_shared(228 * 1024), cudaErrorInvalidValue)
      << "more than the H200's 227 KiB per block";
  cudaGetLastError();
  ASSERT_EQ(plain_kernels::allow_dynamic_shared(static_cast<int>(bytes)), cudaSuccess);
  plain_kernels::touch_dynamic_shared(bytes, out.data());
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(rec.launches().size(), 1u);
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
  EXPECT_EQ(out.copy_to_host()[0], 7);
  plain_kernels::touch_dynamic_shared(bytes + 4, out.data());
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue) << "above what the attribute allows";
}

TEST(PlainCuda, DeviceVariablesAndConstantDataAreNotInvalidAddresses) {
  DeviceBuffer<float> out(96);
  Recording rec;
  EXPECT_EQ(plain_kernels::device_variables(out.data()), 3);
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
  const std::vector<float> values = out.copy_to_host();
  EXPECT_EQ(values[5], 2.0f);
  EXPECT_EQ(values[64 + 7], 4.0f);
}

TEST(PlainCuda, BlocksWritingOneWordRaceWithEachOther) {
  cudalab::emu::ScopedOptions scoped(quiet());
  DeviceBuffer<int> out(1);
  Recording rec;
  plain_kernels::every_block_writes(out.data(), 4);
  const auto* race = first_report(rec, ReportKind::inter_block_race);
  ASSERT_NE(race, nullptr) << rec.reports_text();
  EXPECT_EQ(race->file, plain_kernels::kFile);
}

TEST(PlainCuda, BarrierInABranchIsADivergentBarrier) {
  cudalab::emu::ScopedOptions scoped(quiet());
  DeviceBuffer<float> out(32);
  Recording rec;
  plain_kernels::barrier_in_branch(out.data());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  const auto* r = first_report(rec, ReportKind::divergent_barrier);
  ASSERT_NE(r, nullptr) << rec.reports_text();
  EXPECT_TRUE(names_kernel_line(*r, plain_kernels::barrier_in_branch_line)) << r->to_string();
}

TEST(PlainCuda, StaticSharedMemoryOver48KiBFailsTheLaunch) {
  cudalab::emu::ScopedOptions scoped(quiet());
  DeviceBuffer<float> out(32);
  Recording rec;
  plain_kernels::too_much_static_shared(out.data());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorInvalidValue);
  const auto* r = first_report(rec, ReportKind::shared_memory_limit);
  ASSERT_NE(r, nullptr) << rec.reports_text();
  EXPECT_NE(r->message.find("48 KiB"), std::string::npos) << r->message;
}

TEST(PlainCuda, SharedIndexPastEveryDeclarationIsOutOfBounds) {
  cudalab::emu::ScopedOptions scoped(quiet());
  DeviceBuffer<float> out(1);
  Recording rec;
  plain_kernels::shared_index_past_end(out.data(), 31);
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
  plain_kernels::shared_index_past_end(out.data(), 40);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  const auto* r = first_report(rec, ReportKind::out_of_bounds);
  ASSERT_NE(r, nullptr) << rec.reports_text();
  EXPECT_TRUE(names_kernel_line(*r, plain_kernels::shared_index_past_end_line)) << r->to_string();
  EXPECT_NE(r->message.find("shared memory"), std::string::npos) << r->message;
}

TEST(PlainCuda, JsonExportNamesTheKernelFile) {
  cudalab::emu::ScopedOptions scoped(quiet());
  const int n = 100;
  DeviceBuffer<float> a(n);
  Recording rec;
  plain_kernels::write_past_end(a.data(), n);
  cudaDeviceSynchronize();
  const nlohmann::json doc = cudalab::emu::to_json(rec.last());
  ASSERT_FALSE(doc["sites"].empty());
  for (const auto& site : doc["sites"]) EXPECT_EQ(site["file"], plain_kernels::kFile) << site;
  ASSERT_FALSE(doc["reports"].empty());
  EXPECT_EQ(doc["reports"][0]["file"], plain_kernels::kFile);
  EXPECT_EQ(doc["reports"][0]["line"], plain_kernels::write_past_end_line);
  EXPECT_EQ(doc["error"], "cudaErrorIllegalAddress");
}

}  // namespace
}  // namespace emu_tests
