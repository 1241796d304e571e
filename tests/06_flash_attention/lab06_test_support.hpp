// What lab 06's tests share: the fixture over the two backends (GPU,
// emulator), random inputs, a double-precision CPU reference of attention and
// of the row softmax, the one comparison every exercise uses, and the global
// memory traffic each version must have on the emulator's trace.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "attention_reference.hpp"
#include "backend.hpp"
#include "cudalab/harness/testing.hpp"

namespace lab06 {

using OnBackend =
    cudalab::harness::OnBackend<harness::Backend, harness::make_emulator_backend,
                                harness::make_gpu_backend, harness::make_reference_emulator_backend,
                                harness::make_reference_gpu_backend>;

using cudalab::harness::refused;
using harness::Attention;

// Exercise 1's call, with the scratch its n x n scores per head need.
inline cudalab::harness::Observation naive_attention(
    harness::Backend& on, const Attention& shape, const std::vector<float>& q,
    const std::vector<float>& k, const std::vector<float>& v, std::vector<float>& o,
    const cudalab::harness::RunOptions& options = {}) {
  return on.call(harness::entry::naive_attention, shape, q, k, v,
                 harness::Temp<float>{shape.scores()}, o, options);
}

// The tolerance of every attention output (o and L) and of the softmax, fp32
// against the double reference: an element passes when
// |actual - expected| <= 1e-6 + 2e-5 |expected|. The relative part covers
// expf (within 2 ulp) and fp32 sums of up to 4096 products in whatever order
// the kernel picks; the absolute part covers o elements near 0, sums of
// terms of both signs that cancel. Measured on the emulator (n up to 257, d
// 32 to 128, causal or not), the reference solution's worst element used
// 0.09 of it (errors up to 1.5e-7 absolute, 9e-6 relative), so a tighter
// bound would only buy flakiness on other hardware; a mistake such as one
// key dropped at n = 257 moves o by about 4e-3, far outside it, and one
// element off by 1e-3 relative fails it (Ex3_TheCheckRejectsAPerturbedOutput).
inline constexpr cudalab::Tolerance kTolerance{1e-6, 2e-5};

inline Attention attention(int heads, int n, int d, bool causal = false) {
  Attention shape;
  shape.heads = heads;
  shape.n = n;
  shape.d = d;
  shape.scale = 1.0f / std::sqrt(static_cast<float>(d));
  shape.causal = causal;
  return shape;
}

// A sweep over sizes: every n with every d, with 1, 2, 3, 1, ... heads in
// turn from `first_heads` (a head offset mixed up with a row offset shows
// only with several heads). On the emulator the longest sequences (n > 200)
// get one head: a head costs n^2 d there, and the lab's emulator tests
// should take about a minute.
inline std::vector<Attention> sweep(std::initializer_list<int> lengths,
                                    std::initializer_list<int> dims, bool causal, bool emulator,
                                    int first_heads = 1) {
  std::vector<Attention> shapes;
  int heads = first_heads;
  for (const int n : lengths) {
    for (const int d : dims) {
      shapes.push_back(attention(emulator && n > 200 ? 1 : heads, n, d, causal));
      heads = heads % 3 + 1;
    }
  }
  return shapes;
}

// "heads 2, n 17, d 64, causal, scale 0.125": for every failure message.
inline std::string describe(const Attention& shape) {
  return "heads " + std::to_string(shape.heads) + ", n " + std::to_string(shape.n) + ", d " +
         std::to_string(shape.d) + (shape.causal ? ", causal" : "") + ", scale " +
         std::to_string(shape.scale);
}

struct Inputs {
  std::vector<float> q, k, v;
};

// q, k and v uniform in [-1, 1): scores of magnitude up to sqrt(d) / 3 or
// so, so that every key carries weight and a wrong key changes the output.
inline Inputs random_inputs(cudalab::Random& rng, const Attention& shape) {
  return {rng.uniform(shape.values(), -1.0f, 1.0f), rng.uniform(shape.values(), -1.0f, 1.0f),
          rng.uniform(shape.values(), -1.0f, 1.0f)};
}

// Inputs whose scores (at scale 1) are exact integers in the hundreds: q
// and k small integers, and q's and k's first rows all 4, so that query 0
// scores 16 d with key 0. exp of a score past 88 overflows fp32: the
// softmax must subtract the row's maximum first. Exact scores keep the
// tolerance as it is.
inline Inputs large_score_inputs(cudalab::Random& rng, const Attention& shape) {
  const auto integers = [&] {
    const auto values = rng.uniform(shape.values(), -4, 4);
    std::vector<float> floats(values.begin(), values.end());
    for (std::size_t h = 0; h < std::size_t(shape.heads); ++h) {
      std::fill_n(floats.begin() + std::ptrdiff_t(h * shape.n * shape.d), shape.d, 4.0f);
    }
    return floats;
  };
  std::vector<float> q = integers(), k = integers();
  return {std::move(q), std::move(k), rng.uniform(shape.values(), -1.0f, 1.0f)};
}

using harness::Attended;
using harness::reference_attention;

// The softmax of each row in double, two passes (maximum, then sum): NaN for
// a row of only -infinity, as PyTorch's softmax gives.
inline std::vector<float> reference_softmax(const std::vector<float>& x, int rows, int columns) {
  std::vector<float> out(x.size());
  for (std::size_t r = 0; r < std::size_t(rows); ++r) {
    const float* row = x.data() + r * columns;
    double largest = -std::numeric_limits<double>::infinity(), total = 0;
    for (int j = 0; j < columns; ++j) largest = std::max(largest, double(row[j]));
    for (int j = 0; j < columns; ++j) total += std::exp(double(row[j]) - largest);
    for (int j = 0; j < columns; ++j) {
      out[r * columns + j] = std::isinf(largest) && largest < 0
                                 ? std::numeric_limits<float>::quiet_NaN()
                                 : float(std::exp(double(row[j]) - largest) / total);
    }
  }
  return out;
}

// `actual` against `expected` within `tolerance`. Where the reference is NaN
// the result must be NaN too (a NaN input must reach the output, as in
// PyTorch); everywhere else a NaN fails. `shape` gives positions, e.g.
// (head, row, column).
inline ::testing::AssertionResult close_to(const std::vector<float>& actual,
                                           const std::vector<float>& expected,
                                           const std::vector<std::size_t>& shape,
                                           const std::string& what,
                                           const cudalab::Tolerance& tolerance = kTolerance) {
  if (actual.size() != expected.size()) {
    return ::testing::AssertionFailure()
           << what << ": " << actual.size() << " values, expected " << expected.size();
  }
  std::vector<float> finite_actual = actual, finite_expected = expected;
  for (std::size_t e = 0; e < expected.size(); ++e) {
    if (!std::isnan(expected[e])) continue;
    if (!std::isnan(actual[e])) {
      return ::testing::AssertionFailure()
             << what << ": at " << cudalab::format_index(e, shape) << " the result is " << actual[e]
             << ", expected NaN (a NaN in the inputs reaches this element in "
             << "PyTorch: it must not be dropped or replaced)";
    }
    finite_actual[e] = finite_expected[e] = 0.0f;
  }
  return cudalab::harness::matches(finite_actual, finite_expected, shape, what, tolerance);
}

// o against the reference; positions (head, query row, column).
inline ::testing::AssertionResult o_matches(const std::vector<float>& o, const Attended& expected,
                                            const Attention& shape, const std::string& what) {
  return close_to(o, expected.o,
                  {std::size_t(shape.heads), std::size_t(shape.n), std::size_t(shape.d)},
                  what + ", o at (head, query row, column)");
}

// flash_forward's out (o, then L) against the reference.
inline ::testing::AssertionResult flash_output_matches(const std::vector<float>& out,
                                                       const Attended& expected,
                                                       const Attention& shape,
                                                       const std::string& what) {
  if (out.size() != shape.values() + shape.rows()) {
    return ::testing::AssertionFailure()
           << what << ": out has " << out.size()
           << " values, expected o and L: " << shape.values() + shape.rows();
  }
  const auto split = out.begin() + std::ptrdiff_t(shape.values());
  const auto o_checked = o_matches(std::vector<float>(out.begin(), split), expected, shape, what);
  if (!o_checked) return o_checked;
  return close_to(std::vector<float>(split, out.end()), expected.lse,
                  {std::size_t(shape.heads), std::size_t(shape.n)},
                  what + ", L = m + log(l) at (head, query row)");
}

// Shapes every attention call must refuse: a head dimension the kernels
// have no tile for, no heads, an empty sequence, and q one value short.
struct BadShape {
  Attention shape;
  std::size_t q_values;
  std::string names;  // what the error message must contain
  std::string what;
};

inline std::vector<BadShape> bad_shapes() {
  const Attention good = attention(2, 20, 64);
  Attention d48 = good, no_heads = good, empty = good;
  d48.d = 48;
  no_heads.heads = 0;
  empty.n = 0;
  return {{d48, d48.values(), "d = 48", "head dimension d = 48"},
          {no_heads, 0, "heads = 0", "heads = 0"},
          {empty, 0, "n = 0", "sequence length n = 0"},
          {good, good.values() - 1, "q has", "q one value short"}};
}

// Global-memory traffic in bytes, as the emulator counts it (what the lanes
// asked for).

// Naive attention stores the heads x n x n scores (scores kernel), stores
// them again in place as probabilities (softmax kernel), then o.
inline std::uint64_t naive_store_bytes(const Attention& shape) {
  const std::uint64_t n = shape.n, d = shape.d;
  return 4 * std::uint64_t(shape.heads) * (2 * n * n + n * d);
}

// The fused forward stores o and L once, nothing else.
inline std::uint64_t flash_store_bytes(const Attention& shape) {
  return 4 * (shape.values() + shape.rows());
}

// The fused forward reads Q once and, for each block of Br queries, the rows
// of K and V that the block needs, never a row at or past n: all n keys
// without the mask; with it, the keys up to the block's last query,
// min(n, (b + 1) Br) for block b, and none above the diagonal.
inline std::uint64_t flash_load_bytes(const Attention& shape, const harness::FlashTile& tile) {
  const std::uint64_t n = shape.n, br = tile.query_rows;
  std::uint64_t keys = 0;
  for (std::uint64_t first = 0; first < n; first += br) {
    keys += shape.causal ? std::min(n, first + br) : n;
  }
  return 4 * std::uint64_t(shape.heads) * shape.d * (n + 2 * keys);
}

// The stores and loads of a traced call against the expected counts, with
// both numbers and what a difference means.
inline ::testing::AssertionResult stored_bytes(const cudalab::harness::Observation& observation,
                                               std::uint64_t expected, const std::string& what,
                                               const std::string& why) {
  if (!observation.stores) {
    return ::testing::AssertionFailure() << what << ": the call was not traced";
  }
  if (observation.stores->bytes == expected) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": the kernels stored "
                                       << observation.stores->bytes << " bytes to global memory, "
                                       << "expected " << expected << " (" << why << ")";
}

}  // namespace lab06
