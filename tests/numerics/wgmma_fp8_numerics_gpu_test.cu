// Hopper's fp8 wgmma.mma_async (.e4m3/.e5m2, m64n8k32) against the model of
// cudalab/numerics/fp8.hpp (labels gpu, numerics), bit for bit, for each of
// the four operand pairings: random K-blocks (131072 a pairing, operands
// finite), K-blocks with specials among their operands and accumulators
// (NaN, infinities of e5m2, the largest and the subnormal patterns, zeros of
// either sign), one m16n8 problem per instruction (rows 16-63 zero) as in
// wgmma_numerics_gpu_test.cu. Skipped, with the reason, without an sm_90 GPU
// (built for sm_90a only).
//
// With CUDALAB_NUMERICS_OUT=dir each test writes dir/wgmma_<a>_<b>.json: its
// figures, how other block sizes would fare, and the first differences with
// their inputs and both answers.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/device_info.hpp"
#include "cudalab/mbarrier.hpp"
#include "cudalab/numerics.hpp"
#include "cudalab/wgmma.hpp"
#include "mma_batches.hpp"

namespace {

using namespace cudalab::numerics;
using cudalab::DeviceBuffer;
using test_batches::hex_bits;
using test_batches::output_dir;

constexpr int kK = 32;

// count problems: A 16 x 32 bytes (row-major), B 32 x 8 bytes (row-major),
// C and D 16 x 8 floats, per problem.
struct Fp8Batch {
  Fp8Format format_a, format_b;
  int count = 0;
  std::vector<std::uint8_t> a, b;
  std::vector<float> c, d;
};

bool is_special(std::uint8_t bits, Fp8Format format) {
  if (format == Fp8Format::e4m3) return (bits & 0x7fu) == 0x7fu;
  return (bits & 0x7cu) == 0x7cu;  // e5m2 infinities and NaNs
}

// Patterns worth meeting in a block: NaN, infinities, the largest, the
// smallest normal and subnormal, the largest subnormal, zeros.
const std::vector<std::uint8_t>& specials(Fp8Format format) {
  static const std::vector<std::uint8_t> e4m3 = {0x7f, 0xff, 0x7e, 0xfe, 0x08, 0x88,
                                                 0x01, 0x81, 0x07, 0x00, 0x80};
  static const std::vector<std::uint8_t> e5m2 = {0x7c, 0xfc, 0x7d, 0x7e, 0xff, 0x7b,
                                                 0xfb, 0x04, 0x01, 0x83, 0x00, 0x80};
  return format == Fp8Format::e4m3 ? e4m3 : e5m2;
}

std::uint8_t finite_pattern(std::mt19937& rng, Fp8Format format) {
  for (;;) {
    const auto bits = static_cast<std::uint8_t>(rng() & 0xffu);
    if (!is_special(bits, format)) return bits;
  }
}

// An accumulator: zero a time in eight, else a random sign and significand
// times 2^[-12, 12].
float random_accumulator(std::mt19937& rng) {
  if (rng() % 8 == 0) return 0.0f;
  const int exponent = static_cast<int>(rng() % 25) - 12;
  const std::uint32_t bits =
      (rng() & 0x807fffffu) | (static_cast<std::uint32_t>(exponent + 127) << 23);
  return float_from_bits(bits);
}

void append_problems(Fp8Batch& batch, int problems, int specials_per_problem, unsigned seed) {
  std::mt19937 rng(seed);
  for (int m = 0; m < problems; ++m) {
    const std::size_t a0 = batch.a.size(), b0 = batch.b.size(), c0 = batch.c.size();
    for (int i = 0; i < 16 * kK; ++i) batch.a.push_back(finite_pattern(rng, batch.format_a));
    for (int i = 0; i < kK * 8; ++i) batch.b.push_back(finite_pattern(rng, batch.format_b));
    for (int i = 0; i < 128; ++i) batch.c.push_back(random_accumulator(rng));
    for (int s = 0; s < specials_per_problem; ++s) {
      const auto& sa = specials(batch.format_a);
      const auto& sb = specials(batch.format_b);
      batch.a[a0 + rng() % (16 * kK)] = sa[rng() % sa.size()];
      batch.b[b0 + rng() % (kK * 8)] = sb[rng() % sb.size()];
    }
    if (specials_per_problem > 0) {
      const float accumulators[] = {INFINITY, -INFINITY, NAN, -0.0f, 3.4e38f, 1e-40f};
      batch.c[c0 + rng() % 128] = accumulators[rng() % 6];
    }
    ++batch.count;
  }
}

template <Fp8Format FA, Fp8Format FB>
__global__ void wgmma_fp8_blocks(const std::uint8_t* A, const std::uint8_t* B, const float* C,
                                 float* D) {
  // K-major tiles without swizzle: core matrices of 8 rows x 16 bytes, LBO
  // 128 (the next 16 bytes of K), SBO 256 (the next 8 rows).
  __shared__ __align__(128) std::uint8_t a_tile[64 * kK];
  __shared__ __align__(128) std::uint8_t b_tile[8 * kK];
  const int m = blockIdx.x;
  const int t = threadIdx.x;
  const auto a_base = static_cast<std::uint32_t>(__cvta_generic_to_shared(a_tile));
  const auto b_base = static_cast<std::uint32_t>(__cvta_generic_to_shared(b_tile));
  const std::uint64_t desc_a =
      cudalab::wgmma_descriptor(a_base, 128, 256, cudalab::WgmmaSwizzle::none);
  const std::uint64_t desc_b =
      cudalab::wgmma_descriptor(b_base, 128, 256, cudalab::WgmmaSwizzle::none);
  const auto fa = cudalab::wgmma_descriptor_fields(desc_a);
  const auto fb = cudalab::wgmma_descriptor_fields(desc_b);
  for (int e = t; e < 64 * kK; e += 128) {
    const int row = e / kK, k = e % kK;
    a_tile[cudalab::wgmma_k_major_address(fa, row, k) - a_base] =
        row < 16 ? A[(m * 16 + row) * kK + k] : std::uint8_t{0};
  }
  for (int e = t; e < 8 * kK; e += 128) {
    const int column = e / kK, k = e % kK;
    b_tile[cudalab::wgmma_k_major_address(fb, column, k) - b_base] = B[(m * kK + k) * 8 + column];
  }
  cudalab::fence_proxy_async_shared();  // the stores, before the tensor core reads them
  __syncthreads();
  cudalab::WgmmaAccumulator<8> d;
  for (int i = 0; i < d.size; ++i) {
    const MatrixCoord at = cudalab::wgmma_accumulator_element(t, i);
    d[i] = at.row < 16 ? C[m * 128 + at.row * 8 + at.col] : 0.0f;
  }
  cudalab::wgmma_fence(d);
  if constexpr (FA == Fp8Format::e4m3 && FB == Fp8Format::e4m3) {
    cudalab::wgmma_e4m3<8>(d, desc_a, desc_b, true);
  } else if constexpr (FA == Fp8Format::e5m2 && FB == Fp8Format::e5m2) {
    cudalab::wgmma_e5m2<8>(d, desc_a, desc_b, true);
  } else if constexpr (FA == Fp8Format::e4m3) {
    cudalab::wgmma_e4m3_e5m2<8>(d, desc_a, desc_b, true);
  } else {
    cudalab::wgmma_e5m2_e4m3<8>(d, desc_a, desc_b, true);
  }
  cudalab::wgmma_commit_group();
  cudalab::wgmma_wait_group<0>(d);
  for (int i = 0; i < d.size; ++i) {
    const MatrixCoord at = cudalab::wgmma_accumulator_element(t, i);
    if (at.row < 16) D[m * 128 + at.row * 8 + at.col] = d[i];
  }
}

template <Fp8Format FA, Fp8Format FB>
void run_wgmma(Fp8Batch& batch) {
  DeviceBuffer<std::uint8_t> a(batch.a), b(batch.b);
  DeviceBuffer<float> c(batch.c), d(batch.c.size());
  wgmma_fp8_blocks<FA, FB><<<batch.count, 128>>>(a.data(), b.data(), c.data(), d.data());
  CUDA_CHECK_LAUNCH();
  batch.d = d.copy_to_host();
}

struct Comparison {
  long blocks = 0, differing_blocks = 0, differing_bits = 0;
  nlohmann::json first_differences = nlohmann::json::array();
};

// Every output element against fp8_dot in blocks of k_block.
Comparison compare_with_model(const Fp8Batch& batch, int k_block) {
  Comparison result;
  std::uint8_t a_row[kK], b_col[kK];
  for (int m = 0; m < batch.count; ++m) {
    for (int row = 0; row < 16; ++row) {
      for (int col = 0; col < 8; ++col) {
        for (int k = 0; k < kK; ++k) {
          a_row[k] = batch.a[(m * 16 + row) * kK + k];
          b_col[k] = batch.b[(m * kK + k) * 8 + col];
        }
        const std::size_t at = m * 128 + row * 8 + col;
        const std::uint32_t model = float_bits(
            fp8_dot(a_row, b_col, kK, batch.c[at], batch.format_a, batch.format_b, k_block));
        const std::uint32_t gpu = float_bits(batch.d[at]);
        ++result.blocks;
        if (model == gpu) continue;
        ++result.differing_blocks;
        result.differing_bits += std::popcount(model ^ gpu);
        if (result.first_differences.size() < 16) {
          nlohmann::json a = nlohmann::json::array(), b = nlohmann::json::array();
          for (int k = 0; k < kK; ++k) {
            a.push_back(hex_bits(a_row[k]));
            b.push_back(hex_bits(b_col[k]));
          }
          result.first_differences.push_back({{"problem", m},
                                              {"row", row},
                                              {"column", col},
                                              {"a", a},
                                              {"b", b},
                                              {"c", hex_bits(float_bits(batch.c[at]))},
                                              {"gpu", hex_bits(gpu)},
                                              {"model", hex_bits(model)},
                                              {"differing_bits", hex_bits(model ^ gpu)}});
        }
      }
    }
  }
  return result;
}

template <Fp8Format FA, Fp8Format FB>
void check_wgmma_fp8() {
  constexpr int random_problems = 1024;  // 131072 random K-blocks
  constexpr int special_problems = 256;  // 32768 more, with specials among their operands
  const std::string name = std::string(fp8_format_name(FA)) + "_" + fp8_format_name(FB);
  Fp8Batch batch{FA, FB};
  const unsigned seed = 0x38f80000u + 16u * static_cast<unsigned>(FA) + static_cast<unsigned>(FB);
  append_problems(batch, random_problems, 0, seed);
  append_problems(batch, special_problems, 4, seed + 0x1000u);
  run_wgmma<FA, FB>(batch);
  const Comparison model = compare_with_model(batch, wgmma_fp8_k_block);
  const Comparison sixteen = compare_with_model(batch, 16);
  const Comparison eight = compare_with_model(batch, 8);
  std::printf(
      "%s wgmma m64n8k32: %ld K-blocks, %ld differ from the model (K-block %d) in %ld bits; in "
      "chained blocks of 16: %ld differ, of 8: %ld differ\n",
      name.c_str(), model.blocks, model.differing_blocks, wgmma_fp8_k_block, model.differing_bits,
      sixteen.differing_blocks, eight.differing_blocks);
  if (const char* dir = output_dir()) {
    const nlohmann::json figures = {
        {"formats", name},
        {"instruction", "wgmma.mma_async.sync.aligned.m64n8k32.f32." +
                            std::string(fp8_format_name(FA)) + "." + fp8_format_name(FB)},
        {"blocks", model.blocks},
        {"random_problems", random_problems},
        {"special_problems", special_problems},
        {"model_k_block", wgmma_fp8_k_block},
        {"differing_blocks", model.differing_blocks},
        {"differing_bits", model.differing_bits},
        {"differing_blocks_in_chained_blocks_of_16", sixteen.differing_blocks},
        {"differing_blocks_in_chained_blocks_of_8", eight.differing_blocks},
        {"first_differences", model.first_differences}};
    std::ofstream(std::string(dir) + "/wgmma_" + name + ".json") << figures.dump(2) << "\n";
  }
  EXPECT_EQ(model.differing_blocks, 0) << name;
}

class WgmmaFp8NumericsGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string reason = cudalab::missing_capability_reason(9, "wgmma (sm_90a)", true);
    if (!reason.empty()) GTEST_SKIP() << reason;
  }
};

TEST_F(WgmmaFp8NumericsGpu, E4m3BlocksMatchTheModelBitForBit) {
  check_wgmma_fp8<Fp8Format::e4m3, Fp8Format::e4m3>();
}
TEST_F(WgmmaFp8NumericsGpu, E5m2BlocksMatchTheModelBitForBit) {
  check_wgmma_fp8<Fp8Format::e5m2, Fp8Format::e5m2>();
}
TEST_F(WgmmaFp8NumericsGpu, E4m3TimesE5m2BlocksMatchTheModelBitForBit) {
  check_wgmma_fp8<Fp8Format::e4m3, Fp8Format::e5m2>();
}
TEST_F(WgmmaFp8NumericsGpu, E5m2TimesE4m3BlocksMatchTheModelBitForBit) {
  check_wgmma_fp8<Fp8Format::e5m2, Fp8Format::e4m3>();
}

}  // namespace
