// The cooperative-groups kernels on the emulator: this file's rewritten copy
// includes the rewritten copy of coop_groups.cuh beside it, instrumented.
// The divergent kernels are here, not in the .cuh: on a GPU they hang or are
// undefined, so only the emulator's reports about them are tested.
#include "coop_groups.cuh"

#include "cudalab/emu/recorder.hpp"

namespace coop_groups {

namespace device {

__global__ void divergent_block_sync_kernel(float* out) {
  cg::thread_block block = cg::this_thread_block();
  if (threadIdx.x < 16) block.sync();
  out[threadIdx.x] = 1.0f;
}

__global__ void divergent_syncthreads_kernel(float* out) {
  if (threadIdx.x < 16) __syncthreads();
  out[threadIdx.x] = 1.0f;
}

// Block 1 leaves before grid.sync(): on the GPU the other blocks wait forever.
__global__ void grid_early_exit_kernel(int* out) {
  cg::grid_group grid = cg::this_grid();
  if (blockIdx.x == 1) return;
  grid.sync();
  out[blockIdx.x] = 1;
}

}  // namespace device

const Kernels& emulator_kernels() { return kernels(); }

namespace {
const cudalab::emu::Report& first_report(const cudalab::emu::Recording& rec) {
  const auto& reports = rec.last().reports;
  if (reports.empty()) throw std::logic_error(rec.last().kernel + " made no report");
  return reports.front();
}
}  // namespace

DivergentReports emulator_reports() {
  DivergentReports r;
  cudalab::DeviceBuffer<float> out(64);
  cudalab::DeviceBuffer<int> flags(2);
  {
    cudalab::emu::Recording rec;
    device::divergent_block_sync_kernel<<<1, 64>>>(out.data());
    r.block_sync_error = cudaDeviceSynchronize();
    (void)cudaGetLastError();  // the fault is the last error too: leave none behind
    const cudalab::emu::Report& report = first_report(rec);
    r.block_sync_kind = to_string(report.kind);
    r.block_sync_message = report.message;
    r.block_sync_site = report.file + ":" + std::to_string(report.line);
  }
  {
    cudalab::emu::Recording rec;
    device::divergent_syncthreads_kernel<<<1, 64>>>(out.data());
    r.syncthreads_error = cudaDeviceSynchronize();
    (void)cudaGetLastError();
    const cudalab::emu::Report& report = first_report(rec);
    r.syncthreads_kind = to_string(report.kind);
    r.syncthreads_message = report.message;
  }
  {
    cudalab::emu::Recording rec;
    device::grid_sync_not_cooperative_kernel<<<2, 32>>>(flags.data());
    (void)cudaDeviceSynchronize();
    (void)cudaGetLastError();
    const cudalab::emu::Report& report = first_report(rec);
    r.grid_sync_kind = to_string(report.kind);
    r.grid_sync_message = report.message;
  }
  {
    cudalab::emu::Recording rec;
    cudalab::DeviceBuffer<int> out3(3);
    int* p = out3.data();
    void* args[] = {&p};
    const cudaError_t launch = cudaLaunchCooperativeKernel((void*)device::grid_early_exit_kernel,
                                                           dim3(3), dim3(32), args, 0, 0);
    r.grid_early_exit_error = launch != cudaSuccess ? launch : cudaDeviceSynchronize();
    (void)cudaGetLastError();
    const cudalab::emu::Report& report = first_report(rec);
    r.grid_early_exit_kind = to_string(report.kind);
    r.grid_early_exit_message = report.message;
  }
  {
    cudalab::emu::Recording rec;
    cudaError_t launch = cudaSuccess;
    std::vector<unsigned> in(1009, 5u);
    grid_rounds(in, 7, 64, 3, &launch);
    r.grid_run_clean = launch == cudaSuccess && rec.clean();
    r.grid_run_reports = rec.reports_text();
  }
  return r;
}

}  // namespace coop_groups
