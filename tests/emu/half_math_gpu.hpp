// Between the half-math comparison's test (host compiler) and its GPU side
// (half_math_gpu.cu, nvcc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace half_math_cases {

using Words = std::vector<std::uint64_t>;

// "" when there is a GPU; otherwise why the comparison is skipped.
std::string gpu_unavailable_reason();

// evaluate<__half or __nv_bfloat16>(id, a[i], b[i], c[i]) for every i, on the GPU.
Words evaluate_on_gpu(bool bfloat16, int id, const Words& a, const Words& b, const Words& c);

}  // namespace half_math_cases
