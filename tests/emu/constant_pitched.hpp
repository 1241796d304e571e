// Constant memory and pitched memory on both backends: constant_pitched.cuh
// holds the kernels and their host code as plain CUDA, compiled for the
// emulator (constant_pitched_emu.cpp, rewritten and instrumented) and by
// nvcc (constant_pitched_gpu.cu); test_constant_pitched.cpp runs each on
// both and checks the results against CPU references.
#pragma once

#include <driver_types.h>

#include <cstddef>
#include <string>
#include <vector>

namespace constant_pitched {

// What the symbol API answered to misuse, and whether the table kept its contents.
struct SymbolErrors {
  cudaError_t past_end, offset_past_end, not_a_symbol, wrong_direction, from_past_end,
      address_of_not_a_symbol, size_of_not_a_symbol;
  bool unchanged;
};

struct PitchErrors {
  cudaError_t width_over_dpitch, width_over_spitch, past_the_end, memset_width_over_pitch,
      memset_past_the_end;
  bool unchanged;
};

// One backend's launches. Every function returns what the kernels wrote.
struct Kernels {
  // out[i] = lut[index[i] % 256] * x[i], lut a __constant__ float[256]
  // filled by cudaMemcpyToSymbol; blocks of `block` threads.
  std::vector<float> (*lookup)(const std::vector<float>& lut, const std::vector<int>& index,
                               const std::vector<float>& x, unsigned block);
  // The same through cudaMemcpyToSymbolAsync, the kernel and
  // cudaMemcpyFromSymbolAsync on one created stream; `read_back` gets the table.
  std::vector<float> (*lookup_async)(const std::vector<float>& lut, const std::vector<int>& index,
                                     const std::vector<float>& x, unsigned block,
                                     std::vector<float>* read_back);
  // out[i] = coeffs[threadIdx.x % k] + x[i], coeffs a __constant__ float[64]:
  // each warp reads k distinct addresses.
  std::vector<float> (*strided_reads)(const std::vector<float>& coeffs, const std::vector<float>& x,
                                      unsigned k, unsigned block);
  // A __constant__ struct and a scalar with an initialiser: out[i] = p.scale * x[i] + p.shift +
  // bias.
  std::vector<float> (*affine)(float scale, float shift, const std::vector<float>& x);
  // The Programming Guide's examples, retyped: constData to and from the
  // device, devData and devPointer, cudaGetSymbolAddress/Size.
  std::vector<float> (*guide_const_round_trip)(const std::vector<float>& data);
  float (*guide_dev_data)(float value);
  bool (*guide_dev_pointer)();  // devPointer holds what cudaMalloc returned
  std::size_t (*guide_symbol_size)();
  std::vector<float> (*guide_symbol_address_read)(const std::vector<float>& data);
  SymbolErrors (*symbol_errors)(const std::vector<float>& data);
  // cudaMallocPitch's pitch for `width` bytes, 4 rows.
  std::size_t (*pitch_of)(std::size_t width);
  // The Guide's MyKernel over a pitched 64 x 64 array (after cudaMemset2D): the launch's error.
  cudaError_t (*guide_my_kernel)();
  // host -> pitched device (cudaMemcpy2D) -> out[r][c] = 2 * in[r][c] + r by
  // a 2D grid of (bx, by) blocks -> pitched -> contiguous device
  // (cudaMemcpy2D DtoD) -> host; width and height in elements.
  std::vector<float> (*scale_rows)(const std::vector<float>& in, int width, int height, unsigned bx,
                                   unsigned by, bool async);
  // The whole pitch x height bytes after cudaMemset2D(0x11) of the full pitch
  // and cudaMemset2D(0x7f) of `width` bytes (asynchronously if `async`).
  std::vector<unsigned char> (*memset_columns)(std::size_t width, std::size_t height,
                                               std::size_t* pitch, bool async);
  // Host to host and host to device with cudaMemcpyDefault, through two host
  // matrices of different pitches; width bytes, height rows.
  std::vector<unsigned char> (*host_and_default)(const std::vector<unsigned char>& in,
                                                 std::size_t width, std::size_t height);
  PitchErrors (*pitch_errors)();
};

const Kernels& emulator_kernels();
const Kernels& gpu_kernels();
std::string gpu_unavailable_reason();

// Emulator only: what the recorder saw.
struct ConstantFigures {
  double transactions_per_request = 0;  // of the strided_reads kernel's constant loads
  unsigned long long requests = 0;
  double global_sectors_per_request = 0;  // of its global load of x
  bool clean = false;
  std::string reports;
};
ConstantFigures emulator_strided_figures(unsigned k, unsigned threads, unsigned block);
// The pitched kernel's global loads and stores per request (block bx x by, width floats).
struct PitchedFigures {
  unsigned long long load_requests = 0, load_sectors = 0, store_requests = 0, store_sectors = 0;
  std::size_t pitch = 0;
};
PitchedFigures emulator_pitched_figures(int width, int height, unsigned bx, unsigned by);
// A kernel storing through a pointer to a __constant__ variable: the report.
struct WriteReport {
  std::string kind, message;
  cudaError_t error;
};
WriteReport emulator_constant_write();
// Per device: lookup with the table device d was given (d + 1 in every entry).
std::vector<float> emulator_per_device(int devices);
// A cudaMemcpyToSymbolAsync on a non-blocking stream racing a kernel reading the table.
std::string emulator_symbol_race();

}  // namespace constant_pitched
