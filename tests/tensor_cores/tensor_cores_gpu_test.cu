// Tensor cores on both backends (labels gpu, numerics): the same GEMMs of
// tc_kernels.cuh on the GPU (nvcc, real mma.sync and <mma.h>) and on the
// emulator, same inputs, outputs compared bit for bit; and wmma.mma's
// .satfinite, which only PTX 6.4 still has (tc_satfinite_gpu.cu). Skipped,
// with the reason, where there is no GPU.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>

#include "cudalab/device_info.hpp"
#include "tc_inputs.hpp"
#include "tc_runners.hpp"

namespace tensor_cores {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (!cudalab::has_gpu()) GTEST_SKIP() << cudalab::no_gpu_reason()

constexpr int M = 64, N = 64, K = 128;

void expect_same(const Gemm& gpu, const Gemm& emu, const std::vector<float>& model) {
  ASSERT_EQ(gpu.error, cudaSuccess);
  ASSERT_EQ(emu.error, cudaSuccess);
  EXPECT_EQ(differing(gpu.c, emu.c), 0u) << "GPU and emulator";
  EXPECT_EQ(differing(gpu.c, model), 0u) << "GPU and the model";
}

TEST(TensorCoresGpu, WmmaTf32GemmIsBitIdenticalOnBothBackends) {
  SKIP_WITHOUT_GPU();
  for (unsigned seed : {1u, 2u, 3u}) {
    for (bool integers : {true, false}) {
      const auto a = random_floats(M * K, seed, integers);
      const auto b = random_floats(K * N, seed + 100, integers);
      expect_same(on_gpu::wmma_tf32(a, b, M, N, K), on_emu::wmma_tf32(a, b, M, N, K),
                  model_tf32_gemm(a, b, M, N, K));
    }
  }
}

TEST(TensorCoresGpu, MmaF16GemmIsBitIdenticalOnBothBackends) {
  SKIP_WITHOUT_GPU();
  for (unsigned seed : {4u, 5u, 6u}) {
    for (bool integers : {true, false}) {
      const auto a = to_fp16(random_floats(M * K, seed, integers));
      const auto b = to_fp16(random_floats(K * N, seed + 100, integers));
      expect_same(on_gpu::mma_f16(a, b, M, N, K, false), on_emu::mma_f16(a, b, M, N, K, false),
                  model_fp16_gemm(a, b, M, N, K));
      // The wrong layout is wrong on both, in the same bits.
      const Gemm gpu = on_gpu::mma_f16(a, b, M, N, K, true);
      const Gemm emu = on_emu::mma_f16(a, b, M, N, K, true);
      EXPECT_EQ(differing(gpu.c, emu.c), 0u);
      EXPECT_GT(differing(gpu.c, model_fp16_gemm(a, b, M, N, K)), 0u);
    }
  }
}

TEST(TensorCoresGpu, WmmaF16GemmIsBitIdenticalOnBothBackends) {
  SKIP_WITHOUT_GPU();
  for (unsigned seed : {7u, 8u}) {
    for (bool integers : {true, false}) {
      const auto a = to_fp16(random_floats(M * K, seed, integers));
      const auto b = to_fp16(random_floats(K * N, seed + 100, integers));
      const auto b_t = column_major(b, K, N);
      expect_same(on_gpu::wmma_f16(a, b_t, M, N, K), on_emu::wmma_f16(a, b_t, M, N, K),
                  model_fp16_gemm(a, b, M, N, K));
    }
  }
}

// wmma m16n16k16 and mma.sync m16n8k16: one K-block of 16 on the H200?
TEST(TensorCoresGpu, Bf16AndTf32InstructionsAreBitIdenticalOnBothBackends) {
  SKIP_WITHOUT_GPU();
  for (bool tf32 : {false, true}) {
    for (unsigned seed : {11u, 12u, 13u}) {
      SCOPED_TRACE(std::string(tf32 ? "mma_m16n8k8_tf32" : "mma_m16n8k16_bf16") + ", seed " +
                   std::to_string(seed));
      const std::vector<std::uint32_t> registers = random_registers(seed, tf32);
      expect_same(on_gpu::mma_one(registers, tf32), on_emu::mma_one(registers, tf32),
                  model_one_instruction(registers, tf32));
    }
  }
}

TEST(TensorCoresGpu, KBlockProbe) {
  SKIP_WITHOUT_GPU();
  const KBlockProbe p = k_block_probe();
  const Gemm mma = on_gpu::mma_f16(p.a, p.b, 16, 16, 16, false);
  const Gemm wmma = on_gpu::wmma_f16(p.a, column_major(p.b, 16, 16), 16, 16, 16);
  ASSERT_EQ(mma.error, cudaSuccess);
  ASSERT_EQ(wmma.error, cudaSuccess);
  RecordProperty("mma_m16n8k16_c00", std::to_string(nx::float_bits(mma.c[0])));
  RecordProperty("wmma_m16n16k16_c00", std::to_string(nx::float_bits(wmma.c[0])));
  EXPECT_EQ(nx::float_bits(mma.c[0]), 0x3f800001u) << "0x3f800000 would be two blocks of 8";
  EXPECT_EQ(nx::float_bits(wmma.c[0]), 0x3f800001u) << "0x3f800000 would be two blocks of 8";
}

// Infinities and NaNs from operands, from C and (bf16) from products that
// overflow fp32: the same bits on both backends and in the model.
TEST(TensorCoresGpu, WmmaInfinitiesAndNaNsAreBitIdenticalOnBothBackends) {
  SKIP_WITHOUT_GPU();
  for (bool bf16 : {false, true}) {
    SCOPED_TRACE(bf16 ? "bf16" : "fp16");
    const SpecialsTile t = specials_tile(bf16);
    const Gemm gpu = on_gpu::wmma_tile(t.a, t.b_col_major, t.c, bf16);
    const Gemm emu = on_emu::wmma_tile(t.a, t.b_col_major, t.c, bf16);
    expect_same(gpu, emu, model_tile(t));
    for (int i = 0; i < 256 && !gpu.c.empty() && !emu.c.empty(); ++i) {
      EXPECT_EQ(nx::float_bits(gpu.c[i]), nx::float_bits(emu.c[i]))
          << "D(" << i / 16 << ", " << i % 16 << "): GPU " << gpu.c[i] << ", emulator " << emu.c[i];
    }
  }
}

// How many of D's elements the satf rule of the CUDA Programming Guide
// (+inf -> +MAX_NORM, -inf -> -MAX_NORM, NaN -> +0) would change.
std::size_t saturated_by_the_guides_rule(const std::vector<float>& unsaturated,
                                         const std::vector<float>& d) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < d.size(); ++i) {
    const float x = unsaturated[i];
    const float rule = std::isnan(x) ? 0.0f : std::isinf(x) ? std::copysign(FLT_MAX, x) : x;
    if (nx::float_bits(rule) != nx::float_bits(x) && nx::float_bits(d[i]) == nx::float_bits(rule)) {
      ++count;
    }
  }
  return count;
}

