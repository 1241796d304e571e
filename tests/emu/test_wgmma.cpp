// wgmma: the same GEMM kernel on the emulator (Emu/...) and on the GPU
// (Gpu/..., skipped without a Hopper GPU) gives, element for element, the
// bits of the tensor-core model (numerics::mma_dot in blocks of
// wgmma_k_block), for every N, format and shared-memory layout; on the
// emulator the planted bugs are reported in words or change the values.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "both_backends.hpp"
#include "cudalab/numerics.hpp"
#include "cudalab/wgmma_layout.hpp"
#include "wgmma.hpp"

namespace wgmma_tests {
namespace {

using cudalab::numerics::MmaFormat;
using emu_tests::OnBothBackends;
class Wgmma
    : public OnBothBackends<Kernels, emulator_kernels, gpu_kernels, gpu_unavailable_reason> {};
EMU_TESTS_ON_BOTH_BACKENDS(Wgmma);

const char* name_of(MmaFormat f) {
  return f == MmaFormat::fp16 ? "fp16" : f == MmaFormat::bf16 ? "bf16" : "tf32";
}

// Operands: values of a few bits, signs mixed, spread over exponents so that
// alignment and truncation matter (checked against the model, not a double
// reference).
struct Operands {
  std::vector<std::uint32_t> a, b_transposed;
};

Operands random_operands(const Gemm& g, cudalab::Random& rng) {
  namespace nx = cudalab::numerics;
  const auto pattern = [&](float value) -> std::uint32_t {
    if (g.format == MmaFormat::fp16) return nx::fp32_to_fp16_bits(value);
    if (g.format == MmaFormat::bf16) return nx::fp32_to_bf16_bits(value);
    return nx::float_bits(value);
  };
  const auto values = [&](std::size_t n) {
    std::vector<std::uint32_t> out;
    const std::vector<float> x = rng.uniform(n, -2.0f, 2.0f);
    for (std::size_t i = 0; i < n; ++i) {
      out.push_back(pattern(std::ldexp(x[i], static_cast<int>(i % 7) - 3)));
    }
    return out;
  };
  return {values(static_cast<std::size_t>(g.m) * g.k), values(static_cast<std::size_t>(g.n) * g.k)};
}

std::vector<float> model(const Gemm& g, const Operands& o) {
  std::vector<float> c(static_cast<std::size_t>(g.m) * g.n);
  for (int i = 0; i < g.m; ++i) {
    for (int j = 0; j < g.n; ++j) {
      c[static_cast<std::size_t>(i) * g.n + j] =
          cudalab::numerics::mma_dot(&o.a[static_cast<std::size_t>(i) * g.k],
                                     &o.b_transposed[static_cast<std::size_t>(j) * g.k], g.k, 0.0f,
                                     g.format, cudalab::numerics::wgmma_k_block(g.format));
    }
  }
  return c;
}

// Counts elements whose bits differ, naming the first.
std::string differences(const std::vector<float>& got, const std::vector<float>& want, int n) {
  int count = 0;
  std::string first;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (cudalab::numerics::float_bits(got[i]) == cudalab::numerics::float_bits(want[i])) continue;
    if (count++ == 0) {
      first = " (first at row " + std::to_string(i / n) + ", column " + std::to_string(i % n) +
              ": " + std::to_string(got[i]) + " instead of " + std::to_string(want[i]) + ")";
    }
  }
  return count == 0 ? "" : std::to_string(count) + " elements differ" + first;
}

TEST_P(Wgmma, EveryTileWidthMatchesTheModelBitForBit) {
  for (MmaFormat f : {MmaFormat::fp16, MmaFormat::bf16, MmaFormat::tf32}) {
    for (int tile_n : {8, 16, 32, 64, 128, 256}) {
      const Gemm g{f, 64, tile_n, 32, tile_n, Layout::swizzle_128};
      const Operands o = random_operands(g, rng_);
      EXPECT_EQ(differences(k().gemm(g, o.a, o.b_transposed, Planted::none), model(g, o), g.n), "")
          << name_of(f) << ", N " << tile_n;
    }
  }
}

// fp8 operands: random patterns of each format but its NaNs and
// infinities, against numerics::fp8_dot over the whole K (blocks of
// wgmma_fp8_k_block, chained across the instructions).
TEST_P(Wgmma, Fp8OperandsOfEveryPairingMatchTheModelBitForBit) {
  namespace nx = cudalab::numerics;
  const auto finite_patterns = [&](std::size_t count, nx::Fp8Format format) {
    std::vector<std::uint32_t> out;
    while (out.size() < count) {
      const auto bits = static_cast<std::uint8_t>(rng_.uniform<int>(1, 0, 255)[0]);
      const bool special =
          format == nx::Fp8Format::e4m3 ? (bits & 0x7fu) == 0x7fu : (bits & 0x7cu) == 0x7cu;
      if (!special) out.push_back(bits);
    }
    return out;
  };
  for (nx::Fp8Format fa : {nx::Fp8Format::e4m3, nx::Fp8Format::e5m2}) {
    for (nx::Fp8Format fb : {nx::Fp8Format::e4m3, nx::Fp8Format::e5m2}) {
      for (int tile_n : {8, 64, 256}) {
        Gemm g{MmaFormat::fp16, 64, tile_n, 96, tile_n, Layout::swizzle_128};
        g.fp8 = true;
        g.fp8_a = fa;
        g.fp8_b = fb;
        const std::vector<std::uint32_t> a = finite_patterns(64u * 96u, fa);
        const std::vector<std::uint32_t> b =
            finite_patterns(static_cast<std::size_t>(tile_n) * 96u, fb);
        std::vector<float> want(static_cast<std::size_t>(64 * tile_n));
        for (int i = 0; i < 64; ++i) {
          for (int j = 0; j < tile_n; ++j) {
            std::uint8_t row[96], column[96];
            for (int kk = 0; kk < 96; ++kk) {
              row[kk] = static_cast<std::uint8_t>(a[i * 96 + kk]);
              column[kk] = static_cast<std::uint8_t>(b[j * 96 + kk]);
            }
            want[static_cast<std::size_t>(i * tile_n + j)] =
                nx::fp8_dot(row, column, 96, 0.0f, fa, fb);
          }
        }
        EXPECT_EQ(differences(k().gemm(g, a, b, Planted::none), want, tile_n), "")
            << nx::fp8_format_name(fa) << " x " << nx::fp8_format_name(fb) << ", N " << tile_n;
      }
    }
  }
}

TEST_P(Wgmma, EveryLayoutAndAwkwardSizes) {
  // m a multiple of 64, n of the tile, k of 16 but not of a stage (a partial last stage).
  struct Case {
    int m, n, k, tile_n;
  };
  for (Layout layout : {Layout::core_matrices_k_first, Layout::core_matrices_rows_first,
                        Layout::swizzle_128, Layout::swizzle_64, Layout::swizzle_32}) {
    for (MmaFormat f : {MmaFormat::fp16, MmaFormat::bf16, MmaFormat::tf32}) {
      for (const Case c : {Case{128, 48, 48, 16}, Case{64, 64, 80, 64}, Case{192, 16, 16, 8}}) {
        const Gemm g{f, c.m, c.n, c.k, c.tile_n, layout};
        const Operands o = random_operands(g, rng_);
        EXPECT_EQ(differences(k().gemm(g, o.a, o.b_transposed, Planted::none), model(g, o), g.n),
                  "")
            << name_of(f) << ", layout " << static_cast<int>(layout) << ", " << c.m << " x " << c.n
            << " x " << c.k << ", N " << c.tile_n;
      }
    }
  }
}

TEST_P(Wgmma, TwoWarpgroupsPerBlockShareTheirBTile) {
  for (Layout layout : {Layout::core_matrices_rows_first, Layout::swizzle_128}) {
    for (MmaFormat f : {MmaFormat::bf16, MmaFormat::tf32}) {
      const Gemm g{f, 256, 64, 48, 32, layout, 2};
      const Operands o = random_operands(g, rng_);
      EXPECT_EQ(differences(k().gemm(g, o.a, o.b_transposed, Planted::none), model(g, o), g.n), "")
          << name_of(f) << ", layout " << static_cast<int>(layout);
    }
  }
}

TEST_P(Wgmma, SpecialOperandsMatchTheModelBitForBit) {
  // One operand in 8 a special: +-0, +-infinity, NaN, the smallest
  // subnormal, the largest finite value (products overflowing for bf16/TF32).
  for (MmaFormat f : {MmaFormat::fp16, MmaFormat::bf16, MmaFormat::tf32}) {
    const Gemm g{f, 128, 64, 64, 64, Layout::swizzle_64};
    Operands o = random_operands(g, rng_);
    const bool wide = f == MmaFormat::tf32;
    const std::uint32_t infinity = f == MmaFormat::fp16   ? 0x7c00u
                                   : f == MmaFormat::bf16 ? 0x7f80u
                                                          : 0x7f800000u;
    const std::uint32_t sign = wide ? 0x80000000u : 0x8000u, unit = wide ? 0x2000u : 1u;
    const std::uint32_t specials[] = {0u,
                                      sign,
                                      infinity,
                                      sign | infinity,
                                      infinity | unit,
                                      infinity | (infinity >> 1 & ~infinity),
                                      unit,
                                      infinity - unit,
                                      sign | (infinity - unit)};
    const std::vector<int> pick = rng_.uniform(o.a.size() + o.b_transposed.size(), 0, 71);
    std::size_t next = 0;
    for (std::vector<std::uint32_t>* operand : {&o.a, &o.b_transposed}) {
      for (std::uint32_t& bits : *operand) {
        const int p = pick[next++];
        if (p < 9) bits = specials[p];
      }
    }
    EXPECT_EQ(differences(k().gemm(g, o.a, o.b_transposed, Planted::none), model(g, o), g.n), "")
        << name_of(f);
  }
}

TEST_P(Wgmma, AccumulatorFragmentLayoutIsThePtxIsas) {
  // D(row, column) = (row + 1) + 256 column, exact in fp16 operands and fp32:
  // A(row, 0) = row + 1, A(row, 1) = 1; B(0, column) = 1, B(1, column) = 256 column.
  namespace nx = cudalab::numerics;
  for (int tile_n : {8, 64, 256}) {
    const Gemm g{MmaFormat::fp16, 64, tile_n, 16, tile_n, Layout::core_matrices_k_first};
    std::vector<std::uint32_t> a(64 * 16, 0), b(static_cast<std::size_t>(tile_n) * 16, 0);
    for (int row = 0; row < 64; ++row) {
      a[row * 16] = nx::fp32_to_fp16_bits(static_cast<float>(row + 1));
      a[row * 16 + 1] = nx::fp32_to_fp16_bits(1.0f);
    }
    for (int column = 0; column < tile_n; ++column) {
      b[column * 16] = nx::fp32_to_fp16_bits(1.0f);
      b[column * 16 + 1] = nx::fp32_to_fp16_bits(256.0f * static_cast<float>(column));
    }
    const std::vector<float> registers = k().registers(g, a, b);
    int wrong = 0;
    for (int t = 0; t < 128; ++t) {
      for (int i = 0; i < tile_n / 2; ++i) {
        const auto value =
            static_cast<int>(registers[static_cast<std::size_t>(t * (tile_n / 2) + i)]);
        const nx::MatrixCoord want = cudalab::wgmma_accumulator_element(t, i);
        const int row = value % 256 - 1, column = value / 256;
        if ((row != want.row || column != want.col) && wrong++ < 4) {
          ADD_FAILURE() << "N " << tile_n << ": thread " << t << " register " << i << " holds ("
                        << row << ", " << column << "), wgmma_accumulator_element says ("
                        << want.row << ", " << want.col << ")";
        }
      }
    }
    EXPECT_EQ(wrong, 0) << "N " << tile_n;
  }
}

// ---- the emulator's reports of planted bugs

const Gemm kPlantedShape{MmaFormat::fp16, 64, 16, 64, 16, Layout::core_matrices_k_first};

PlantedReport planted(Planted bug, Layout layout = Layout::core_matrices_k_first) {
  Gemm g = kPlantedShape;
  g.layout = layout;
  cudalab::Random rng(37);
  const Operands o = random_operands(g, rng);
  return emulator_report(g, o.a, o.b_transposed, bug);
}

std::vector<float> planted_model(Layout layout = Layout::core_matrices_k_first) {
  Gemm g = kPlantedShape;
  g.layout = layout;
  cudalab::Random rng(37);
  return model(g, random_operands(g, rng));
}

TEST(WgmmaEmu, TheCorrectKernelIsQuiet) {
  const PlantedReport r = planted(Planted::none);
  EXPECT_EQ(r.reports, "");
  EXPECT_EQ(differences(r.c, planted_model(), kPlantedShape.n), "");
}

TEST(WgmmaEmu, AWrongLeadingByteOffsetChangesTheValues) {
  const PlantedReport r = planted(Planted::wrong_leading_offset);
  EXPECT_NE(differences(r.c, planted_model(), kPlantedShape.n), "");
}

TEST(WgmmaEmu, AWrongStrideByteOffsetChangesTheValues) {
  const PlantedReport r = planted(Planted::wrong_stride_offset, Layout::swizzle_128);
  EXPECT_NE(differences(r.c, planted_model(Layout::swizzle_128), kPlantedShape.n), "");
}

TEST(WgmmaEmu, AMissingFenceIsReported) {
  const PlantedReport r = planted(Planted::missing_fence);
  EXPECT_NE(r.reports.find("accessed after its last wgmma.fence (or never fenced)"),
            std::string::npos)
      << r.reports;
  EXPECT_NE(r.reports.find("wgmma.cuh:"), std::string::npos) << r.reports;
}

TEST(WgmmaEmu, AnAccumulatorReadBeforeTheWaitIsReported) {
  const PlantedReport r = planted(Planted::read_before_wait);
  EXPECT_NE(r.reports.find("is accessed while the wgmma.mma_async at"), std::string::npos)
      << r.reports;
  EXPECT_NE(r.reports.find("in flight: wait for it with wgmma_wait_group first"), std::string::npos)
      << r.reports;
}

TEST(WgmmaEmu, OperandsOverwrittenBeforeTheWaitAreReported) {
  const PlantedReport r = planted(Planted::overwrite_before_wait);
  EXPECT_NE(r.reports.find("was overwritten in shared memory (offset"), std::string::npos)
      << r.reports;
}

TEST(WgmmaEmu, AWarpMissingFromTheWarpgroupIsAHangReportedInWords) {
  const PlantedReport r = planted(Planted::warp_skips_the_wgmma);
  EXPECT_TRUE(r.failed_launch);
  EXPECT_NE(r.reports.find("which all 128 threads of a warpgroup must make together, but 32 "
                           "thread(s) (96,0,0)"),
            std::string::npos)
      << r.reports;
  EXPECT_NE(r.reports.find("would hang"), std::string::npos) << r.reports;
}

}  // namespace
}  // namespace wgmma_tests
