// The GEMMs of tc_kernels.cuh, run on one backend each: tensor_cores::on_emu
// (tc_emu.cpp, the instrumented emulator build) and tensor_cores::on_gpu
// (tc_gpu.cu). Inputs are host arrays (fp16 as bit patterns), row-major
// unless named otherwise; C is m x n fp32.
#pragma once

#include <driver_types.h>

#include <cstdint>
#include <vector>

namespace tensor_cores {

struct Gemm {
  cudaError_t error = cudaSuccess;  // of the launch, from cudaDeviceSynchronize
  std::vector<float> c;
};

#define TENSOR_CORES_RUNNERS                                                                     \
  extern const char* const kernel_file;                                                          \
  Gemm wmma_tf32(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k); \
  Gemm wmma_f16(const std::vector<std::uint16_t>& a,                                             \
                const std::vector<std::uint16_t>& b_col_major, int m, int n, int k);             \
  Gemm mma_f16(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& b, int m,  \
               int n, int k, bool swapped_registers);                                            \
  /* One warp: every lane passes fragments[0..5] as a[0..3], b[0..1]; lanes 0-15 call */         \
  /* mma_m16n8k16_f16, the others do not. c holds each lane's d[0..3]. */                        \
  Gemm mma_f16_from_half_warp(const std::vector<std::uint32_t>& fragments);                      \
  /* One warp, one mma_m16n8k8_tf32 (tf32) or mma_m16n8k16_bf16: lane l's registers */           \
  /* registers[6l..6l+5] as a[0..3], b[0..1], c = 0. c holds each lane's d[0..3]. */             \
  Gemm mma_one(const std::vector<std::uint32_t>& registers, bool tf32);

namespace on_emu {
TENSOR_CORES_RUNNERS
}
namespace on_gpu {
TENSOR_CORES_RUNNERS
}

#undef TENSOR_CORES_RUNNERS

}  // namespace tensor_cores
