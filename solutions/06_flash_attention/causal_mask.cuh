// Lab 06, exercise 4: the causal mask, and the work it saves.
//
// A decoder's query i may look at keys 0..i only: the scores above the
// diagonal are -infinity before the softmax, so their weights are exactly
// 0. The naive kernels mask one score at a time. The fused kernel can do
// better: a block of queries [first, first + rows) never needs a key past
// its last query, so it stops its walk over K and V there and skips the
// tiles above the diagonal without loading them; only a tile that the
// diagonal crosses has masked scores in it. For T blocks of queries and
// tiles of keys of the same size, that is T(T+1)/2 tiles instead of T^2.
#pragma once

#include "cudalab/kernel.hpp"

namespace lab06 {
inline namespace CUDALAB_BACKEND {

// Whether the score of (query, key) is left out of the softmax: a key past
// the sequence (a tile's padding) always, a key after the query under the
// causal mask.
__host__ __device__ inline bool masked([[maybe_unused]] int query, int key, int n,
                                       [[maybe_unused]] bool causal) {
  // TODO(ex4) begin, about 1 line: keys past n always; with `causal`, keys after the query too.
  return key >= n || (causal && key > query);
  // TODO(ex4) end
}

// One past the last key that the block of queries [first_query,
// first_query + rows) must visit.
__host__ __device__ inline int keys_end([[maybe_unused]] int first_query, [[maybe_unused]] int rows,
                                        int n, [[maybe_unused]] bool causal) {
  // TODO(ex4) begin, about 1 line: all n keys, or with `causal` none past the block's last query.
  return causal ? (first_query + rows < n ? first_query + rows : n) : n;
  // TODO(ex4) end
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab06
