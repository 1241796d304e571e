// The attention lab 06's kernels must compute, in double precision on the
// host: what the tests compare against and what lab06_bench checks a
// version with before timing it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "backend.hpp"

namespace lab06::harness {

// What attention must return, rounded from double to float.
struct Attended {
  std::vector<float> o;    // heads x n x d
  std::vector<float> lse;  // heads x n: L = m + log(l), natural log
};

// Attention in double precision, row by row: the masked scaled scores, their
// maximum m, l = sum exp(s - m), o = sum exp(s - m) v / l and L = m + log(l).
// A NaN input propagates as it does in PyTorch (through exp and the sums).
inline Attended reference_attention(const Attention& shape, const std::vector<float>& q,
                                    const std::vector<float>& k, const std::vector<float>& v) {
  const std::size_t n = shape.n, d = shape.d;
  Attended result{std::vector<float>(shape.values()), std::vector<float>(shape.rows())};
  std::vector<double> scores(n), row(d);
  for (std::size_t h = 0; h < std::size_t(shape.heads); ++h) {
    const std::size_t head = h * n * d;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t keys = shape.causal ? i + 1 : n;
      double largest = -std::numeric_limits<double>::infinity();
      for (std::size_t j = 0; j < keys; ++j) {
        double dot = 0;
        for (std::size_t c = 0; c < d; ++c) {
          dot += double(q[head + i * d + c]) * double(k[head + j * d + c]);
        }
        scores[j] = double(shape.scale) * dot;
        largest = std::max(largest, scores[j]);
      }
      double total = 0;
      std::fill(row.begin(), row.end(), 0.0);
      for (std::size_t j = 0; j < keys; ++j) {
        const double weight = std::exp(scores[j] - largest);
        total += weight;
        for (std::size_t c = 0; c < d; ++c) row[c] += weight * double(v[head + j * d + c]);
      }
      for (std::size_t c = 0; c < d; ++c) result.o[head + i * d + c] = float(row[c] / total);
      result.lse[h * n + i] = float(largest + std::log(total));
    }
  }
  return result;
}

}  // namespace lab06::harness
