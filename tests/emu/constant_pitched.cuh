// The kernels and host code of constant_pitched.hpp, one source for both
// backends (inside the inline namespace CUDALAB_BACKEND, so both builds link
// into one program). The Programming Guide's examples are retyped as the
// Guide writes them ("Device Memory", "Variable Memory Space Specifiers").
#pragma once

#include <cstring>
#include <stdexcept>
#include <vector>

#include "constant_pitched.hpp"
#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/kernel.hpp"

namespace constant_pitched {
inline namespace CUDALAB_BACKEND {

struct Params {
  float scale;
  float shift;
};

__constant__ float lut[256];
__constant__ float coeffs[64];
__constant__ Params params;
__constant__ float bias = 0.5f;

// ---- the Programming Guide's examples ----
__constant__ float constData[256];
__device__ float devData;
__device__ float* devPointer;

namespace device {

__global__ void lookup_kernel(const int* index, const float* x, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = lut[index[i] % 256] * x[i];
}

__global__ void strided_kernel(const float* x, float* out, int n, unsigned k) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = coeffs[threadIdx.x % k] + x[i];
}

__global__ void affine_kernel(const float* x, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const Params p = params;  // a struct in constant memory: copied, then its members
  if (i < n) out[i] = p.scale * x[i] + p.shift + bias;
}

__global__ void read_symbol_pointer(const float* table, float* out) {
  out[threadIdx.x] = table[threadIdx.x];
}

__global__ void dev_pointer_check(int* same, float* expected) { *same = devPointer == expected; }

// The Guide's row walk over a pitched 2D array.
__global__ void MyKernel(float* devPtr, size_t pitch, int width, int height) {
  for (int r = 0; r < height; ++r) {
    float* row = (float*)((char*)devPtr + r * pitch);
    for (int c = 0; c < width; ++c) {
      float element = row[c];
      (void)element;
    }
  }
}

// out[r][c] = 2 * in[r][c] + r, both pitched, one thread per element.
__global__ void scale_rows_kernel(const float* in, size_t in_pitch, float* out, size_t out_pitch,
                                  int width, int height) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c >= width || r >= height) return;
  const float* in_row = (const float*)((const char*)in + r * in_pitch);
  float* out_row = (float*)((char*)out + r * out_pitch);
  out_row[c] = 2.0f * in_row[c] + static_cast<float>(r);
}

}  // namespace device

inline unsigned blocks_for(std::size_t n, unsigned block) {
  return static_cast<unsigned>((n + block - 1) / block);
}

inline std::vector<float> lookup(const std::vector<float>& table, const std::vector<int>& index,
                                 const std::vector<float>& x, unsigned block) {
  if (table.size() != 256) throw std::invalid_argument("lookup: the table has 256 entries");
  CUDA_CHECK(cudaMemcpyToSymbol(lut, table.data(), sizeof(float) * 256));
  cudalab::DeviceBuffer<int> d_index(index);
  cudalab::DeviceBuffer<float> d_x(x), d_out(x.size());
  device::lookup_kernel<<<blocks_for(x.size(), block), block>>>(
      d_index.data(), d_x.data(), d_out.data(), static_cast<int>(x.size()));
  CUDA_CHECK(cudaGetLastError());
  return d_out.copy_to_host();
}

