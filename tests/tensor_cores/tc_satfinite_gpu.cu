// wmma.mma .satfinite on the GPU, which CUDA 13 no longer lets a kernel ask
// for: <mma.h> has no satf for floating-point accumulators, and PTX ISA 6.5
// removed the modifier there. PTX 6.4 still has it, so this module is PTX
// 6.4, loaded and compiled by the driver at run time (cudaLibraryLoadData).
// Both kernels are one fp16 wmma m16n16k16 with an f32 C (the only
// floating-point wmma PTX 6.4 has), one with .satfinite, one without.
#include <cstdio>
#include <string>
#include <vector>

#include "cudalab/check.hpp"
#include "tc_runners.hpp"

namespace tensor_cores::on_gpu {

namespace {

// The same kernel twice: %s is the entry name's suffix and the modifier.
const char* const kernel_template = R"(
.visible .entry wmma_f16_f32%s(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 d)
{
  .reg .b64 %%g<8>;
  .reg .b32 %%a<8>;
  .reg .b32 %%b<8>;
  .reg .f32 %%c<8>;
  .reg .f32 %%d<8>;
  ld.param.u64 %%g0, [a];
  ld.param.u64 %%g1, [b];
  ld.param.u64 %%g2, [c];
  ld.param.u64 %%g3, [d];
  cvta.to.global.u64 %%g4, %%g0;
  cvta.to.global.u64 %%g5, %%g1;
  cvta.to.global.u64 %%g6, %%g2;
  cvta.to.global.u64 %%g7, %%g3;
  wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%%a0, %%a1, %%a2, %%a3, %%a4, %%a5, %%a6, %%a7}, [%%g4], 16;
  wmma.load.b.sync.aligned.col.m16n16k16.global.f16 {%%b0, %%b1, %%b2, %%b3, %%b4, %%b5, %%b6, %%b7}, [%%g5], 16;
  wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%%c0, %%c1, %%c2, %%c3, %%c4, %%c5, %%c6, %%c7}, [%%g6], 16;
  wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32%s {%%d0, %%d1, %%d2, %%d3, %%d4, %%d5, %%d6, %%d7}, {%%a0, %%a1, %%a2, %%a3, %%a4, %%a5, %%a6, %%a7}, {%%b0, %%b1, %%b2, %%b3, %%b4, %%b5, %%b6, %%b7}, {%%c0, %%c1, %%c2, %%c3, %%c4, %%c5, %%c6, %%c7};
  wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%%g7], {%%d0, %%d1, %%d2, %%d3, %%d4, %%d5, %%d6, %%d7}, 16;
  ret;
}
)";

std::string module_text() {
  std::string text = ".version 6.4\n.target sm_70\n.address_size 64\n";
  char kernel[4096];
  for (const char* modifier : {"", ".satfinite"}) {
    const char* suffix = *modifier ? "_satfinite" : "";
    std::snprintf(kernel, sizeof kernel, kernel_template, suffix, modifier);
    text += kernel;
  }
  return text;
}

template <class T>
T* to_device(const std::vector<T>& host) {
  T* device = nullptr;
  CUDA_CHECK(cudaMalloc(&device, host.size() * sizeof(T)));
  CUDA_CHECK(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return device;
}

}  // namespace

Gemm wmma_f16_tile_ptx64(const std::vector<std::uint16_t>& a,
                         const std::vector<std::uint16_t>& b_col_major, const std::vector<float>& c,
                         bool satfinite) {
  const std::string text = module_text();
  cudaLibrary_t library = nullptr;
  CUDA_CHECK(cudaLibraryLoadData(&library, text.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  cudaKernel_t kernel = nullptr;
  CUDA_CHECK(cudaLibraryGetKernel(&kernel, library,
                                  satfinite ? "wmma_f16_f32_satfinite" : "wmma_f16_f32"));
  std::uint16_t* d_a = to_device(a);
  std::uint16_t* d_b = to_device(b_col_major);
  float* d_c = to_device(c);
  float* d_d = nullptr;
  CUDA_CHECK(cudaMalloc(&d_d, 256 * sizeof(float)));
  void* arguments[] = {&d_a, &d_b, &d_c, &d_d};
  // A cudaKernel_t goes where a kernel's address would (cuda_runtime_api.h).
  CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(1), dim3(32), arguments,
                              0, nullptr));
  Gemm result;
  result.error = cudaDeviceSynchronize();
  result.c.resize(256);
  CUDA_CHECK(cudaMemcpy(result.c.data(), d_d, 256 * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_a));
  CUDA_CHECK(cudaFree(d_b));
  CUDA_CHECK(cudaFree(d_c));
  CUDA_CHECK(cudaFree(d_d));
  CUDA_CHECK(cudaLibraryUnload(library));
  return result;
}

}  // namespace tensor_cores::on_gpu
