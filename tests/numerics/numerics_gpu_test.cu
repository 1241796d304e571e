// cudalab/numerics against the GPU (labels gpu, numerics): every fp16 and
// bf16 pattern, the TF32 roundings, and random K-blocks through mma.sync,
// compared bit for bit with the host model. Skipped, with the reason, where
// there is no GPU. Nothing here asserts a speed.
//
// With CUDALAB_NUMERICS_OUT=dir, each mma test also writes, for the record in
// docs/results/numerics/, dir/mma_<format>.json (its figures) and
// dir/mma_<format>.bin (its inputs and the GPU's answers: int32 count and K,
// then A, B as uint32 patterns, C and D as floats, in the layout of MmaBatch).
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/device_info.hpp"
#include "cudalab/kernel.hpp"
#include "cudalab/mma_operands.hpp"
#include "cudalab/numerics.hpp"
#include "edge_vectors.hpp"
#include "mma_batches.hpp"

namespace {

using namespace cudalab::numerics;
using cudalab::DeviceBuffer;
using namespace cudalab::numerics::test_batches;

#define SKIP_WITHOUT_GPU() \
  if (!cudalab::has_gpu()) GTEST_SKIP() << cudalab::no_gpu_reason()

// ---------------------------------------------------------------- conversions

__global__ void convert_16bit_patterns(const std::uint16_t* in, std::uint32_t* from_fp16,
                                       std::uint32_t* from_bf16, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  from_fp16[i] = __float_as_uint(__half2float(__ushort_as_half(in[i])));
  from_bf16[i] = __float_as_uint(__bfloat162float(__ushort_as_bfloat16(in[i])));
}

struct Fp32Conversions {
  std::uint16_t fp16;
  std::uint16_t bf16;
  std::uint32_t tf32_rz, tf32_rna, tf32_rn;
};

__global__ void convert_fp32_patterns(const std::uint32_t* in, Fp32Conversions* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = __uint_as_float(in[i]);
  Fp32Conversions r;
  r.fp16 = __half_as_ushort(__float2half_rn(x));
  r.bf16 = __bfloat16_as_ushort(__float2bfloat16_rn(x));
  asm("cvt.rz.tf32.f32 %0, %1;" : "=r"(r.tf32_rz) : "f"(x));
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r.tf32_rna) : "f"(x));
  asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(r.tf32_rn) : "f"(x));
  out[i] = r;
}

int blocks_for(std::size_t n) { return static_cast<int>((n + 255) / 256); }

// Prints up to `limit` differences of one conversion and returns how many there were.
struct DifferenceCounter {
  std::string what;
  long count = 0;
  void note(std::uint32_t input, std::uint32_t gpu, std::uint32_t model) {
    if (gpu == model) return;
    if (++count <= 8) {
      std::printf("  %s: input 0x%08x  gpu 0x%08x  model 0x%08x\n", what.c_str(), input, gpu,
                  model);
    }
  }
};

