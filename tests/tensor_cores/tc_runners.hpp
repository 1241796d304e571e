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

// 32-bit registers or words a kernel wrote out.
struct Registers {
  cudaError_t error = cudaSuccess;
  std::vector<std::uint32_t> r;
};

#define TENSOR_CORES_RUNNERS                                                                     \
  extern const char* const kernel_file;                                                          \
  Gemm wmma_tf32(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k); \
  Gemm wmma_f16(const std::vector<std::uint16_t>& a,                                             \
                const std::vector<std::uint16_t>& b_col_major, int m, int n, int k);             \
  Gemm mma_f16(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& b, int m,  \
               int n, int k, bool swapped_registers);                                            \
  /* One warp, one wmma 16 x 16 x 16 of fp16 (or bf16) operands with C read from memory: */      \
  /* a row-major, b column-major, c row-major (16 x 16 each); c holds D, row-major. */           \
  Gemm wmma_tile(const std::vector<std::uint16_t>& a,                                            \
                 const std::vector<std::uint16_t>& b_col_major, const std::vector<float>& c,     \
                 bool bf16);                                                                     \
  /* One warp: every lane passes fragments[0..5] as a[0..3], b[0..1]; lanes 0-15 call */         \
  /* mma_m16n8k16_f16, the others do not. c holds each lane's d[0..3]. */                        \
  Gemm mma_f16_from_half_warp(const std::vector<std::uint32_t>& fragments);                      \
  /* One warp, one mma_m16n8k8_tf32 (tf32) or mma_m16n8k16_bf16: lane l's registers */           \
  /* registers[6l..6l+5] as a[0..3], b[0..1], c = 0. c holds each lane's d[0..3]. */             \
  Gemm mma_one(const std::vector<std::uint32_t>& registers, bool tf32);                          \
  /* One warp loads a 16 x 16 tile of 16-bit values (row-major) from shared memory; lane */      \
  /* l's registers are r[12l ..]: ldmatrix_x4 of the tile (an m16n8k16 A fragment), */           \
  /* ldmatrix_x2 of its columns 0..7, ldmatrix_x4_trans (the B fragments of columns 0..7 */      \
  /* and 8..15), ldmatrix_x2_trans of columns 8..15 (the B fragment of those). */                \
  Registers ldmatrix_tile(const std::vector<std::uint16_t>& tile);                               \
  /* Lanes 0-15 load a wmma accumulator fragment of 16 x 16 ones, the others do not. */          \
  Gemm wmma_load_from_half_warp();                                                               \
  /* Lanes 0-15 call ldmatrix_x4, the others do not; r holds each lane's r[0..3]. */             \
  Registers ldmatrix_from_half_warp();                                                           \
  /* 64 chunks of 16 bytes (256 words) through cp.async; chunk c copies c % 17 bytes */          \
  /* (16: all), zero-fills the rest; r[4c ..] is chunk c + 1 (mod 64) as it arrived. */          \
  Registers cp_async_copy(const std::vector<std::uint32_t>& source);

namespace on_emu {
TENSOR_CORES_RUNNERS
}
namespace on_gpu {
TENSOR_CORES_RUNNERS
// wmma_tile's fp16 case, compiled from PTX 6.4 at run time, with or without
// wmma.mma's .satfinite (tc_satfinite_gpu.cu says why).
Gemm wmma_f16_tile_ptx64(const std::vector<std::uint16_t>& a,
                         const std::vector<std::uint16_t>& b_col_major, const std::vector<float>& c,
                         bool satfinite);
}  // namespace on_gpu

#undef TENSOR_CORES_RUNNERS

}  // namespace tensor_cores
