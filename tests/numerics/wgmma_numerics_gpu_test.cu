// Hopper's wgmma.mma_async against the block-FMA model (labels gpu,
// numerics): the random, special and hand-made K-blocks of mma_batches.hpp, one
// m16n8 problem per wgmma m64n8 instruction (its rows 0-15; rows 16-63 are
// zero), compared bit for bit with mma_dot in blocks of
// numerics::wgmma_k_block, the parameter the emulator's wgmma uses. Skipped,
// with the reason, without an sm_90 GPU (built for sm_90a only).
//
// With CUDALAB_NUMERICS_OUT=dir each test writes dir/wgmma_<format>.json:
// its figures, how the alternative block sizes would fare, and the first
// differences with their inputs and both answers.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/device_info.hpp"
#include "cudalab/mbarrier.hpp"
#include "cudalab/numerics.hpp"
#include "cudalab/wgmma.hpp"
#include "mma_batches.hpp"

namespace {

using namespace cudalab::numerics;
using namespace cudalab::numerics::test_batches;
using cudalab::DeviceBuffer;

__device__ void store_element(std::uint8_t* at, std::uint32_t bits, int bytes) {
  if (bytes == 2) {
    *reinterpret_cast<std::uint16_t*>(at) = static_cast<std::uint16_t>(bits);
  } else {
    *reinterpret_cast<std::uint32_t*>(at) = bits;
  }
}

// One problem per block of 128 threads (a warpgroup). A (16 x K), B (K x 8)
// and C, D (16 x 8) as in MmaBatch. The tiles are K-major without swizzle:
// core matrices of 8 rows x 16 bytes, LBO 128 (the next 16 bytes of K),
// SBO 256 (the next 8 rows).
template <MmaFormat F>
__global__ void wgmma_blocks(const std::uint32_t* A, const std::uint32_t* B, const float* C,
                             float* D) {
  constexpr int K = F == MmaFormat::tf32 ? 8 : 16;
  constexpr int bytes = F == MmaFormat::tf32 ? 4 : 2;
  __shared__ __align__(128) std::uint8_t a_tile[64 * 32];
  __shared__ __align__(128) std::uint8_t b_tile[8 * 32];
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
  for (int e = t; e < 64 * K; e += 128) {
    const int row = e / K, k = e % K;
    const std::uint32_t bits = row < 16 ? A[(m * 16 + row) * K + k] : 0u;
    store_element(a_tile + (cudalab::wgmma_k_major_address(fa, row, k * bytes) - a_base), bits,
                  bytes);
  }
  for (int e = t; e < 8 * K; e += 128) {
    const int column = e / K, k = e % K;
    store_element(b_tile + (cudalab::wgmma_k_major_address(fb, column, k * bytes) - b_base),
                  B[(m * K + k) * 8 + column], bytes);
  }
  cudalab::fence_proxy_async_shared();  // the stores, before the tensor core reads them
  __syncthreads();
  cudalab::WgmmaAccumulator<8> d;
  for (int i = 0; i < d.size; ++i) {
    const MatrixCoord at = cudalab::wgmma_accumulator_element(t, i);
    d[i] = at.row < 16 ? C[m * 128 + at.row * 8 + at.col] : 0.0f;
  }
  cudalab::wgmma_fence(d);
  if constexpr (F == MmaFormat::fp16) {
    cudalab::wgmma_f16<8>(d, desc_a, desc_b, true);
  } else if constexpr (F == MmaFormat::bf16) {
    cudalab::wgmma_bf16<8>(d, desc_a, desc_b, true);
  } else {
    cudalab::wgmma_tf32<8>(d, desc_a, desc_b, true);
  }
  cudalab::wgmma_commit_group();
  cudalab::wgmma_wait_group<0>(d);
  for (int i = 0; i < d.size; ++i) {
    const MatrixCoord at = cudalab::wgmma_accumulator_element(t, i);
    if (at.row < 16) D[m * 128 + at.row * 8 + at.col] = d[i];
  }
}

void run_wgmma(MmaBatch& batch) {
  DeviceBuffer<std::uint32_t> a(batch.a), b(batch.b);
  DeviceBuffer<float> c(batch.c), d(batch.c.size());
  switch (batch.format) {
    case MmaFormat::fp16:
      wgmma_blocks<MmaFormat::fp16><<<batch.count, 128>>>(a.data(), b.data(), c.data(), d.data());
      break;
    case MmaFormat::bf16:
      wgmma_blocks<MmaFormat::bf16><<<batch.count, 128>>>(a.data(), b.data(), c.data(), d.data());
      break;
    case MmaFormat::tf32:
      wgmma_blocks<MmaFormat::tf32><<<batch.count, 128>>>(a.data(), b.data(), c.data(), d.data());
      break;
  }
  CUDA_CHECK_LAUNCH();
  batch.d = d.copy_to_host();
}

void check_wgmma(MmaFormat format) {
  constexpr int random_problems = 1024;  // 131072 random K-blocks
  constexpr int special_problems = 256;  // 32768 more, with specials among their operands
  MmaBatch batch =
      random_batch(format, random_problems, 0x36a30000u + static_cast<unsigned>(format));
  append_special_problems(batch, special_problems, 0x36a31000u + static_cast<unsigned>(format));
  append_edge_vectors(batch);
  run_wgmma(batch);
  const int k_block = wgmma_k_block(format);
  const Comparison model = compare_with_model(batch, k_block, true);
  const Comparison whole = compare_with_model(batch, batch.k, false);
  const Comparison halves = compare_with_model(batch, batch.k / 2, false);
  std::printf(
      "%s wgmma m64n8k%d: %ld K-blocks, %ld differ from the model (K-block %d) in %ld bits; "
      "as one block of %d: %ld differ, as two chained blocks of %d: %ld differ\n",
      format_name(format), batch.k, model.blocks, model.differing_blocks, k_block,
      model.differing_bits, batch.k, whole.differing_blocks, batch.k / 2, halves.differing_blocks);
  if (const char* dir = output_dir()) {
    const nlohmann::json figures = {
        {"format", format_name(format)},
        {"instruction",
         std::string("wgmma.mma_async.sync.aligned.m64n8k") + std::to_string(batch.k)},
        {"blocks", model.blocks},
        {"random_problems", random_problems},
        {"special_problems", special_problems},
        {"edge_vector_problems", batch.count - random_problems - special_problems},
        {"model_k_block", k_block},
        {"differing_blocks", model.differing_blocks},
        {"differing_bits", model.differing_bits},
        {"differing_blocks_as_one_block_of_k", whole.differing_blocks},
        {"differing_blocks_as_two_chained_blocks_of_half_k", halves.differing_blocks},
        {"first_differences", model.first_differences}};
    std::ofstream(std::string(dir) + "/wgmma_" + format_name(format) + ".json")
        << figures.dump(2) << "\n";
  }
  EXPECT_EQ(model.differing_blocks, 0) << format_name(format);
}

class WgmmaNumericsGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string reason = cudalab::missing_capability_reason(9, "wgmma (sm_90a)", true);
    if (!reason.empty()) GTEST_SKIP() << reason;
  }
};

TEST_F(WgmmaNumericsGpu, Fp16BlocksMatchTheModelBitForBit) { check_wgmma(MmaFormat::fp16); }
TEST_F(WgmmaNumericsGpu, Bf16BlocksMatchTheModelBitForBit) { check_wgmma(MmaFormat::bf16); }
TEST_F(WgmmaNumericsGpu, Tf32BlocksMatchTheModelBitForBit) { check_wgmma(MmaFormat::tf32); }

}  // namespace
