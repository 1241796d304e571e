// Exercise 7: the Hopper GEMM (TMA, mbarrier, wgmma, warp specialisation,
// persistent tiles, clusters of 2 sharing B), C = A * B^T with A (m x k)
// and B (n x k) in bf16.
// Small integers first: every product and sum is exact in fp32, so C is the
// exact product and a wrong element is a layout, pipeline or edge mistake,
// named by its (row, column). Then random values against the product in
// double precision, within fp32 accumulation's error bound. Sizes that are
// not multiples of the 128 x 256 tile or the 64-value K step, m = 1, a prime
// n; on the emulator a persistent grid of 2 clusters of 2 blocks, so that
// each cluster walks several tiles and the 4-stage ring wraps round. C starts as NaN (an
// element left unwritten fails) and nothing around C may change. The GPU
// runs the same tests, larger, on Hopper only (wgmma is sm_90a).
// On the emulator each test takes under a second (2 cores, 2026-12-07).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cudalab/harness/gpu_probe.hpp"
#include "cudalab/harness/testing.hpp"
#include "cudalab/numerics.hpp"

namespace lab02 {
namespace {

namespace nx = cudalab::numerics;
using cudalab::harness::matches;
using cudalab::harness::nothing_written_outside;
using cudalab::harness::ran;
using cudalab::harness::refused;

using OnBackend = cudalab::harness::OnBackend<harness::Backend, harness::make_emulator_backend,
                                              harness::make_gpu_backend>;

struct Size {
  int m, n, k;
  std::string what() const {
    return "hopper_gemm_bf16 on m = " + std::to_string(m) + ", n = " + std::to_string(n) +
           ", k = " + std::to_string(k);
  }
};

// Operands as values already in bf16 (so that the reference multiplies what
// the kernel does) and as the bit patterns the kernel reads.
struct Operands {
  std::vector<float> a, b;  // m x k and n x k, row-major
  std::vector<std::uint16_t> a_bits, b_bits;
};

Operands bf16_operands(const std::vector<float>& a, const std::vector<float>& b) {
  Operands o;
  for (float v : a) o.a_bits.push_back(nx::fp32_to_bf16_bits(v));
  for (float v : b) o.b_bits.push_back(nx::fp32_to_bf16_bits(v));
  for (std::uint16_t bits : o.a_bits) o.a.push_back(nx::bf16_bits_to_fp32(bits));
  for (std::uint16_t bits : o.b_bits) o.b.push_back(nx::bf16_bits_to_fp32(bits));
  return o;
}

// C = A B^T in double, and for each element the sum of |a b| over k, which
// bounds what fp32 accumulation can lose.
struct Reference {
  std::vector<double> c, magnitude;
};

Reference reference_product(const Size& s, const Operands& o) {
  Reference r{std::vector<double>(static_cast<std::size_t>(s.m) * s.n),
              std::vector<double>(static_cast<std::size_t>(s.m) * s.n)};
  for (int i = 0; i < s.m; ++i) {
    const float* a_row = o.a.data() + static_cast<std::size_t>(i) * s.k;
    for (int j = 0; j < s.n; ++j) {
      const float* b_row = o.b.data() + static_cast<std::size_t>(j) * s.k;
      double sum = 0, magnitude = 0;
      for (int x = 0; x < s.k; ++x) {
        const double product = static_cast<double>(a_row[x]) * b_row[x];
        sum += product;
        magnitude += std::fabs(product);
      }
      r.c[static_cast<std::size_t>(i) * s.n + j] = sum;
      r.magnitude[static_cast<std::size_t>(i) * s.n + j] = magnitude;
    }
  }
  return r;
}

class Ex7HopperGemm : public OnBackend {
 protected:
  void SetUp() override {
    OnBackend::SetUp();
    std::string why_not;
    if (!IsSkipped() && !on_emulator() && !cudalab::harness::gpu_runs_sm90a(&why_not)) {
      GTEST_SKIP() << why_not;
    }
  }

  // On the emulator 2 clusters of 2 persistent blocks walk all tiles; on the GPU as many
  // as fit at once, as the bench runs it.
  int blocks() const { return on_emulator() ? 4 : 0; }

  std::vector<float> run(const Size& s, const Operands& o) {
    std::vector<float> c(static_cast<std::size_t>(s.m) * s.n,
                         std::numeric_limits<float>::quiet_NaN());
    const auto observation = backend().call(harness::entry::hopper_gemm_bf16, o.a_bits, o.b_bits, c,
                                            s.m, s.n, s.k, blocks());
    EXPECT_TRUE(ran(observation)) << s.what();
    EXPECT_TRUE(nothing_written_outside(observation, s.what()));
    return c;
  }

