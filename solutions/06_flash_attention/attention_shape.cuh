// Lab 06: the shape of one attention call, shared by every exercise, and
// the checks that keep a bad shape from reaching a kernel.
//
// q, k, v and o hold heads x n x d floats, row-major per head; the
// log-sum-exp L holds heads x n. The scores of a head are scale * q k^T.
#pragma once

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace lab06 {

struct AttentionShape {
  int heads = 1;  // batch x heads: independent attentions, one grid dimension
  int n = 1;      // sequence length
  int d = 64;     // head dimension
  float scale = 0.125f;
  bool causal = false;  // key j is left out of query i's softmax when j > i

  std::size_t head_values() const { return static_cast<std::size_t>(n) * d; }
};

// The grid's y (or z) dimension runs over heads: at most 65535 there.
inline constexpr int kMaxHeads = 65535;

inline void check_shape(const AttentionShape& shape, const std::string& what) {
  if (shape.heads < 1 || shape.heads > kMaxHeads) {
    throw std::invalid_argument(what + ": heads = " + std::to_string(shape.heads) +
                                " must be in [1, " + std::to_string(kMaxHeads) + "]");
  }
  if (shape.n < 1) {
    throw std::invalid_argument(what + ": sequence length n = " + std::to_string(shape.n) +
                                " must be at least 1");
  }
  if (shape.d != 32 && shape.d != 64 && shape.d != 128) {
    throw std::invalid_argument(what + ": head dimension d = " + std::to_string(shape.d) +
                                " is not one of 32, 64, 128");
  }
  if (!std::isfinite(shape.scale)) {
    throw std::invalid_argument(what + ": scale must be finite");
  }
}

}  // namespace lab06
