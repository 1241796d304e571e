// Tensor cores on the emulator (labels numerics, emu): the GEMMs of
// tc_kernels.cuh, compiled as the emulator compiles a lab, against the
// block-FMA model bit for bit; a half-warp mma and a wrong fragment layout
// must be caught.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cudalab/emu/recorder.hpp"
#include "cudalab/emu/runtime.hpp"
#include "cudalab/emu/wmma.hpp"
#include "tc_inputs.hpp"
#include "tc_runners.hpp"

namespace tensor_cores {
namespace {

cudalab::emu::ScopedOptions quiet() {
  cudalab::emu::Options o = cudalab::emu::options();
  o.print_reports = false;
  return cudalab::emu::ScopedOptions(o);
}

constexpr int M = 32, N = 32, K = 64;

TEST(TensorCoresEmu, WmmaTf32GemmOfIntegersIsExact) {
  auto scoped = quiet();
  const auto a = random_floats(M * K, 1, true), b = random_floats(K * N, 2, true);
  const Gemm g = on_emu::wmma_tf32(a, b, M, N, K);
  ASSERT_EQ(g.error, cudaSuccess);
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      double exact = 0;
      for (int x = 0; x < K; ++x) exact += double(a[i * K + x]) * b[x * N + j];
      ASSERT_EQ(g.c[i * N + j], static_cast<float>(exact)) << i << "," << j;
    }
  }
}

TEST(TensorCoresEmu, WmmaTf32GemmMatchesTheModelBitForBit) {
  auto scoped = quiet();
  const auto a = random_floats(M * K, 3, false), b = random_floats(K * N, 4, false);
  const Gemm g = on_emu::wmma_tf32(a, b, M, N, K);
  ASSERT_EQ(g.error, cudaSuccess);
  EXPECT_EQ(differing(g.c, model_tf32_gemm(a, b, M, N, K)), 0u);
  // The inputs are rounded ties-away by __float_to_tf32: the raw fp32 model
  // (operands truncated) gives other bits, so the test sees the rounding.
  std::vector<std::uint32_t> raw_a(a.size()), raw_b(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) raw_a[i] = nx::float_bits(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) raw_b[i] = nx::float_bits(b[i]);
  EXPECT_GT(differing(g.c, model_gemm(raw_a, raw_b, M, N, K, nx::MmaFormat::tf32, 4)), 0u);
  // And in blocks of 8 (what an mma.sync m16n8k8 sums), other bits again:
  // the test sees the block size wmma's TF32 mma uses.
  EXPECT_GT(differing(g.c, model_gemm(tf32_bits(a), tf32_bits(b), M, N, K, nx::MmaFormat::tf32, 8)),
            0u);
}

TEST(TensorCoresEmu, MmaF16GemmMatchesTheModelBitForBit) {
  auto scoped = quiet();
  for (bool integers : {true, false}) {
    const auto a = to_fp16(random_floats(M * K, 5, integers));
    const auto b = to_fp16(random_floats(K * N, 6, integers));
    const Gemm g = on_emu::mma_f16(a, b, M, N, K, false);
    ASSERT_EQ(g.error, cudaSuccess);
    EXPECT_EQ(differing(g.c, model_fp16_gemm(a, b, M, N, K)), 0u) << "integers " << integers;
  }
}

// With checks and recording off, cudalab/mma.hpp hands its fragments to the
// emulator by pointer (warp_mma_fragments) instead of reading them in the
// instrumented kernel: the same bits, and the same report of an incomplete warp.
TEST(TensorCoresEmu, MmaWithChecksOffMatchesTheModelBitForBit) {
  cudalab::emu::Options o = cudalab::emu::options();
  o.print_reports = false;
  o.checks.bounds = o.checks.races = o.checks.uninitialized = false;
  cudalab::emu::ScopedOptions scoped(o);
  for (bool integers : {true, false}) {
    const auto a = to_fp16(random_floats(M * K, 5, integers));
    const auto b = to_fp16(random_floats(K * N, 6, integers));
    const Gemm g = on_emu::mma_f16(a, b, M, N, K, false);
    ASSERT_EQ(g.error, cudaSuccess);
    EXPECT_EQ(differing(g.c, model_fp16_gemm(a, b, M, N, K)), 0u) << "integers " << integers;
  }
  const std::vector<std::uint32_t> fragments(6, 0x3c003c00u);
  const Gemm half = on_emu::mma_f16_from_half_warp(fragments);
  EXPECT_EQ(half.error, cudaErrorLaunchFailure);
  ASSERT_EQ(half.c.size(), 32u * 4);
  EXPECT_EQ(nx::float_bits(half.c[0]), nx::fp32_canonical_nan);  // D of a lane that called
  EXPECT_EQ(half.c[4 * 16], 0.0f);                               // a lane that did not
}

