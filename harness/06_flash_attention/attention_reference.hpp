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

// The gradients of a scalar loss with respect to q, k and v, given its
// gradient d_o with respect to o.
struct AttentionGradients {
  std::vector<float> dq, dk, dv;  // heads x n x d each
};

// The backward of reference_attention in double precision, row by row, from
// the definitions (no tiles, no D = rowsum(dO o O) shortcut): for query i
// and the keys j it attends to, P_ij = softmax_j(s_ij), dP_ij = dO_i . v_j,
// dS_ij = P_ij (dP_ij - sum_j' P_ij' dP_ij'); then dQ_i = scale sum_j dS_ij
// k_j, dK_j = scale sum_i dS_ij q_i and dV_j = sum_i P_ij dO_i. Masked keys
// take no part: a NaN reaches exactly what the formulas reach through
// attended pairs.
inline AttentionGradients reference_attention_backward(const Attention& shape,
                                                       const std::vector<float>& q,
                                                       const std::vector<float>& k,
                                                       const std::vector<float>& v,
                                                       const std::vector<float>& d_o) {
  const std::size_t n = shape.n, d = shape.d;
  const double scale = shape.scale;
  AttentionGradients result{std::vector<float>(shape.values()), std::vector<float>(shape.values()),
                            std::vector<float>(shape.values())};
  std::vector<double> p(n), dp(n), dq(d), dk(n * d), dv(n * d);
  for (std::size_t h = 0; h < std::size_t(shape.heads); ++h) {
    const std::size_t head = h * n * d;
    const auto dot = [&](const std::vector<float>& a, std::size_t i, const std::vector<float>& b,
                         std::size_t j) {
      double total = 0;
      for (std::size_t c = 0; c < d; ++c)
        total += double(a[head + i * d + c]) * b[head + j * d + c];
      return total;
    };
    std::fill(dk.begin(), dk.end(), 0.0);
    std::fill(dv.begin(), dv.end(), 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t keys = shape.causal ? i + 1 : n;
      double largest = -std::numeric_limits<double>::infinity(), total = 0;
      for (std::size_t j = 0; j < keys; ++j) {
        p[j] = scale * dot(q, i, k, j);
        largest = std::max(largest, p[j]);
      }
      for (std::size_t j = 0; j < keys; ++j) {
        p[j] = std::exp(p[j] - largest);
        total += p[j];
      }
      double row_sum = 0;  // sum_j P_ij dP_ij
      for (std::size_t j = 0; j < keys; ++j) {
        p[j] /= total;
        dp[j] = dot(d_o, i, v, j);
        row_sum += p[j] * dp[j];
      }
      std::fill(dq.begin(), dq.end(), 0.0);
      for (std::size_t j = 0; j < keys; ++j) {
        const double ds = p[j] * (dp[j] - row_sum);
        for (std::size_t c = 0; c < d; ++c) {
          dq[c] += ds * k[head + j * d + c];
          dk[j * d + c] += ds * q[head + i * d + c];
          dv[j * d + c] += p[j] * d_o[head + i * d + c];
        }
      }
      for (std::size_t c = 0; c < d; ++c) result.dq[head + i * d + c] = float(scale * dq[c]);
    }
    for (std::size_t e = 0; e < n * d; ++e) {
      result.dk[head + e] = float(scale * dk[e]);
      result.dv[head + e] = float(dv[e]);
    }
  }
  return result;
}

}  // namespace lab06::harness
