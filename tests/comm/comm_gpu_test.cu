// cudalab::comm on a GPU (label gpu): SimComm with every rank a stream of
// GPU 0 (the one-GPU simulation), SimComm with a GPU per rank, and NcclComm
// over real NCCL on as many GPUs as there are. Skipped, with the reason,
// where there is no GPU; the multi-GPU parts where there is one.
#include <gtest/gtest.h>

#include <random>

#include "comm_cases.hpp"
#include "cudalab/comm/nccl_comm.hpp"
#include "cudalab/device_info.hpp"

namespace comm_tests {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (!cudalab::has_gpu()) GTEST_SKIP() << cudalab::no_gpu_reason()

std::mt19937 seeded() {
  const unsigned seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  return std::mt19937(seed);
}

int gpu_count() {
  int devices = 0;
  CUDA_CHECK(cudaGetDeviceCount(&devices));
  return devices;
}

RankRunner on_one_gpu(int ranks) {
  return [ranks](const std::function<void(Comm&)>& body) {
    cudalab::comm::SimWorld world(cudalab::comm::all_on_device(ranks, 0));
    return cudalab::comm::run_ranks(world, body, "device-sim (streams of one GPU)");
  };
}

TEST(GpuComm, OneGpuSimulationOfEveryRankCount) {
  SKIP_WITHOUT_GPU();
  std::mt19937 rng = seeded();
  for (const int ranks : {1, 2, 3, 8}) {
    check_every_collective(on_one_gpu(ranks), ranks, rng);
    check_ring_exchange(on_one_gpu(ranks), ranks, 100003, rng);
  }
}

TEST(GpuComm, SimulatedRanksOnSeveralGpus) {
  SKIP_WITHOUT_GPU();
  const int ranks = gpu_count();
  if (ranks < 2) GTEST_SKIP() << "one GPU: a device per rank needs two";
  std::mt19937 rng = seeded();
  const RankRunner run = [ranks](const std::function<void(Comm&)>& body) {
    cudalab::comm::SimWorld world(cudalab::comm::one_device_per_rank(ranks));
    return cudalab::comm::run_ranks(world, body, "simulated, a GPU per rank");
  };
  check_every_collective(run, ranks, rng);
  check_ring_exchange(run, ranks, 100003, rng);
  check_ring_exchange(run, ranks, 100003, rng, /*stream_ordered=*/true);
}

TEST(GpuComm, NcclCommOnEveryGpu) {
  SKIP_WITHOUT_GPU();
  std::mt19937 rng = seeded();
  const int ranks = gpu_count();
  const RankRunner run = [ranks](const std::function<void(Comm&)>& body) {
    return cudalab::comm::run_nccl_ranks(ranks, body);
  };
  check_every_collective(run, ranks, rng);
  check_ring_exchange(run, ranks, 100003, rng);
}

}  // namespace
}  // namespace comm_tests