TEST(TensorCoresEmu, WmmaF16GemmMatchesTheModelBitForBit) {
  auto scoped = quiet();
  const auto a = to_fp16(random_floats(M * K, 7, false));
  const auto b = to_fp16(random_floats(K * N, 8, false));
  const Gemm g = on_emu::wmma_f16(a, column_major(b, K, N), M, N, K);
  ASSERT_EQ(g.error, cudaSuccess);
  EXPECT_EQ(differing(g.c, model_fp16_gemm(a, b, M, N, K)), 0u);
}

TEST(TensorCoresEmu, OneKBlockOf16PerFp16Instruction) {
  auto scoped = quiet();
  const KBlockProbe p = k_block_probe();
  const Gemm mma = on_emu::mma_f16(p.a, p.b, 16, 16, 16, false);
  const Gemm wmma = on_emu::wmma_f16(p.a, column_major(p.b, 16, 16), 16, 16, 16);
  ASSERT_EQ(mma.error, cudaSuccess);
  ASSERT_EQ(wmma.error, cudaSuccess);
  EXPECT_EQ(nx::float_bits(mma.c[0]), 0x3f800001u);
  EXPECT_EQ(nx::float_bits(wmma.c[0]), 0x3f800001u);
}

TEST(TensorCoresEmu, Bf16AndTf32InstructionsMatchTheModelBitForBit) {
  auto scoped = quiet();
  for (bool tf32 : {false, true}) {
    for (unsigned seed : {11u, 12u, 13u}) {
      const std::vector<std::uint32_t> registers = random_registers(seed, tf32);
      const Gemm g = on_emu::mma_one(registers, tf32);
      ASSERT_EQ(g.error, cudaSuccess);
      EXPECT_EQ(differing(g.c, model_one_instruction(registers, tf32)), 0u)
          << (tf32 ? "mma_m16n8k8_tf32" : "mma_m16n8k16_bf16") << ", seed " << seed;
    }
  }
}

// Where the specials tile (tc_inputs.hpp) puts infinities and NaNs, and the
// whole tile bit for bit as the model has it.
TEST(TensorCoresEmu, WmmaKeepsInfinitiesAndNaNsWhereTheModelPutsThem) {
  auto scoped = quiet();
  constexpr std::uint32_t plus_inf = 0x7f800000u, minus_inf = 0xff800000u, nan = 0x7fffffffu;
  for (bool bf16 : {false, true}) {
    SCOPED_TRACE(bf16 ? "bf16" : "fp16");
    const SpecialsTile t = specials_tile(bf16);
    const Gemm g = on_emu::wmma_tile(t.a, t.b_col_major, t.c, bf16);
    ASSERT_EQ(g.error, cudaSuccess);
    EXPECT_EQ(differing(g.c, model_tile(t)), 0u);
    auto d = [&g](int row, int col) { return nx::float_bits(g.c[16 * row + col]); };
    for (int n = 0; n < 16; ++n) {
      const std::uint32_t row0[4] = {plus_inf, minus_inf, nan, plus_inf};
      const std::uint32_t row1[4] = {minus_inf, plus_inf, nan, minus_inf};
      const std::uint32_t row3[4] = {plus_inf, minus_inf, nan, 0x7f7fffffu};
      EXPECT_EQ(d(0, n), row0[n % 4]) << "D(0, " << n << ")";
      EXPECT_EQ(d(1, n), row1[n % 4]) << "D(1, " << n << ")";
      EXPECT_EQ(d(2, n), nan) << "D(2, " << n << ")";
      EXPECT_EQ(d(3, n), row3[n % 4]) << "D(3, " << n << ")";
      EXPECT_EQ(d(4, n), nan) << "D(4, " << n << ")";
      if (bf16 && n % 4 < 2) {
        EXPECT_EQ(d(5, n), n % 4 == 0 ? plus_inf : minus_inf) << "D(5, " << n << "): 2^201";
      }
    }
  }
}

// CUDA 13's <mma.h> has no satf for a float accumulator, and neither has the
// emulator's: code that asks for it fails to compile on both backends.
template <class T>
constexpr bool mma_sync_takes_satf = requires(
    nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float>& d,
    const nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, T, nvcuda::wmma::row_major>& a,
    const nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, T, nvcuda::wmma::col_major>&
        b) {
  nvcuda::wmma::mma_sync(d, a, b, d, true);
};
template <class T>
constexpr bool mma_sync_callable = requires(
    nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float>& d,
    const nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, T, nvcuda::wmma::row_major>& a,
    const nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, T, nvcuda::wmma::col_major>&
        b) {
  nvcuda::wmma::mma_sync(d, a, b, d);
};