TEST(GpuNumericsFormats, EverySixteenBitPatternToFp32AndBack) {
  SKIP_WITHOUT_GPU();
  std::vector<std::uint16_t> patterns(1 << 16);
  for (std::uint32_t h = 0; h < patterns.size(); ++h) patterns[h] = static_cast<std::uint16_t>(h);
  DeviceBuffer<std::uint16_t> in(patterns);
  DeviceBuffer<std::uint32_t> from_fp16(patterns.size()), from_bf16(patterns.size());
  convert_16bit_patterns<<<blocks_for(patterns.size()), 256>>>(
      in.data(), from_fp16.data(), from_bf16.data(), static_cast<int>(patterns.size()));
  CUDA_CHECK_LAUNCH();
  const auto gpu_fp16 = from_fp16.copy_to_host(), gpu_bf16 = from_bf16.copy_to_host();
  DifferenceCounter to_fp32_from_fp16{"__half2float"}, to_fp32_from_bf16{"__bfloat162float"};
  std::vector<std::uint32_t> back;  // every fp32 value of both, converted back below
  for (std::uint32_t h = 0; h < patterns.size(); ++h) {
    const auto p = static_cast<std::uint16_t>(h);
    to_fp32_from_fp16.note(h, gpu_fp16[h], float_bits(fp16_bits_to_fp32(p)));
    to_fp32_from_bf16.note(h, gpu_bf16[h], float_bits(bf16_bits_to_fp32(p)));
    back.push_back(gpu_fp16[h]);
    back.push_back(gpu_bf16[h]);
  }
  EXPECT_EQ(to_fp32_from_fp16.count, 0);
  EXPECT_EQ(to_fp32_from_bf16.count, 0);

  DeviceBuffer<std::uint32_t> fp32_in(back);
  DeviceBuffer<Fp32Conversions> out(back.size());
  convert_fp32_patterns<<<blocks_for(back.size()), 256>>>(fp32_in.data(), out.data(),
                                                          static_cast<int>(back.size()));
  CUDA_CHECK_LAUNCH();
  const auto gpu = out.copy_to_host();
  DifferenceCounter fp16_back{"__float2half_rn (round trip)"},
      bf16_back{"__float2bfloat16_rn (round trip)"};
  for (std::size_t i = 0; i < back.size(); i += 2) {
    fp16_back.note(back[i], gpu[i].fp16, fp32_to_fp16_bits(float_from_bits(back[i])));
    bf16_back.note(back[i + 1], gpu[i + 1].bf16, fp32_to_bf16_bits(float_from_bits(back[i + 1])));
  }
  std::printf("all 65536 fp16 and bf16 patterns to fp32 and back: %ld, %ld, %ld, %ld differences\n",
              to_fp32_from_fp16.count, to_fp32_from_bf16.count, fp16_back.count, bf16_back.count);
  EXPECT_EQ(fp16_back.count, 0);
  EXPECT_EQ(bf16_back.count, 0);
}

// fp32 inputs that decide roundings: every fp16 and bf16 value, the
// midpoints between neighbours and one fp32 ulp either side of them, TF32
// ties, specials, and random patterns.
std::vector<std::uint32_t> rounding_probe_inputs() {
  std::vector<std::uint32_t> v;
  auto around = [&](std::uint32_t bits) {
    for (std::uint32_t d : {0u, 1u, 0xffffffffu}) v.push_back(bits + d);
  };
  for (std::uint32_t h = 0; h < 0x7c00u; ++h) {
    const float lo = fp16_bits_to_fp32(static_cast<std::uint16_t>(h));
    const float hi = fp16_bits_to_fp32(static_cast<std::uint16_t>(h + 1));
    for (std::uint32_t sign : {0u, 0x80000000u}) {
      around(sign | float_bits(lo));
      around(sign | float_bits(0.5f * (lo + hi)));  // exact: 12 significant bits
    }
  }
  for (std::uint32_t b = 0; b < 0x7f80u; b += 1) {
    const std::uint32_t lo = b << 16;
    for (std::uint32_t sign : {0u, 0x80000000u}) {
      around(sign | lo);
      around(sign | (lo + 0x8000u));  // the midpoint to the next bf16
    }
  }
  for (std::uint32_t e = 0; e < 256; ++e) {
    for (std::uint32_t f : {0x0u, 0x1000u, 0x1800u, 0x3000u, 0x7fe000u, 0x7ff000u, 0x7fffffu}) {
      around((e << 23) | f);
      around(0x80000000u | (e << 23) | f);
    }
  }
  for (std::uint32_t special :
       {0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u, 0xffffffffu, 0x7fbfffffu, 0x00000000u,
        0x80000000u, 0x00000001u, 0x3f801000u, 0x3f801800u}) {
    v.push_back(special);
  }
  std::mt19937 rng(20261130u);
  for (int i = 0; i < (1 << 20); ++i) v.push_back(rng());
  return v;
}

