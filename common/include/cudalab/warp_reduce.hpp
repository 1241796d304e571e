// Reductions across the 32 lanes of a warp, on both backends: a butterfly
// of __shfl_xor_sync, after which every lane holds the result (not only
// lane 0), so no broadcast is needed afterwards. All 32 lanes must call.
#pragma once

#include <cmath>

#include "cudalab/kernel.hpp"

namespace cudalab {
inline namespace CUDALAB_BACKEND {

inline constexpr unsigned kFullWarp = 0xffffffffu;

__device__ inline float warp_sum(float value) {
  for (int distance = 16; distance > 0; distance /= 2) {
    value += __shfl_xor_sync(kFullWarp, value, distance);
  }
  return value;
}

// fmaxf: a NaN lane does not win (fmaxf(NaN, x) is x), as in a row max
// that a NaN score later poisons through exp anyway.
__device__ inline float warp_max(float value) {
  for (int distance = 16; distance > 0; distance /= 2) {
    value = fmaxf(value, __shfl_xor_sync(kFullWarp, value, distance));
  }
  return value;
}

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab
