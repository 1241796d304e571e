// The constant- and pitched-memory kernels on the emulator: this file's
// rewritten copy includes the rewritten copy of constant_pitched.cuh beside
// it, instrumented. What only the emulator can tell (its recorder's figures,
// its reports, its virtual devices) is here.
#include "constant_pitched.cuh"

#include "cudalab/emu/recorder.hpp"

namespace constant_pitched {

namespace device {

// Stores through a pointer to a __constant__ variable (the name itself
// refuses the store at compile time): the emulator must report it.
__global__ void constant_write_kernel(float* out) {
  float* p = const_cast<float*>(&lut[0]);
  p[threadIdx.x] = 1.0f;
  out[threadIdx.x] = 0.0f;
}

}  // namespace device

const Kernels& emulator_kernels() { return kernels(); }

ConstantFigures emulator_strided_figures(unsigned k, unsigned threads, unsigned block) {
  std::vector<float> c(64, 1.0f), x(threads, 2.0f);
  cudalab::emu::Recording rec;
  strided_reads(c, x, k, block);
  const cudalab::emu::LaunchRecord& launch = rec.last();
  ConstantFigures f;
  f.transactions_per_request = launch.constant_cache.loads.transactions_per_request();
  f.requests = launch.constant_cache.loads.requests;
  f.global_sectors_per_request = launch.coalescing.loads.sectors_per_request();
  f.clean = rec.clean();
  f.reports = rec.reports_text();
  return f;
}

PitchedFigures emulator_pitched_figures(int width, int height, unsigned bx, unsigned by) {
  std::vector<float> in(static_cast<std::size_t>(width) * height, 1.0f);
  cudalab::emu::Recording rec;
  scale_rows(in, width, height, bx, by, false);
  PitchedFigures f;
  for (const cudalab::emu::LaunchRecord& launch : rec.launches()) {
    if (launch.kernel.find("scale_rows_kernel") == std::string::npos) continue;
    f.load_requests = launch.coalescing.loads.requests;
    f.load_sectors = launch.coalescing.loads.sectors;
    f.store_requests = launch.coalescing.stores.requests;
    f.store_sectors = launch.coalescing.stores.sectors;
  }
  f.pitch = pitch_of(sizeof(float) * width);
  return f;
}

WriteReport emulator_constant_write() {
  cudalab::DeviceBuffer<float> out(32);
  cudalab::emu::Recording rec;
  device::constant_write_kernel<<<1, 32>>>(out.data());
  WriteReport r;
  r.error = cudaDeviceSynchronize();
  (void)cudaGetLastError();
  const auto& reports = rec.last().reports;
  if (reports.empty()) return r;
  r.kind = to_string(reports.front().kind);
  r.message = reports.front().message;
  return r;
}

std::vector<float> emulator_per_device(int devices) {
  cudalab::emu::Options o = cudalab::emu::options();
  o.devices = static_cast<unsigned>(devices);
  cudalab::emu::ScopedOptions scoped(o);
  std::vector<float> out;
  for (int d = 0; d < devices; ++d) {
    CUDA_CHECK(cudaSetDevice(d));
    std::vector<float> table(256, static_cast<float>(d + 1));
    CUDA_CHECK(cudaMemcpyToSymbol(lut, table.data(), sizeof(float) * 256));
  }
  for (int d = 0; d < devices; ++d) {
    CUDA_CHECK(cudaSetDevice(d));
    cudalab::DeviceBuffer<int> index(std::vector<int>{d * 7});
    cudalab::DeviceBuffer<float> x(std::vector<float>{1.0f}), y(1);
    device::lookup_kernel<<<1, 1>>>(index.data(), x.data(), y.data(), 1);
    CUDA_CHECK(cudaGetLastError());
    out.push_back(y.copy_to_host()[0]);
  }
  CUDA_CHECK(cudaSetDevice(0));
  return out;
}

std::string emulator_symbol_race() {
  cudaStream_t reader, writer;
  CUDA_CHECK(cudaStreamCreateWithFlags(&reader, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&writer, cudaStreamNonBlocking));
  float* pinned = nullptr;
  CUDA_CHECK(cudaMallocHost(&pinned, sizeof(float) * 256));
  for (int i = 0; i < 256; ++i) pinned[i] = static_cast<float>(i);
  cudalab::DeviceBuffer<int> index(std::vector<int>(64, 3));
  cudalab::DeviceBuffer<float> x(std::vector<float>(64, 1.0f)), y(64);
  std::string reports;
  {
    cudalab::emu::Recording rec;
    device::lookup_kernel<<<1, 64, 0, reader>>>(index.data(), x.data(), y.data(), 64);
    CUDA_CHECK(cudaMemcpyToSymbolAsync(lut, pinned, sizeof(float) * 256, 0, cudaMemcpyHostToDevice,
                                       writer));
    CUDA_CHECK(cudaDeviceSynchronize());
    reports = rec.reports_text();
  }
  CUDA_CHECK(cudaFreeHost(pinned));
  CUDA_CHECK(cudaStreamDestroy(reader));
  CUDA_CHECK(cudaStreamDestroy(writer));
  return reports;
}

}  // namespace constant_pitched