TEST(GpuNumericsFormats, RoundingsOfFp32AgainstTheDevice) {
  SKIP_WITHOUT_GPU();
  const std::vector<std::uint32_t> inputs = rounding_probe_inputs();
  DeviceBuffer<std::uint32_t> in(inputs);
  DeviceBuffer<Fp32Conversions> out(inputs.size());
  convert_fp32_patterns<<<blocks_for(inputs.size()), 256>>>(in.data(), out.data(),
                                                            static_cast<int>(inputs.size()));
  CUDA_CHECK_LAUNCH();
  const auto gpu = out.copy_to_host();
  DifferenceCounter fp16{"__float2half_rn"}, bf16{"__float2bfloat16_rn"}, rz{"cvt.rz.tf32.f32"},
      rna{"cvt.rna.tf32.f32"}, rn{"cvt.rn.tf32.f32"};
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const float x = float_from_bits(inputs[i]);
    fp16.note(inputs[i], gpu[i].fp16, fp32_to_fp16_bits(x));
    bf16.note(inputs[i], gpu[i].bf16, fp32_to_bf16_bits(x));
    rz.note(inputs[i], gpu[i].tf32_rz, float_bits(fp32_to_tf32(x, Tf32Rounding::toward_zero)));
    rna.note(inputs[i], gpu[i].tf32_rna, float_bits(fp32_to_tf32(x, Tf32Rounding::ties_away)));
    rn.note(inputs[i], gpu[i].tf32_rn, float_bits(fp32_to_tf32(x, Tf32Rounding::nearest_even)));
  }
  std::printf("%zu fp32 inputs: differences fp16 %ld, bf16 %ld, tf32 rz %ld, rna %ld, rn %ld\n",
              inputs.size(), fp16.count, bf16.count, rz.count, rna.count, rn.count);
  EXPECT_EQ(fp16.count, 0);
  EXPECT_EQ(bf16.count, 0);
  EXPECT_EQ(rz.count, 0);
  EXPECT_EQ(rna.count, 0);
  EXPECT_EQ(rn.count, 0);
}

// ---------------------------------------------------------------- mma.sync

// One mma per warp. Operands are bit patterns, one per uint32 (fp16/bf16 in
// the low half): A is 16 x K row-major, B is K x 8 row-major, C and D 16 x 8.
template <MmaFormat F>
struct MmaShape {
  static constexpr int k = F == MmaFormat::tf32 ? 8 : 16;
};

template <MmaFormat F>
__global__ void mma_blocks(const std::uint32_t* A, const std::uint32_t* B, const float* C, float* D,
                           int count) {
  constexpr int K = MmaShape<F>::k;
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (warp >= count) return;  // whole warps only: blockDim is a multiple of 32
  A += warp * 16 * K;
  B += warp * K * 8;
  C += warp * 16 * 8;
  D += warp * 16 * 8;
  float c[4], d[4];
  for (int i = 0; i < 4; ++i) {
    const MatrixCoord at = m16n8_c_element(lane, i);
    c[i] = C[at.row * 8 + at.col];
  }
  const auto a_at = [&](int row, int col) { return A[row * K + col]; };
  const auto b_at = [&](int row, int col) { return B[row * 8 + col]; };
  cudalab::mma_sync_on_elements(F, lane, d, a_at, b_at, c);
  for (int i = 0; i < 4; ++i) {
    const MatrixCoord at = m16n8_c_element(lane, i);
    D[at.row * 8 + at.col] = d[i];
  }
}

