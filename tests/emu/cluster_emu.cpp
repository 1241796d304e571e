// The cluster kernels on the emulator: this file's rewritten copy includes
// the rewritten copy of cluster.cuh beside it, instrumented. The planted bugs
// are here, not in the .cuh: on a GPU they are races or undefined.
#include "cluster.cuh"

#include <chrono>
#include <stdexcept>
#include <thread>

#include "cudalab/emu/recorder.hpp"

namespace cluster {

namespace device {

// Rank 0 reads rank 1's word with no cluster.sync() after rank 1 wrote it.
__global__ void read_before_sync_kernel(int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ int value;
  if (threadIdx.x == 0 && cluster.block_rank() == 1) value = 42;
  if (threadIdx.x == 0 && cluster.block_rank() == 0) out[0] = *cluster.map_shared_rank(&value, 1);
  cluster.sync();
}

// Rank 1 exits while rank 0 still reads its shared memory.
__global__ void exit_while_read_kernel(int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ int value;
  if (threadIdx.x == 0) value = 7;
  cluster.sync();
  if (cluster.block_rank() == 1 || threadIdx.x != 0) return;
  // Long enough for rank 1's host thread to finish its block.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  out[0] = *cluster.map_shared_rank(&value, 1);
}

__global__ void wrong_rank_kernel(int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ int value;
  if (threadIdx.x == 0) value = 1;
  cluster.sync();
  if (threadIdx.x == 0) out[cluster.block_rank()] = *cluster.map_shared_rank(&value, 2);
  cluster.sync();
}

// barrier_wait() with no barrier_arrive() before it: the GPU hangs.
__global__ void wait_without_arrive_kernel(int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  if (cluster.block_rank() == 0 && threadIdx.x == 0) out[0] = 1;
  cluster.barrier_wait();
}

// Rank 1 writes its word between its arrival and its wait, rank 0 reads it
// after its own wait: no barrier orders the two.
__global__ void write_after_arrive_kernel(int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ int value;
  if (threadIdx.x == 0) value = 0;
  cluster.sync();
  cluster.barrier_arrive();
  if (threadIdx.x == 0 && cluster.block_rank() == 1) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // rank 0 reads first
    value = 5;
  }
  cluster.barrier_wait();
  if (threadIdx.x == 0 && cluster.block_rank() == 0) out[0] = *cluster.map_shared_rank(&value, 1);
  cluster.sync();
}

// setmaxnreg in a block whose only warpgroup has three warps.
__global__ void partial_warpgroup_kernel(int* out) {
  cudalab::setmaxnreg_dec<40>();
  if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = 1;
}

// Rank 1 signals rank `target` instead of rank 0, whose thread waits.
template <unsigned Target>
__global__ void peer_mbarrier_wrong_rank_kernel(int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ std::uint64_t full;
  if (threadIdx.x == 0) {
    cudalab::mbarrier_init(&full, 1);
    cudalab::fence_mbarrier_init();
  }
  cluster.sync();
  if (threadIdx.x == 0) {
    if (cluster.block_rank() == 1) {
      cudalab::mbarrier_arrive_cluster(&full, Target);
    } else {
      cudalab::mbarrier_wait_parity_cluster(&full, 0);
      out[0] = 1;
    }
  }
  cluster.sync();
}

}  // namespace device

const Kernels& emulator_kernels() { return kernels(); }

namespace {

template <class Kernel>
const cudalab::emu::Report& first_report(const cudalab::emu::Recording& rec, Kernel kernel,
                                         int* out, cudaError_t* error = nullptr) {
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config = cluster_config(dim3(2), dim3(32), 0, dim3(2), &attribute);
  CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, out));
  const cudaError_t e = cudaDeviceSynchronize();
  if (error) *error = e;
  (void)cudaGetLastError();
  const auto& reports = rec.last().reports;
  if (reports.empty()) throw std::logic_error(rec.last().kernel + " made no report");
  return reports.front();
}

}  // namespace

PlantedReports emulator_planted_reports() {
  PlantedReports r;
  cudalab::DeviceBuffer<int> out(2);
  {
    cudalab::emu::Recording rec;
    const cudalab::emu::Report& report =
        first_report(rec, device::read_before_sync_kernel, out.data());
    r.race_kind = to_string(report.kind);
    r.race_message = report.message;
  }
  {
    cudalab::emu::Recording rec;
    const cudalab::emu::Report& report =
        first_report(rec, device::exit_while_read_kernel, out.data());
    r.exited_kind = to_string(report.kind);
    r.exited_message = report.message;
  }
  {
    cudalab::emu::Recording rec;
    const cudalab::emu::Report& report =
        first_report(rec, device::wrong_rank_kernel, out.data(), &r.rank_error);
    r.rank_kind = to_string(report.kind);
    r.rank_message = report.message;
  }
  {
    cudalab::emu::Recording rec;
    const cudalab::emu::Report& report =
        first_report(rec, device::wait_without_arrive_kernel, out.data());
    r.wait_kind = to_string(report.kind);
    r.wait_message = report.message;
  }
  {
    cudalab::emu::Recording rec;
    r.split_race_kind =
        to_string(first_report(rec, device::write_after_arrive_kernel, out.data()).kind);
  }
  {
    cudalab::emu::Recording rec;
    device::partial_warpgroup_kernel<<<1, 96>>>(out.data());
    (void)cudaDeviceSynchronize();
    (void)cudaGetLastError();
    if (rec.last().reports.empty()) throw std::logic_error("setmaxnreg made no report");
    r.setmaxnreg_kind = to_string(rec.last().reports.front().kind);
    r.setmaxnreg_message = rec.last().reports.front().message;
  }
  const auto kinds = [&](auto kernel, std::string* hang) {
    cudalab::emu::Recording rec;
    cudaLaunchAttribute attribute;
    const cudaLaunchConfig_t config = cluster_config(dim3(2), dim3(32), 0, dim3(2), &attribute);
    CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, out.data()));
    (void)cudaDeviceSynchronize();
    (void)cudaGetLastError();
    std::vector<std::string> found;
    for (const cudalab::emu::Report& report : rec.last().reports) {
      found.push_back(to_string(report.kind));
      if (hang && report.kind == cudalab::emu::ReportKind::mbarrier) *hang = report.message;
    }
    return found;
  };
  r.outside_rank_kinds = kinds(device::peer_mbarrier_wrong_rank_kernel<2>, nullptr);
  r.own_rank_kinds = kinds(device::peer_mbarrier_wrong_rank_kernel<1>, &r.own_rank_hang_message);
  return r;
}

}  // namespace cluster