TEST(TensorCoresEmu, WmmaMmaSyncHasNoSatfForFloatAccumulatorsAsInCuda13) {
  EXPECT_TRUE(mma_sync_callable<__half>);
  EXPECT_TRUE(mma_sync_callable<__nv_bfloat16>);
  EXPECT_FALSE(mma_sync_takes_satf<__half>);
  EXPECT_FALSE(mma_sync_takes_satf<__nv_bfloat16>);
}

TEST(TensorCoresEmu, AWrongLaneToElementMappingGivesWrongResults) {
  auto scoped = quiet();
  const auto a = to_fp16(random_floats(M * K, 9, true));
  const auto b = to_fp16(random_floats(K * N, 10, true));
  const Gemm right = on_emu::mma_f16(a, b, M, N, K, false);
  const Gemm swapped = on_emu::mma_f16(a, b, M, N, K, true);
  ASSERT_EQ(swapped.error, cudaSuccess);
  EXPECT_EQ(differing(right.c, model_fp16_gemm(a, b, M, N, K)), 0u);
  EXPECT_GT(differing(swapped.c, model_fp16_gemm(a, b, M, N, K)), M * N / 2);
}

std::string source_line(const std::string& file, unsigned line) {
  std::ifstream in(file);
  std::string text;
  for (unsigned i = 0; i < line && std::getline(in, text); ++i) {
  }
  return text;
}