void run_on_gpu(MmaBatch& batch) {
  DeviceBuffer<std::uint32_t> a(batch.a), b(batch.b);
  DeviceBuffer<float> c(batch.c), d(batch.c.size());
  const int threads = 128;
  const int grid = (batch.count * 32 + threads - 1) / threads;
  switch (batch.format) {
    case MmaFormat::fp16:
      mma_blocks<MmaFormat::fp16>
          <<<grid, threads>>>(a.data(), b.data(), c.data(), d.data(), batch.count);
      break;
    case MmaFormat::bf16:
      mma_blocks<MmaFormat::bf16>
          <<<grid, threads>>>(a.data(), b.data(), c.data(), d.data(), batch.count);
      break;
    case MmaFormat::tf32:
      mma_blocks<MmaFormat::tf32>
          <<<grid, threads>>>(a.data(), b.data(), c.data(), d.data(), batch.count);
      break;
  }
  CUDA_CHECK_LAUNCH();
  batch.d = d.copy_to_host();
}

void dump(const MmaBatch& batch) {
  const char* dir = output_dir();
  if (dir == nullptr) return;
  std::ofstream out(std::string(dir) + "/mma_" + format_name(batch.format) + ".bin",
                    std::ios::binary);
  const std::int32_t header[2] = {batch.count, batch.k};
  out.write(reinterpret_cast<const char*>(header), sizeof header);
  out.write(reinterpret_cast<const char*>(batch.a.data()), batch.a.size() * 4);
  out.write(reinterpret_cast<const char*>(batch.b.data()), batch.b.size() * 4);
  out.write(reinterpret_cast<const char*>(batch.c.data()), batch.c.size() * 4);
  out.write(reinterpret_cast<const char*>(batch.d.data()), batch.d.size() * 4);
}

void write_figures(MmaFormat format, const nlohmann::json& figures) {
  const char* dir = output_dir();
  if (dir == nullptr) return;
  std::ofstream(std::string(dir) + "/mma_" + format_name(format) + ".json")
      << figures.dump(2) << "\n";
}

void check_mma(MmaFormat format) {
  constexpr int random_mmas = 1024;  // 131072 random K-blocks
  MmaBatch batch = random_batch(format, random_mmas, 0x5eed0000u + static_cast<unsigned>(format));
  append_edge_vectors(batch);
  run_on_gpu(batch);
  dump(batch);
  const int k_block = mma_k_block(format);
  const Comparison model = compare_with_model(batch, k_block, true);
  // Which block size fits the hardware: one block of the whole K, or two
  // chained blocks of half of it.
  const Comparison whole = compare_with_model(batch, batch.k, false);
  const Comparison halves = compare_with_model(batch, batch.k / 2, false);
  std::printf(
      "%s m16n8k%d: %ld K-blocks, %ld differ from the model (K-block %d) in %ld bits; "
      "as one block of %d: %ld differ, as two chained blocks of %d: %ld differ\n",
      format_name(format), batch.k, model.blocks, model.differing_blocks, k_block,
      model.differing_bits, batch.k, whole.differing_blocks, batch.k / 2, halves.differing_blocks);
  write_figures(format,
                {{"format", format_name(format)},
                 {"instruction", std::string("mma.sync.aligned.m16n8k") + std::to_string(batch.k)},
                 {"blocks", model.blocks},
                 {"random_mma_instructions", random_mmas},
                 {"edge_vector_mma_instructions", batch.count - random_mmas},
                 {"model_k_block", k_block},
                 {"differing_blocks", model.differing_blocks},
                 {"differing_bits", model.differing_bits},
                 {"differing_blocks_as_one_block_of_k", whole.differing_blocks},
                 {"differing_blocks_as_two_chained_blocks_of_half_k", halves.differing_blocks}});
  EXPECT_EQ(model.differing_blocks, 0) << format_name(format);
}

TEST(GpuNumericsMma, Fp16BlocksMatchTheModelBitForBit) {
  SKIP_WITHOUT_GPU();
  check_mma(MmaFormat::fp16);
}

TEST(GpuNumericsMma, Bf16BlocksMatchTheModelBitForBit) {
  SKIP_WITHOUT_GPU();
  check_mma(MmaFormat::bf16);
}

TEST(GpuNumericsMma, Tf32BlocksMatchTheModelBitForBit) {
  SKIP_WITHOUT_GPU();
  check_mma(MmaFormat::tf32);
}

}  // namespace
