// The analyses: sectors per warp request, bank conflicts, coverage, export.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "coalescing_kernels.cuh"
#include "emu_test_kernels.cuh"
#include "emu_test_support.hpp"

namespace emu_tests {
namespace {

using cudalab::emu::Recording;

// Sectors per request of the loads at the kernel's one load site.
double load_sectors_per_request(void (*kernel)(const float*, float*, int), int stride) {
  const int n = 32 * 37;  // 37 full warps
  DeviceBuffer<float> in(static_cast<std::size_t>(n) * stride + 1), out(n);
  in.fill_bytes(0);
  Recording rec;
  kernel<<<dim3(37), dim3(32)>>>(in.data(), out.data(), n);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
  const auto& loads = rec.last().coalescing.loads;
  EXPECT_EQ(loads.requests, 37u);
  return loads.sectors_per_request();
}

TEST(Coalescing, SectorsPerRequestOfTheFourLoadPatterns) {
  using namespace emu_fidelity;
  EXPECT_DOUBLE_EQ(load_sectors_per_request(load_coalesced, 1), 4.0);
  EXPECT_DOUBLE_EQ(load_sectors_per_request(load_stride2, 2), 8.0);
  EXPECT_DOUBLE_EQ(load_sectors_per_request(load_stride32, 32), 32.0);
  EXPECT_DOUBLE_EQ(load_sectors_per_request(load_broadcast, 1), 1.0);
}

TEST(Coalescing, PerSiteFiguresAndWarpRequests) {
  const int n = 1000;  // 31 full warps and a partial one of 8 lanes
  DeviceBuffer<float> in(2 * n), out(n);
  in.fill_bytes(0);
  Recording rec;
  emu_fidelity::load_stride2<<<dim3(8), dim3(128)>>>(in.data(), out.data(), n);
  const auto& launch = rec.last();
  ASSERT_EQ(launch.coalescing.per_site.size(), 2u) << "one load site, one store site";
  const auto& load_site = launch.coalescing.per_site[0].loads.requests
                              ? launch.coalescing.per_site[0]
                              : launch.coalescing.per_site[1];
  EXPECT_EQ(load_site.loads.requests, 32u);
  EXPECT_NEAR(load_site.loads.efficiency(), 0.5, 0.02);
  const auto* site = launch.find_site(load_site.site);
  ASSERT_NE(site, nullptr);
  EXPECT_NE(site->file.find("coalescing_kernels.cuh"), std::string::npos);
  auto requests = cudalab::emu::warp_requests(launch);
  std::size_t partial = 0;
  for (const auto& r : requests) {
    if (r.is_write || r.site != load_site.site) continue;
    if (r.active_mask == 0xffu) {
      ++partial;
      EXPECT_EQ(r.sectors, 2u) << "8 lanes, stride 2: 64 bytes";
      EXPECT_EQ(r.addresses[1] - r.addresses[0], 8u);
    } else {
      EXPECT_EQ(r.active_mask, 0xffffffffu);
      EXPECT_EQ(r.sectors, 8u);
      EXPECT_EQ(r.lines, 2u);
    }
  }
  EXPECT_EQ(partial, 1u);
}

TEST(Coalescing, AtomicsAreCountedApartFromStores) {
  const int blocks = 4, block = 128, n = blocks * block, warps = n / 32;
  DeviceBuffer<int> out(n);
  DeviceBuffer<unsigned> counts(std::vector<unsigned>(8, 0u));
  Recording rec;
  store_index<<<dim3(blocks), dim3(block)>>>(out.data());
  store_index_and_count<<<dim3(blocks), dim3(block)>>>(out.data(), counts.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
  EXPECT_EQ(counts.copy_to_host(), std::vector<unsigned>(8, n / 8));

  const auto& plain = rec.launches()[0].coalescing;
  const auto& with_atomics = rec.launches()[1].coalescing;
  EXPECT_EQ(plain.stores.requests, static_cast<std::uint64_t>(warps));
  EXPECT_EQ(with_atomics.stores.requests, plain.stores.requests) << "atomics are not stores";
  EXPECT_EQ(with_atomics.stores.sectors, plain.stores.sectors);
  EXPECT_DOUBLE_EQ(with_atomics.stores.sectors_per_request(), 4.0);
  EXPECT_EQ(with_atomics.loads.requests, 0u) << "atomics are not loads either";
  EXPECT_EQ(plain.atomics.requests, 0u);
  EXPECT_EQ(with_atomics.atomics.requests, static_cast<std::uint64_t>(warps));
  EXPECT_DOUBLE_EQ(with_atomics.atomics.sectors_per_request(), 1.0) << "8 adjacent counters";

  ASSERT_EQ(with_atomics.per_site.size(), 2u) << "one store site, one atomic site";
  for (const auto& site : with_atomics.per_site) {
    EXPECT_TRUE((site.stores.requests == 0) != (site.atomics.requests == 0)) << site.site;
  }
  std::size_t atomic_requests = 0;
  for (const auto& r : cudalab::emu::warp_requests(rec.last())) {
    if (!r.is_atomic) continue;
    ++atomic_requests;
    EXPECT_TRUE(r.is_write);
    EXPECT_EQ(r.sectors, 1u);
  }
  EXPECT_EQ(atomic_requests, static_cast<std::size_t>(warps));
  nlohmann::json doc = cudalab::emu::to_json(rec.last());
  EXPECT_EQ(doc["coalescing"]["atomics"]["requests"], warps);
  EXPECT_EQ(doc["coalescing"]["stores"]["requests"], warps);
}

// The site file and line of every access made by accesses_store_their_line,
// against the line number each statement stored.
TEST(Sites, StarIndexAndOffsetAccessesNameTheKernelsLine) {
  DeviceBuffer<int> in(std::vector<int>{1, 2, 3}), out(3);
  Recording rec;
  accesses_store_their_line<<<dim3(1), dim3(1)>>>(in.data(), out.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
  const std::vector<int> lines = out.copy_to_host();
  const auto& launch = rec.last();
  ASSERT_EQ(launch.accesses.size(), 6u) << "three reads, three writes";
  for (const auto& access : launch.accesses) {
    const bool to_out = access.is_write();
    const auto base = reinterpret_cast<std::uintptr_t>(to_out ? out.data() : in.data());
    const std::size_t statement = (access.address - base) / sizeof(int);
    ASSERT_LT(statement, 3u);
    const auto* site = launch.find_site(access.site);
    ASSERT_NE(site, nullptr);
    EXPECT_NE(site->file.find("emu_test_kernels.cuh"), std::string::npos)
        << site->file << ":" << site->line << " (statement " << statement << ")";
    EXPECT_EQ(site->line, static_cast<unsigned>(lines[statement] & kLineBits))
        << (to_out ? "write" : "read") << " of statement " << statement;
  }
}

TEST(Sites, ReportOfAReadThroughStarNamesTheKernelsLine) {
  cudalab::emu::ScopedOptions scoped(quiet());
  DeviceBuffer<int> in(3), out(3);  // `in` is never written: every read is reported
  Recording rec;
  accesses_store_their_line<<<dim3(1), dim3(1)>>>(in.data(), out.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<int> lines = out.copy_to_host();
  std::vector<unsigned> reported;
  for (const auto& r : rec.reports()) {
    ASSERT_EQ(r.kind, cudalab::emu::ReportKind::uninitialized_read) << r.to_string();
    EXPECT_NE(r.file.find("emu_test_kernels.cuh"), std::string::npos) << r.to_string();
    reported.push_back(r.line);
  }
  std::sort(reported.begin(), reported.end());
  EXPECT_EQ(reported, (std::vector<unsigned>{static_cast<unsigned>(lines[0] & kLineBits),
                                             static_cast<unsigned>(lines[1] & kLineBits),
                                             static_cast<unsigned>(lines[2] & kLineBits)}));
}

TEST(BankConflicts, PaddedTileIsConflictFreeUnpaddedIs32Way) {
  const int rows = 64, cols = 64;
  DeviceBuffer<float> in(random_floats(rows * cols)), out(rows * cols);
  const dim3 grid(cols / kTile, rows / kTile), block(kTile, 8);
  Recording rec;
  transpose_tiled<<<grid, block>>>(in.data(), out.data(), rows, cols);
  transpose_unpadded<<<grid, block>>>(in.data(), out.data(), rows, cols);
  ASSERT_EQ(rec.launches().size(), 2u);
  const auto& padded = rec.launches()[0].bank_conflicts;
  const auto& unpadded = rec.launches()[1].bank_conflicts;
  EXPECT_DOUBLE_EQ(padded.loads.ways_per_request(), 1.0);
  EXPECT_DOUBLE_EQ(padded.stores.ways_per_request(), 1.0);
  EXPECT_DOUBLE_EQ(unpadded.stores.ways_per_request(), 1.0) << "rows are written: no conflict";
  EXPECT_DOUBLE_EQ(unpadded.loads.ways_per_request(), 32.0) << "columns are read: 32-way";
  EXPECT_EQ(unpadded.loads.max_ways, 32u);
}

TEST(Coverage, NamesElementsWrittenTwiceAndNever) {
  const int n = 100;
  DeviceBuffer<int> out(n);
  out.fill_bytes(0);
  Recording rec;
  write_half_twice<<<dim3(4), dim3(32)>>>(out.data(), n);
  auto cov = cudalab::emu::coverage(rec.last(), out.data(), sizeof(int), n);
  EXPECT_TRUE(cov.complete);
  EXPECT_EQ(cov.unwritten(), 50u);
  EXPECT_EQ(cov.written_twice(), 50u);
  EXPECT_EQ(cov.elements[3].writes, 2u);
  EXPECT_EQ(cov.elements[3].writers[0].thread.x, 6u);
  EXPECT_EQ(cov.elements[3].writers[1].thread.x, 7u);
  EXPECT_EQ(cov.elements[17].writers[0].block.x, 1u);  // thread 34 = block 1 thread 2
  EXPECT_EQ(cov.describe(3),
            "element 3 written 2 times: block (0,0,0) thread (6,0,0) / block (0,0,0) thread "
            "(7,0,0)");
}

TEST(Coverage, CountsEveryElementOfAWideStore) {
  const int n4 = 97;  // a prime number of float4s: the last block is partial
  DeviceBuffer<float> in(4 * n4), out(4 * n4);
  in.fill_bytes(0);
  Recording rec;
  copy_float4<<<dim3(2), dim3(64)>>>(in.data(), out.data(), n4);
  auto cov = cudalab::emu::coverage(rec.last(), out.data(), sizeof(float), 4 * n4);
  EXPECT_EQ(cov.unwritten(), 0u) << "a float4 store writes four floats";
  EXPECT_EQ(cov.written_twice(), 0u);
  EXPECT_EQ(cov.elements[4 * 70 + 3].writers[0].block.x, 1u);  // float4 70 = block 1 thread 6
  EXPECT_EQ(cov.elements[4 * 70 + 3].writers[0].thread.x, 6u);
}

TEST(Export, JsonIsBoundedAndSaysWhenItSampled) {
  const int n = 64 * 256;
  DeviceBuffer<float> in(n), out(n);
  in.fill_bytes(0);
  Recording rec;
  emu_fidelity::load_coalesced<<<dim3(64), dim3(256)>>>(in.data(), out.data(), n);
  cudalab::emu::ExportLimits limits;
  limits.max_accesses = 2000;
  nlohmann::json doc = cudalab::emu::to_json(rec.last(), limits);
  EXPECT_EQ(doc["schema"], "cudalab.emu.launch/1");
  EXPECT_EQ(doc["trace"]["accesses_seen"], 2u * n);
  EXPECT_LE(doc["trace"]["accesses"].size(), 2000u);
  EXPECT_GT(doc["trace"]["accesses"].size(), 0u);
  EXPECT_TRUE(doc["trace"]["sampled"].get<bool>());
  EXPECT_EQ(doc["trace"]["blocks_exported"][0], 0u);
  EXPECT_DOUBLE_EQ(doc["coalescing"]["loads"]["sectors_per_request"].get<double>(), 4.0);
  EXPECT_EQ(doc["grid"], nlohmann::json::array({64, 1, 1}));

  nlohmann::json small = cudalab::emu::to_json(rec.last());
  EXPECT_FALSE(small["trace"]["sampled"].get<bool>());
  EXPECT_EQ(small["trace"]["accesses"].size(), 2u * n);
}

TEST(Recording, OnlyOneAtATime) {
  Recording rec;
  EXPECT_THROW(Recording second, std::logic_error);
  EXPECT_THROW((void)rec.last(), std::logic_error);
}

}  // namespace
}  // namespace emu_tests