TEST(TensorCoresEmu, AnMmaFromHalfAWarpIsReportedAtItsLine) {
  auto scoped = quiet();
  cudalab::emu::Recording rec;
  const std::vector<std::uint32_t> fragments(6, 0x3c003c00u);  // all ones
  const Gemm g = on_emu::mma_f16_from_half_warp(fragments);
  EXPECT_EQ(g.error, cudaErrorLaunchFailure);
  const auto reports = rec.reports();
  ASSERT_FALSE(reports.empty());
  const auto& r = reports.front();
  EXPECT_EQ(r.kind, cudalab::emu::ReportKind::warp_collective);
  EXPECT_NE(r.kernel.find("mma_f16_half_warp"), std::string::npos) << r.kernel;
  EXPECT_NE(r.message.find("all 32 lanes"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("0xffff0000"), std::string::npos) << r.message;
  EXPECT_EQ(r.file, on_emu::kernel_file);
  EXPECT_NE(source_line(r.file, r.line).find("cudalab::mma_m16n8k16_f16(d, a, b, d)"),
            std::string::npos)
      << r.to_string();
}

TEST(TensorCoresEmu, FragmentLoadsAndStoresAreTraced) {
  auto scoped = quiet();
  cudalab::emu::Recording rec;
  const auto a = random_floats(16 * 8, 11, true), b = random_floats(8 * 16, 12, true);
  ASSERT_EQ(on_emu::wmma_tf32(a, b, 16, 16, 8).error, cudaSuccess);
  ASSERT_EQ(rec.launches().size(), 1u);
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
  const auto& coalescing = rec.launches()[0].coalescing;
  // One warp-wide request per fragment element: 4 of A, 4 of B, 8 of C.
  EXPECT_EQ(coalescing.loads.requests, 8u);
  EXPECT_EQ(coalescing.stores.requests, 8u);
}

// The tile's value at (row, col): distinct, so a misplaced value shows.
std::vector<std::uint16_t> numbered_tile() {
  std::vector<std::uint16_t> tile(16 * 16);
  for (int i = 0; i < 16 * 16; ++i) tile[i] = static_cast<std::uint16_t>(0x100 + i);
  return tile;
}

std::uint32_t value_at(const std::vector<std::uint16_t>& tile, int row, int col) {
  return tile[16 * row + col];
}

std::uint32_t half_of(std::uint32_t reg, int element) {
  return element % 2 == 0 ? (reg & 0xffffu) : (reg >> 16);
}

TEST(TensorCoresEmu, LdmatrixGivesEachLaneThePtxFragment) {
  auto scoped = quiet();
  cudalab::emu::Recording rec;
  const auto tile = numbered_tile();
  const Registers got = on_emu::ldmatrix_tile(tile);
  ASSERT_EQ(got.error, cudaSuccess);
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
  namespace nx = cudalab::numerics;
  for (int lane = 0; lane < 32; ++lane) {
    const std::uint32_t* r = &got.r[12 * lane];
    // x4: the m16n8k16 A fragment of the whole tile.
    for (int e = 0; e < 8; ++e) {
      const nx::MatrixCoord at = nx::m16n8k16_a_element(lane, e);
      EXPECT_EQ(half_of(r[e / 2], e), value_at(tile, at.row, at.col))
          << "x4, lane " << lane << " element " << e;
    }
    // x2 of columns 0..7: the first two registers of that fragment.
    for (int e = 0; e < 4; ++e) {
      const nx::MatrixCoord at = nx::m16n8k16_a_element(lane, e);
      EXPECT_EQ(half_of(r[4 + e / 2], e), value_at(tile, at.row, at.col))
          << "x2, lane " << lane << " element " << e;
    }
    // x4.trans: the B fragments (k = row, n = column) of columns 0..7 and 8..15;
    // x2.trans: the one of columns 8..15.
    for (int e = 0; e < 4; ++e) {
      const nx::MatrixCoord at = nx::m16n8k16_b_element(lane, e);
      EXPECT_EQ(half_of(r[6 + e / 2], e), value_at(tile, at.row, at.col))
          << "x4.trans, lane " << lane << " element " << e;
      EXPECT_EQ(half_of(r[8 + e / 2], e), value_at(tile, at.row, 8 + at.col))
          << "x4.trans, lane " << lane << " element " << e;
      EXPECT_EQ(half_of(r[10 + e / 2], e), value_at(tile, at.row, 8 + at.col))
          << "x2.trans, lane " << lane << " element " << e;
    }
  }
}

TEST(TensorCoresEmu, LdmatrixReadsAreTracedSharedAccesses) {
  auto scoped = quiet();
  cudalab::emu::Recording rec;
  ASSERT_EQ(on_emu::ldmatrix_tile(numbered_tile()).error, cudaSuccess);
  ASSERT_EQ(rec.launches().size(), 1u);
  // Per lane: 4 ldmatrix rows of 16 bytes (x4, x4.trans) and 2 (x2, x2.trans,
  // lanes 0..15 only).
  std::size_t row_reads = 0;
  for (const auto& access : rec.launches()[0].accesses) {
    if (access.is_shared() && access.is_read() && access.bytes == 16) ++row_reads;
  }
  EXPECT_EQ(row_reads, 32u * 2 + 16u * 2);
}

TEST(TensorCoresEmu, AWmmaLoadFromHalfAWarpIsReportedAtItsLine) {
  auto scoped = quiet();
  cudalab::emu::Recording rec;
  const Gemm g = on_emu::wmma_load_from_half_warp();
  EXPECT_EQ(g.error, cudaErrorLaunchFailure);
  const auto reports = rec.reports();
  ASSERT_FALSE(reports.empty());
  const auto& r = reports.front();
  EXPECT_EQ(r.kind, cudalab::emu::ReportKind::warp_collective);
  EXPECT_NE(r.message.find("wmma::load_matrix_sync"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("all 32 lanes"), std::string::npos) << r.message;
  EXPECT_NE(r.kernel.find("wmma_load_half_warp"), std::string::npos) << r.kernel;
  EXPECT_EQ(r.file, on_emu::kernel_file);
  EXPECT_NE(source_line(r.file, r.line).find("wmma::load_matrix_sync(acc, tile, 16"),
            std::string::npos)
      << r.to_string();
}

TEST(TensorCoresEmu, AnLdmatrixFromHalfAWarpIsReportedAtItsLine) {
  auto scoped = quiet();
  cudalab::emu::Recording rec;
  const Registers got = on_emu::ldmatrix_from_half_warp();
  EXPECT_EQ(got.error, cudaErrorLaunchFailure);
  const auto reports = rec.reports();
  ASSERT_FALSE(reports.empty());
  const auto& r = reports.front();
  EXPECT_EQ(r.kind, cudalab::emu::ReportKind::warp_collective);
  EXPECT_NE(r.message.find("ldmatrix"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("all 32 lanes"), std::string::npos) << r.message;
  EXPECT_EQ(r.file, on_emu::kernel_file);
  EXPECT_NE(source_line(r.file, r.line).find("cudalab::ldmatrix_x4(r, &staged[lane][0])"),
            std::string::npos)
      << r.to_string();
}

TEST(TensorCoresEmu, CpAsyncCopiesTheBytesItIsGivenAndZeroFillsTheRest) {
  auto scoped = quiet();
  cudalab::emu::Recording rec;
  std::vector<std::uint32_t> source(64 * 4);
  for (std::size_t i = 0; i < source.size(); ++i) {
    source[i] = 0x01010101u * static_cast<std::uint32_t>(i % 255 + 1);  // no zero byte
  }
  const Registers got = on_emu::cp_async_copy(source);
  ASSERT_EQ(got.error, cudaSuccess);
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
  for (int out = 0; out < 64; ++out) {
    const int chunk = (out + 1) % 64;
    const int bytes = chunk % 17;
    for (int byte = 0; byte < 16; ++byte) {
      const std::uint32_t word = source[4 * chunk + byte / 4];
      const std::uint32_t expected = byte < bytes ? (word >> (8 * (byte % 4))) & 0xffu : 0u;
      const std::uint32_t actual = (got.r[4 * out + byte / 4] >> (8 * (byte % 4))) & 0xffu;
      EXPECT_EQ(actual, expected) << "chunk " << chunk << " byte " << byte;
    }
  }
}

}  // namespace
}  // namespace tensor_cores
