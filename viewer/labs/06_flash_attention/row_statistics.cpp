#include "row_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace cudalab::viewer::lab06 {

std::vector<RunningStatistics> running_statistics(const float* q_row, const std::vector<float>& k,
                                                  int n, int d, float scale, int tile, bool causal,
                                                  int query) {
  if (n < 1 || d < 1 || tile < 1 || query < 0 || query >= n)
    throw std::invalid_argument("running_statistics: query " + std::to_string(query) +
                                " of n = " + std::to_string(n) + ", d = " + std::to_string(d) +
                                ", tile = " + std::to_string(tile));
  if (k.size() < static_cast<std::size_t>(n) * d)
    throw std::invalid_argument("running_statistics: k holds " + std::to_string(k.size()) +
                                " values, n x d = " + std::to_string(std::size_t(n) * d));
  const int keys = causal ? query + 1 : n;
  std::vector<RunningStatistics> out;
  RunningStatistics state{-std::numeric_limits<double>::infinity(), 0.0};
  for (int first = 0; first < keys; first += tile) {
    const int end = std::min(first + tile, keys);
    std::vector<double> scores;
    for (int key = first; key < end; ++key) {
      double dot = 0;
      for (int c = 0; c < d; ++c) dot += double(q_row[c]) * k[std::size_t(key) * d + c];
      scores.push_back(double(scale) * dot);
    }
    const double tile_max = *std::max_element(scores.begin(), scores.end());
    const double new_max = std::max(state.max, tile_max);
    // The sum so far counted exp(s - m_old); it must count exp(s - m_new).
    state.sum *= std::isinf(state.max) ? 0.0 : std::exp(state.max - new_max);
    for (const double s : scores) state.sum += std::exp(s - new_max);
    state.max = new_max;
    out.push_back(state);
  }
  return out;
}

}  // namespace cudalab::viewer::lab06