  Operands small_integers(const Size& s) {
    const auto ints = [&](std::size_t count) {
      std::vector<float> values;
      for (int v : rng_.uniform(count, -4, 4)) values.push_back(static_cast<float>(v));
      return values;
    };
    return bf16_operands(ints(static_cast<std::size_t>(s.m) * s.k),
                         ints(static_cast<std::size_t>(s.n) * s.k));
  }

  void expect_exact(const Size& s) {
    if (HasFailure()) return;  // the first failing size says enough
    const Operands o = small_integers(s);
    const Reference r = reference_product(s, o);
    const std::vector<float> exact(r.c.begin(), r.c.end());
    EXPECT_TRUE(matches(run(s, o), exact, {std::size_t(s.m), std::size_t(s.n)},
                        s.what() + " (small integers: C is exact)"))
        << "A wrong element here is a layout or pipeline mistake: the TMA boxes' coordinates, "
           "the descriptors' addresses, a stage read before its `full` phase or overwritten "
           "before its `empty` one, or an element of the accumulator stored in the wrong place.";
  }

  void expect_close(const Size& s) {
    if (HasFailure()) return;
    const Operands o =
        bf16_operands(rng_.uniform(static_cast<std::size_t>(s.m) * s.k, -1.0f, 1.0f),
                      rng_.uniform(static_cast<std::size_t>(s.n) * s.k, -1.0f, 1.0f));
    const Reference r = reference_product(s, o);
    const std::vector<float> c = run(s, o);
    // Each of the k fp32 additions may lose half an ulp of the running sum,
    // which never exceeds the sum of |a b|: twice that bound.
    std::size_t wrong = 0, first = 0;
    for (std::size_t e = 0; e < c.size(); ++e) {
      const double bound = 2.0 * (s.k + 1) * std::ldexp(r.magnitude[e], -24);
      if (!(std::fabs(c[e] - r.c[e]) <= bound)) {
        if (wrong++ == 0) first = e;
      }
    }
    EXPECT_EQ(wrong, 0u) << s.what() << " (random values in [-1, 1]): " << wrong << " of "
                         << c.size()
                         << " elements beyond fp32 accumulation's error; the first is C("
                         << first / s.n << ", " << first % s.n << ") = " << c[first]
                         << ", the product in double is " << r.c[first];
  }
};

TEST_P(Ex7HopperGemm, Ex7_SmallIntegersExactly) {
  // One whole tile and one K step; tiles cut by m, n and k (k = 136: two full
  // steps and one of 8 values); one row; a prime n; a column of tiles.
  const Size emulator_sizes[] = {{128, 256, 64}, {192, 320, 136}, {1, 263, 72},
                                 {130, 17, 200}, {400, 40, 16},   {520, 700, 264}};
  const Size gpu_sizes[] = {
      {128, 256, 64}, {192, 320, 136}, {1, 263, 72}, {2048, 2560, 512}, {1531, 3001, 1032}};
  if (on_emulator()) {
    for (const Size& s : emulator_sizes) expect_exact(s);
  } else {
    for (const Size& s : gpu_sizes) expect_exact(s);
  }
}

TEST_P(Ex7HopperGemm, Ex7_RandomValuesWithinFp32Accumulation) {
  const Size emulator_sizes[] = {{192, 320, 136}, {67, 509, 64}, {300, 600, 520}};
  const Size gpu_sizes[] = {{192, 320, 136}, {3000, 2000, 256}, {1024, 4096, 1024}};
  if (on_emulator()) {
    for (const Size& s : emulator_sizes) expect_close(s);
  } else {
    for (const Size& s : gpu_sizes) expect_close(s);
  }
}

TEST_P(Ex7HopperGemm, Ex7_KZeroAndEmptyMatrices) {
  // k = 0: C is an empty sum, zeros; m = 0 or n = 0: nothing to do.
  EXPECT_TRUE(matches(run({5, 7, 0}, {}), std::vector<float>(35, 0.0f), {5, 7},
                      "hopper_gemm_bf16 with k = 0"));
  EXPECT_TRUE(run({0, 9, 16}, bf16_operands({}, std::vector<float>(9 * 16, 1.0f))).empty());
}

TEST_P(Ex7HopperGemm, Ex7_RefusesKNotAMultipleOf8) {
  const Size s{16, 16, 12};
  const Operands o = small_integers(s);
  std::vector<float> c(static_cast<std::size_t>(s.m) * s.n);
  EXPECT_TRUE(refused(
      [&] {
        return backend().call(harness::entry::hopper_gemm_bf16, o.a_bits, o.b_bits, c, s.m, s.n,
                              s.k, blocks());
      },
      "multiple of 8", s.what()));
}

CUDALAB_ON_BOTH_BACKENDS(Ex7HopperGemm);

}  // namespace
}  // namespace lab02
