// The GPU side of the half-math comparison: evaluates a case of
// half_math_cases.hpp with CUDA's device functions on every input.
#include <cstdint>
#include <string>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/device_info.hpp"
#include "half_math_cases.hpp"
#include "half_math_gpu.hpp"

namespace half_math_cases {
namespace {

template <class T>
__global__ void evaluate_on_gpu(int id, const std::uint64_t* a, const std::uint64_t* b,
                                const std::uint64_t* c, std::uint64_t* out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = evaluate<T>(id, a[i], b[i], c[i]);
}

}  // namespace

std::string gpu_unavailable_reason() { return cudalab::has_gpu() ? "" : cudalab::no_gpu_reason(); }

std::vector<std::uint64_t> evaluate_on_gpu(bool bfloat16, int id, const Words& a, const Words& b,
                                           const Words& c) {
  cudalab::DeviceBuffer<std::uint64_t> da(a), db(b), dc(c), out(a.size());
  const unsigned blocks = static_cast<unsigned>((a.size() + 255) / 256);
  if (bfloat16) {
    evaluate_on_gpu<__nv_bfloat16>
        <<<blocks, 256>>>(id, da.data(), db.data(), dc.data(), out.data(), a.size());
  } else {
    evaluate_on_gpu<__half>
        <<<blocks, 256>>>(id, da.data(), db.data(), dc.data(), out.data(), a.size());
  }
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  return out.copy_to_host();
}

}  // namespace half_math_cases
