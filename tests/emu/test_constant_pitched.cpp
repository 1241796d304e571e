// Constant memory and pitched memory on both backends
// (constant_pitched.hpp): every case runs on the emulator (Emu/...) and on
// the GPU (Gpu/..., skipped without one) with the same assertions. Inputs are
// fresh random values (CUDALAB_SEED repeats a run), sizes are 1, primes and
// non-multiples of the block; floats are compared bit for bit, so a NaN or a
// perturbed element fails (ConstantPitchedChecks below shows it does).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "both_backends.hpp"
#include "constant_pitched.hpp"
#include "cudalab/emu/pitched_memory.hpp"
#include "cudalab/random.hpp"

namespace constant_pitched {
namespace {

class ConstantPitched : public ::emu_tests::OnBothBackends<Kernels, &emulator_kernels, &gpu_kernels,
                                                           &gpu_unavailable_reason> {};

EMU_TESTS_ON_BOTH_BACKENDS(ConstantPitched);

// The first element whose bits differ, or "" when all agree (NaN != NaN).
template <class T>
std::string first_difference(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size()) {
    return "size " + std::to_string(got.size()) + " instead of " + std::to_string(want.size());
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0) {
      return "element " + std::to_string(i) + ": " + std::to_string(got[i]) + " instead of " +
             std::to_string(want[i]);
    }
  }
  return "";
}

std::vector<float> integers(cudalab::Random& rng, std::size_t n, int lo, int hi) {
  std::vector<int> v = rng.uniform<int>(n, lo, hi);
  return std::vector<float>(v.begin(), v.end());
}

TEST(ConstantPitchedChecks, APerturbedOrNanOutputFails) {
  const std::vector<float> want{1.0f, 2.0f, 3.0f};
  EXPECT_EQ(first_difference(want, want), "");
  std::vector<float> perturbed = want;
  perturbed[1] = std::nextafter(perturbed[1], 10.0f);
  EXPECT_NE(first_difference(perturbed, want), "");
  std::vector<float> nan = want;
  nan[2] = std::nanf("");
  EXPECT_NE(first_difference(nan, want), "");
}

// ---- constant memory ----------------------------------------------------------------

TEST_P(ConstantPitched, ALookupTableInConstantMemoryGivesEveryEntry) {
  const std::vector<float> table = rng_.signed_uniform<float>(256, 0.5f, 4.0f);
  for (const std::size_t n : {1u, 31u, 257u, 1009u, 4099u}) {
    for (const unsigned block : {32u, 96u, 256u}) {
      const std::vector<int> index = rng_.uniform<int>(n, 0, 100000);
      const std::vector<float> x = rng_.signed_uniform<float>(n, 0.25f, 8.0f);
      std::vector<float> want(n);
      for (std::size_t i = 0; i < n; ++i) want[i] = table[index[i] % 256] * x[i];
      EXPECT_EQ(first_difference(k().lookup(table, index, x, block), want), "")
          << "n " << n << ", block " << block << "; " << rng_.seed_note();
    }
  }
}

TEST_P(ConstantPitched, SymbolCopiesOnAStreamAreOrderedWithItsKernel) {
  const std::vector<float> table = rng_.signed_uniform<float>(256, 0.5f, 4.0f);
  const std::size_t n = 613;
  const std::vector<int> index = rng_.uniform<int>(n, 0, 255);
  const std::vector<float> x = rng_.signed_uniform<float>(n, 0.25f, 8.0f);
  std::vector<float> want(n);
  for (std::size_t i = 0; i < n; ++i) want[i] = table[index[i]] * x[i];
  std::vector<float> back;
  EXPECT_EQ(first_difference(k().lookup_async(table, index, x, 128, &back), want), "")
      << rng_.seed_note();
  EXPECT_EQ(first_difference(back, table), "");
}

TEST_P(ConstantPitched, UniformAndDivergentConstantReadsGiveTheirValues) {
  const std::vector<float> c = integers(rng_, 64, -1000, 1000);
  for (const unsigned kk : {1u, 2u, 7u, 32u, 64u}) {
    for (const unsigned block : {32u, 100u, 256u}) {
      const std::size_t n = 1013;
      const std::vector<float> x = integers(rng_, n, -1000, 1000);
      std::vector<float> want(n);
      for (std::size_t i = 0; i < n; ++i) want[i] = c[(i % block) % kk] + x[i];
      EXPECT_EQ(first_difference(k().strided_reads(c, x, kk, block), want), "")
          << "k " << kk << ", block " << block << "; " << rng_.seed_note();
    }
  }
}

