// The online softmax's running statistics of one query row, as the fused
// kernel's walk over key tiles builds them (FA2's Algorithm 1): after tile t
// the maximum m of the row's scores so far and their sum l = sum exp(s - m).
// Computed on the host in double precision from the same q and k the run
// used, so the viewer can show how m rises and l is rescaled tile by tile.
#pragma once

#include <cstddef>
#include <vector>

namespace cudalab::viewer::lab06 {

struct RunningStatistics {
  double max = 0;  // m: -infinity while every score seen so far is masked
  double sum = 0;  // l: sum of exp(score - m) over the keys seen so far
};

// Query `query`'s row (q_row: d values) against the keys k (n x d,
// row-major), scores scale * q . k_j, in tiles of `tile` keys. Without
// `causal` one entry per tile of keys, ceil(n / tile); with it the tiles
// that hold a key the row may see (key <= query), ceil((query + 1) / tile),
// the masked keys of the last one left out.
std::vector<RunningStatistics> running_statistics(const float* q_row, const std::vector<float>& k,
                                                  int n, int d, float scale, int tile, bool causal,
                                                  int query);

}  // namespace cudalab::viewer::lab06