inline std::vector<float> lookup_async(const std::vector<float>& table,
                                       const std::vector<int>& index, const std::vector<float>& x,
                                       unsigned block, std::vector<float>* read_back) {
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float* pinned = nullptr;
  CUDA_CHECK(cudaMallocHost(&pinned, sizeof(float) * 256));
  std::memcpy(pinned, table.data(), sizeof(float) * 256);
  cudalab::DeviceBuffer<int> d_index(index);
  cudalab::DeviceBuffer<float> d_x(x), d_out(x.size());
  CUDA_CHECK(
      cudaMemcpyToSymbolAsync(lut, pinned, sizeof(float) * 256, 0, cudaMemcpyHostToDevice, s));
  device::lookup_kernel<<<blocks_for(x.size(), block), block, 0, s>>>(
      d_index.data(), d_x.data(), d_out.data(), static_cast<int>(x.size()));
  CUDA_CHECK(cudaGetLastError());
  read_back->assign(256, 0.0f);
  CUDA_CHECK(
      cudaMemcpyFromSymbolAsync(pinned, lut, sizeof(float) * 256, 0, cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  std::memcpy(read_back->data(), pinned, sizeof(float) * 256);
  CUDA_CHECK(cudaFreeHost(pinned));
  CUDA_CHECK(cudaStreamDestroy(s));
  return d_out.copy_to_host();
}

inline std::vector<float> strided_reads(const std::vector<float>& c, const std::vector<float>& x,
                                        unsigned k, unsigned block) {
  CUDA_CHECK(cudaMemcpyToSymbol(coeffs, c.data(), sizeof(float) * 64));
  cudalab::DeviceBuffer<float> d_x(x), d_out(x.size());
  device::strided_kernel<<<blocks_for(x.size(), block), block>>>(d_x.data(), d_out.data(),
                                                                 static_cast<int>(x.size()), k);
  CUDA_CHECK(cudaGetLastError());
  return d_out.copy_to_host();
}

inline std::vector<float> affine(float scale, float shift, const std::vector<float>& x) {
  const Params p{scale, shift};
  CUDA_CHECK(cudaMemcpyToSymbol(params, &p, sizeof p));
  cudalab::DeviceBuffer<float> d_x(x), d_out(x.size());
  device::affine_kernel<<<blocks_for(x.size(), 128), 128>>>(d_x.data(), d_out.data(),
                                                            static_cast<int>(x.size()));
  CUDA_CHECK(cudaGetLastError());
  return d_out.copy_to_host();
}

// The Guide: "__constant__ float constData[256]; float data[256];
// cudaMemcpyToSymbol(constData, data, sizeof(data)); cudaMemcpyFromSymbol(data, constData,
// sizeof(data));"
inline std::vector<float> guide_const_round_trip(const std::vector<float>& in) {
  float data[256];
  std::memcpy(data, in.data(), sizeof(data));
  CUDA_CHECK(cudaMemcpyToSymbol(constData, data, sizeof(data)));
  std::memset(data, 0, sizeof(data));
  CUDA_CHECK(cudaMemcpyFromSymbol(data, constData, sizeof(data)));
  return std::vector<float>(data, data + 256);
}

inline float guide_dev_data(float in) {
  float value = in;
  CUDA_CHECK(cudaMemcpyToSymbol(devData, &value, sizeof(float)));
  float back = 0;
  CUDA_CHECK(cudaMemcpyFromSymbol(&back, devData, sizeof(float)));
  return back;
}

inline bool guide_dev_pointer() {
  float* ptr;
  CUDA_CHECK(cudaMalloc(&ptr, 256 * sizeof(float)));
  CUDA_CHECK(cudaMemcpyToSymbol(devPointer, &ptr, sizeof(ptr)));
  cudalab::DeviceBuffer<int> same(1);
  device::dev_pointer_check<<<1, 1>>>(same.data(), ptr);
  CUDA_CHECK(cudaGetLastError());
  const bool ok = same.copy_to_host()[0] == 1;
  CUDA_CHECK(cudaFree(ptr));
  return ok;
}

inline std::size_t guide_symbol_size() {
  size_t size = 0;
  CUDA_CHECK(cudaGetSymbolSize(&size, constData));
  return size;
}

// The symbol's address is device memory: a kernel can be given it, and
// cudaMemcpy reaches it.
inline std::vector<float> guide_symbol_address_read(const std::vector<float>& in) {
  float* address = nullptr;
  CUDA_CHECK(cudaGetSymbolAddress((void**)&address, constData));
  CUDA_CHECK(cudaMemcpy(address, in.data(), sizeof(float) * 256, cudaMemcpyHostToDevice));
  cudalab::DeviceBuffer<float> out(256);
  device::read_symbol_pointer<<<1, 256>>>(address, out.data());
  CUDA_CHECK(cudaGetLastError());
  return out.copy_to_host();
}

inline SymbolErrors symbol_errors(const std::vector<float>& in) {
  CUDA_CHECK(cudaMemcpyToSymbol(constData, in.data(), sizeof(float) * 256));
  std::vector<float> junk(300, -7.0f);
  static float not_a_symbol[4];
  SymbolErrors e;
  e.past_end = cudaMemcpyToSymbol(constData, junk.data(), sizeof(float) * 257);
  e.offset_past_end = cudaMemcpyToSymbol(constData, junk.data(), sizeof(float), 1024);
  e.not_a_symbol = cudaMemcpyToSymbol(not_a_symbol, junk.data(), sizeof(float));
  e.wrong_direction =
      cudaMemcpyToSymbol(constData, junk.data(), sizeof(float), 0, cudaMemcpyDeviceToHost);
  e.from_past_end = cudaMemcpyFromSymbol(junk.data(), constData, sizeof(float) * 2, 1020);
  void* address = nullptr;
  e.address_of_not_a_symbol = cudaGetSymbolAddress(&address, not_a_symbol);
  size_t size = 0;
  e.size_of_not_a_symbol = cudaGetSymbolSize(&size, not_a_symbol);
  (void)cudaGetLastError();  // the errors were the last error too: leave none behind
  std::vector<float> back(256);
  CUDA_CHECK(cudaMemcpyFromSymbol(back.data(), constData, sizeof(float) * 256));
  e.unchanged = std::memcmp(back.data(), in.data(), sizeof(float) * 256) == 0;
  return e;
}

inline std::size_t pitch_of(std::size_t width) {
  void* p = nullptr;
  size_t pitch = 0;
  CUDA_CHECK(cudaMallocPitch(&p, &pitch, width, 4));
  CUDA_CHECK(cudaFree(p));
  return pitch;
}

// The Guide: "int width = 64, height = 64; float* devPtr; size_t pitch;
// cudaMallocPitch(&devPtr, &pitch, width * sizeof(float), height);
// MyKernel<<<100, 512>>>(devPtr, pitch, width, height);" (with the array set first).
inline cudaError_t guide_my_kernel() {
  int width = 64, height = 64;
  float* devPtr;
  size_t pitch;
  cudaMallocPitch(&devPtr, &pitch, width * sizeof(float), height);
  CUDA_CHECK(cudaMemset2D(devPtr, pitch, 0, width * sizeof(float), height));
  device::MyKernel<<<100, 512>>>(devPtr, pitch, width, height);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  CUDA_CHECK(cudaFree(devPtr));
  return e;
}

inline std::vector<float> scale_rows(const std::vector<float>& in, int width, int height,
                                     unsigned bx, unsigned by, bool async) {
  const size_t row_bytes = sizeof(float) * width;
  float *d_in = nullptr, *d_out = nullptr;
  size_t in_pitch = 0, out_pitch = 0;
  CUDA_CHECK(cudaMallocPitch(&d_in, &in_pitch, row_bytes, height));
  CUDA_CHECK(cudaMallocPitch(&d_out, &out_pitch, row_bytes, height));
  cudalab::DeviceBuffer<float> packed(static_cast<std::size_t>(width) * height);
  std::vector<float> out(in.size());
  cudaStream_t s = nullptr;
  if (async) CUDA_CHECK(cudaStreamCreate(&s));
  if (async) {
    CUDA_CHECK(cudaMemcpy2DAsync(d_in, in_pitch, in.data(), row_bytes, row_bytes, height,
                                 cudaMemcpyHostToDevice, s));
  } else {
    CUDA_CHECK(cudaMemcpy2D(d_in, in_pitch, in.data(), row_bytes, row_bytes, height,
                            cudaMemcpyHostToDevice));
  }
  const dim3 block(bx, by);
  const dim3 grid(blocks_for(width, bx), blocks_for(height, by));
  device::scale_rows_kernel<<<grid, block, 0, s>>>(d_in, in_pitch, d_out, out_pitch, width, height);
  CUDA_CHECK(cudaGetLastError());
  if (async) {
    CUDA_CHECK(cudaMemcpy2DAsync(packed.data(), row_bytes, d_out, out_pitch, row_bytes, height,
                                 cudaMemcpyDeviceToDevice, s));
    CUDA_CHECK(cudaMemcpy2DAsync(out.data(), row_bytes, packed.data(), row_bytes, row_bytes, height,
                                 cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaStreamDestroy(s));
  } else {
    CUDA_CHECK(cudaMemcpy2D(packed.data(), row_bytes, d_out, out_pitch, row_bytes, height,
                            cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaMemcpy2D(out.data(), row_bytes, packed.data(), row_bytes, row_bytes, height,
                            cudaMemcpyDeviceToHost));
  }
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  return out;
}

inline std::vector<unsigned char> memset_columns(std::size_t width, std::size_t height,
                                                 std::size_t* pitch_out, bool async) {
  void* p = nullptr;
  size_t pitch = 0;
  CUDA_CHECK(cudaMallocPitch(&p, &pitch, width, height));
  cudaStream_t s = nullptr;
  if (async) CUDA_CHECK(cudaStreamCreate(&s));
  if (async) {
    CUDA_CHECK(cudaMemset2DAsync(p, pitch, 0x11, pitch, height, s));
    CUDA_CHECK(cudaMemset2DAsync(p, pitch, 0x7f, width, height, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaStreamDestroy(s));
  } else {
    CUDA_CHECK(cudaMemset2D(p, pitch, 0x11, pitch, height));
    CUDA_CHECK(cudaMemset2D(p, pitch, 0x7f, width, height));
  }
  std::vector<unsigned char> bytes(pitch * height);
  CUDA_CHECK(cudaMemcpy(bytes.data(), p, bytes.size(), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(p));
  *pitch_out = pitch;
  return bytes;
}

inline std::vector<unsigned char> host_and_default(const std::vector<unsigned char>& in,
                                                   std::size_t width, std::size_t height) {
  // in (pitch width) -> wide (pitch width + 7, HtoH) -> device (Default) ->
  // back (pitch width, Default).
  std::vector<unsigned char> wide((width + 7) * height, 0), back(width * height, 0);
  CUDA_CHECK(
      cudaMemcpy2D(wide.data(), width + 7, in.data(), width, width, height, cudaMemcpyHostToHost));
  void* d = nullptr;
  size_t pitch = 0;
  CUDA_CHECK(cudaMallocPitch(&d, &pitch, width, height));
  CUDA_CHECK(cudaMemcpy2D(d, pitch, wide.data(), width + 7, width, height, cudaMemcpyDefault));
  CUDA_CHECK(cudaMemcpy2D(back.data(), width, d, pitch, width, height, cudaMemcpyDefault));
  CUDA_CHECK(cudaFree(d));
  return back;
}

inline PitchErrors pitch_errors() {
  const size_t width = 100, height = 9;
  void* d = nullptr;
  size_t pitch = 0;
  CUDA_CHECK(cudaMallocPitch(&d, &pitch, width, height));
  CUDA_CHECK(cudaMemset2D(d, pitch, 0x33, width, height));
  std::vector<unsigned char> host(pitch * (height + 2), 0x55);
  PitchErrors e;
  e.width_over_dpitch =
      cudaMemcpy2D(d, 64, host.data(), pitch, width, height, cudaMemcpyHostToDevice);
  e.width_over_spitch =
      cudaMemcpy2D(d, pitch, host.data(), 64, width, height, cudaMemcpyHostToDevice);
  e.past_the_end =
      cudaMemcpy2D(d, pitch, host.data(), pitch, width, height + 1, cudaMemcpyHostToDevice);
  e.memset_width_over_pitch = cudaMemset2D(d, 64, 0, width, height);
  e.memset_past_the_end = cudaMemset2D(d, pitch, 0, width, height + 1);
  (void)cudaGetLastError();
  std::vector<unsigned char> after(pitch * height);
  CUDA_CHECK(cudaMemcpy(after.data(), d, after.size(), cudaMemcpyDeviceToHost));
  e.unchanged = true;
  for (size_t r = 0; r < height; ++r) {
    for (size_t c = 0; c < width; ++c) e.unchanged = e.unchanged && after[r * pitch + c] == 0x33;
  }
  CUDA_CHECK(cudaFree(d));
  return e;
}

inline const Kernels& kernels() {
  static const Kernels k{lookup,
                         lookup_async,
                         strided_reads,
                         affine,
                         guide_const_round_trip,
                         guide_dev_data,
                         guide_dev_pointer,
                         guide_symbol_size,
                         guide_symbol_address_read,
                         symbol_errors,
                         pitch_of,
                         guide_my_kernel,
                         scale_rows,
                         memset_columns,
                         host_and_default,
                         pitch_errors};
  return k;
}

}  // namespace CUDALAB_BACKEND
}  // namespace constant_pitched