TEST_P(ConstantPitched, AConstantStructAndAnInitialisedScalarAreRead) {
  const std::vector<float> x = integers(rng_, 131, -1000, 1000);
  const float scale = static_cast<float>(rng_.uniform<int>(1, -8, 8)[0]) / 4.0f;
  const float shift = static_cast<float>(rng_.uniform<int>(1, -100, 100)[0]);
  std::vector<float> want(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) want[i] = scale * x[i] + shift + 0.5f;
  EXPECT_EQ(first_difference(k().affine(scale, shift, x), want), "") << rng_.seed_note();
}

TEST_P(ConstantPitched, TheGuidesSymbolExamplesWorkUnchanged) {
  const std::vector<float> data = rng_.signed_uniform<float>(256, 0.1f, 100.0f);
  EXPECT_EQ(first_difference(k().guide_const_round_trip(data), data), "");
  const float value = rng_.uniform<float>(1, 1.0f, 4.0f)[0];
  EXPECT_EQ(k().guide_dev_data(value), value);
  EXPECT_TRUE(k().guide_dev_pointer());
  EXPECT_EQ(k().guide_symbol_size(), 256 * sizeof(float));
  EXPECT_EQ(first_difference(k().guide_symbol_address_read(data), data), "");
}

TEST_P(ConstantPitched, SymbolCopyErrorsAreTheGpusAndChangeNothing) {
  const std::vector<float> data = rng_.signed_uniform<float>(256, 0.1f, 100.0f);
  const SymbolErrors e = k().symbol_errors(data);
  EXPECT_EQ(e.past_end, cudaErrorInvalidValue);
  EXPECT_EQ(e.offset_past_end, cudaErrorInvalidValue);
  EXPECT_EQ(e.not_a_symbol, cudaErrorInvalidSymbol);
  EXPECT_EQ(e.wrong_direction, cudaErrorInvalidMemcpyDirection);
  EXPECT_EQ(e.from_past_end, cudaErrorInvalidValue);
  EXPECT_EQ(e.address_of_not_a_symbol, cudaErrorInvalidSymbol);
  EXPECT_EQ(e.size_of_not_a_symbol, cudaErrorInvalidSymbol);
  EXPECT_TRUE(e.unchanged);
}

// ---- pitched memory -------------------------------------------------------------------

// The emulator's rule (pitched_memory.hpp); on the GPU this test is the
// measurement: it prints the GPU's pitches, and fails where they differ.
TEST_P(ConstantPitched, MallocPitchGivesTheEmulatorsPitch) {
  for (const std::size_t width : {1u, 3u, 4u, 127u, 128u, 129u, 255u, 256u, 257u, 511u, 512u, 513u,
                                  1000u, 1024u, 2047u, 4096u, 4097u, 65536u, 65537u}) {
    const std::size_t pitch = k().pitch_of(width);
    const std::size_t rule = (width + cudalab::emu::kPitchAlignment - 1) /
                             cudalab::emu::kPitchAlignment * cudalab::emu::kPitchAlignment;
    std::printf("cudaMallocPitch width %zu bytes: pitch %zu (emulator's rule %zu)\n", width, pitch,
                rule);
    EXPECT_EQ(pitch, rule) << "width " << width;
  }
}

TEST_P(ConstantPitched, TheGuidesRowWalkRunsOverAPitchedArray) {
  EXPECT_EQ(k().guide_my_kernel(), cudaSuccess);
}

TEST_P(ConstantPitched, Memcpy2DRoundTripsThroughAPitchedKernel) {
  struct Shape {
    int width, height;
    unsigned bx, by;
  };
  for (const Shape s : {Shape{1, 1, 32, 8}, Shape{3, 5, 16, 16}, Shape{127, 13, 32, 4},
                        Shape{129, 7, 32, 8}, Shape{257, 3, 64, 2}, Shape{1000, 2, 128, 1}}) {
    for (const bool async : {false, true}) {
      const std::vector<float> in =
          rng_.signed_uniform<float>(static_cast<std::size_t>(s.width) * s.height, 0.1f, 50.0f);
      std::vector<float> want(in.size());
      for (int r = 0; r < s.height; ++r) {
        for (int c = 0; c < s.width; ++c) {
          want[r * s.width + c] = 2.0f * in[r * s.width + c] + static_cast<float>(r);
        }
      }
      EXPECT_EQ(first_difference(k().scale_rows(in, s.width, s.height, s.bx, s.by, async), want),
                "")
          << s.width << " x " << s.height << ", block " << s.bx << " x " << s.by
          << (async ? ", async" : "") << "; " << rng_.seed_note();
    }
  }
}

TEST_P(ConstantPitched, Memset2DSetsTheWidthColumnsAndNotThePadding) {
  for (const std::size_t width : {1u, 3u, 100u, 511u, 513u}) {
    for (const bool async : {false, true}) {
      const std::size_t height = 5;
      std::size_t pitch = 0;
      const std::vector<unsigned char> bytes = k().memset_columns(width, height, &pitch, async);
      ASSERT_EQ(bytes.size(), pitch * height);
      std::size_t wrong = 0;
      for (std::size_t r = 0; r < height; ++r) {
        for (std::size_t c = 0; c < pitch; ++c) {
          wrong += bytes[r * pitch + c] != (c < width ? 0x7f : 0x11);
        }
      }
      EXPECT_EQ(wrong, 0u) << "width " << width << ", pitch " << pitch;
    }
  }
}