// The wmma kernel without .satfinite, from PTX 6.4 at run time: the loading
// path of the test below gives what nvcc's wmma gives.
TEST(TensorCoresGpu, SatfiniteProbeWithoutTheModifierMatchesTheEmulator) {
  SKIP_WITHOUT_GPU();
  const SpecialsTile t = specials_tile(false);
  expect_same(on_gpu::wmma_f16_tile_ptx64(t.a, t.b_col_major, t.c, false),
              on_emu::wmma_tile(t.a, t.b_col_major, t.c, false), model_tile(t));
}

// wmma.mma ... .f32.f32.satfinite (PTX 6.4; ptxas: "may produce unexpected
// results on sm_70 and later") gives the unsaturated D: ptxas compiles it to
// the same cubin as without the modifier, so the emulator, which has no satf,
// gives the GPU's bits. Should this fail, the GPU saturates after all: the
// count says whether by the Programming Guide's rule.
TEST(TensorCoresGpu, SatfiniteIsIgnoredByTheGpuAsByTheEmulator) {
  SKIP_WITHOUT_GPU();
  const SpecialsTile t = specials_tile(false);
  const Gemm gpu = on_gpu::wmma_f16_tile_ptx64(t.a, t.b_col_major, t.c, true);
  const Gemm emu = on_emu::wmma_tile(t.a, t.b_col_major, t.c, false);
  ASSERT_EQ(gpu.error, cudaSuccess);
  ASSERT_EQ(emu.error, cudaSuccess);
  std::size_t specials = 0;
  for (float x : emu.c) specials += std::isnan(x) || std::isinf(x);
  const std::size_t saturated = saturated_by_the_guides_rule(emu.c, gpu.c);
  std::printf(
      "wmma .satfinite: %zu of %zu elements of D differ from the unsaturated D; "
      "%zu of its %zu infinities and NaNs became what the satf rule gives\n",
      differing(gpu.c, emu.c), gpu.c.size(), saturated, specials);
  RecordProperty("differing_from_unsaturated", std::to_string(differing(gpu.c, emu.c)));
  RecordProperty("saturated_by_the_rule", std::to_string(saturated));
  EXPECT_GE(specials, 64u) << "the tile must hold infinities and NaNs";
  EXPECT_EQ(differing(gpu.c, emu.c), 0u);
}

TEST(TensorCoresGpu, LdmatrixGivesTheSameRegistersOnBothBackends) {
  SKIP_WITHOUT_GPU();
  std::vector<std::uint16_t> tile(16 * 16);
  for (int i = 0; i < 16 * 16; ++i) tile[i] = static_cast<std::uint16_t>(0x100 + i);
  const Registers gpu = on_gpu::ldmatrix_tile(tile);
  const Registers emu = on_emu::ldmatrix_tile(tile);
  ASSERT_EQ(gpu.error, cudaSuccess);
  ASSERT_EQ(emu.error, cudaSuccess);
  for (std::size_t i = 0; i < gpu.r.size(); ++i) {
    EXPECT_EQ(gpu.r[i], emu.r[i]) << "lane " << i / 12 << " register " << i % 12;
  }
}

TEST(TensorCoresGpu, CpAsyncCopiesTheSameBytesOnBothBackends) {
  SKIP_WITHOUT_GPU();
  std::vector<std::uint32_t> source(64 * 4);
  for (std::size_t i = 0; i < source.size(); ++i) {
    source[i] = 0x01010101u * static_cast<std::uint32_t>(i % 255 + 1);
  }
  const Registers gpu = on_gpu::cp_async_copy(source);
  const Registers emu = on_emu::cp_async_copy(source);
  ASSERT_EQ(gpu.error, cudaSuccess);
  ASSERT_EQ(emu.error, cudaSuccess);
  EXPECT_EQ(gpu.r, emu.r);
}

}  // namespace
}  // namespace tensor_cores