TEST_P(ConstantPitched, Memcpy2DBetweenHostMatricesAndWithCudaMemcpyDefault) {
  for (const std::size_t width : {1u, 7u, 130u}) {
    const std::size_t height = 3;
    const std::vector<int> v = rng_.uniform<int>(width * height, 0, 255);
    const std::vector<unsigned char> in(v.begin(), v.end());
    EXPECT_EQ(k().host_and_default(in, width, height), in) << "width " << width;
  }
}

TEST_P(ConstantPitched, Pitched2DErrorsAreTheGpusAndChangeNothing) {
  const PitchErrors e = k().pitch_errors();
  EXPECT_EQ(e.width_over_dpitch, cudaErrorInvalidPitchValue);
  EXPECT_EQ(e.width_over_spitch, cudaErrorInvalidPitchValue);
  EXPECT_EQ(e.past_the_end, cudaErrorInvalidValue);
  EXPECT_EQ(e.memset_width_over_pitch, cudaErrorInvalidValue);
  EXPECT_EQ(e.memset_past_the_end, cudaErrorInvalidValue);
  EXPECT_TRUE(e.unchanged);
}

// ---- what only the emulator sees -----------------------------------------------------

TEST(ConstantPitchedEmu, EachWarpRequestCostsItsDistinctAddresses) {
  // 1024 threads in full warps: every request has 32 lanes.
  for (const unsigned kk : {1u, 2u, 5u, 32u}) {
    const ConstantFigures f = emulator_strided_figures(kk, 1024, 256);
    EXPECT_TRUE(f.clean) << f.reports;
    EXPECT_EQ(f.requests, 32u);
    EXPECT_EQ(f.transactions_per_request, static_cast<double>(kk)) << "k " << kk;
    // The global load of x is apart, and coalesced: constant reads are not in it.
    EXPECT_EQ(f.global_sectors_per_request, 4.0);
  }
  // 64 distinct addresses among 32 lanes cannot be: threadIdx % 64 gives 32.
  EXPECT_EQ(emulator_strided_figures(64, 1024, 256).transactions_per_request, 32.0);
}

TEST(ConstantPitchedEmu, APitchedKernelsRowsAreCoalescedAsTheGpuWouldBe) {
  // Rows start on 512-byte boundaries, so a warp of 32 consecutive floats of
  // one row touches ceil(4 * lanes / 32) sectors, whatever the width.
  struct Shape {
    int width, height;
    unsigned bx, by;
  };
  for (const Shape s : {Shape{100, 9, 32, 8}, Shape{129, 4, 32, 4}, Shape{1000, 3, 64, 2}}) {
    const PitchedFigures f = emulator_pitched_figures(s.width, s.height, s.bx, s.by);
    EXPECT_EQ(f.pitch % 512, 0u);
    unsigned long long requests = 0, sectors = 0;
    for (int r = 0; r < s.height; ++r) {
      for (int c0 = 0; c0 < s.width; c0 += 32) {
        const int lanes = std::min(32, s.width - c0);
        ++requests;
        sectors += static_cast<unsigned long long>((4 * lanes + 31) / 32);
      }
    }
    EXPECT_EQ(f.load_requests, requests) << s.width;
    EXPECT_EQ(f.load_sectors, sectors) << s.width;
    EXPECT_EQ(f.store_requests, requests) << s.width;
    EXPECT_EQ(f.store_sectors, sectors) << s.width;
  }
}

TEST(ConstantPitchedEmu, AStoreThroughAPointerToConstantMemoryIsReported) {
  const WriteReport r = emulator_constant_write();
  EXPECT_EQ(r.kind, "constant_write");
  EXPECT_NE(r.message.find("lut"), std::string::npos) << r.message;
  EXPECT_EQ(r.error, cudaErrorIllegalAddress);
}

TEST(ConstantPitchedEmu, EachVirtualDeviceHasItsOwnCopy) {
  const std::vector<float> got = emulator_per_device(3);
  EXPECT_EQ(got, (std::vector<float>{1.0f, 2.0f, 3.0f}));
}

TEST(ConstantPitchedEmu, ASymbolCopyUnorderedWithAKernelReadingItIsARace) {
  const std::string reports = emulator_symbol_race();
  EXPECT_NE(reports.find("Race between streams"), std::string::npos) << reports;
  EXPECT_NE(reports.find("lookup_kernel"), std::string::npos) << reports;
}

}  // namespace
}  // namespace constant_pitched
