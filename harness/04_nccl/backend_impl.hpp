// Lab 04's Backend, written once and compiled twice (by nvcc and by the
// host compiler, in units cmake/CudalabLab.cmake generates) inside the
// inline namespace CUDALAB_BACKEND: the entry points bound to the lab's
// functions, and exercise 2's run of the student's NCCL calls.
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend.hpp"
#include "bandwidth.hpp"
#include "collectives_by_hand.cuh"
#include "cudalab/harness/rank_calls.hpp"
#include "nccl_collectives.cuh"
#include "ring_all_reduce.cuh"

namespace lab04::harness {
inline namespace CUDALAB_BACKEND {

using cudalab::comm::Comm;
using cudalab::harness::DeviceScope;
using cudalab::harness::RankBuffers;

class LabBackend final : public cudalab::harness::RanksBackendFor<Backend> {
 public:
  LabBackend() {
    // Rank entries take NCCL's collective signature; root is broadcast's only.
    bind(entry::by_hand(Collective::all_reduce),
         [](Comm& comm, const float* send, float* recv, std::size_t count, int) {
           lab04::all_reduce_by_hand(comm, send, recv, count);
         });
    bind(entry::by_hand(Collective::broadcast),
         [](Comm& comm, const float* send, float* recv, std::size_t count, int root) {
           lab04::broadcast_by_hand(comm, send, recv, count, root);
         });
    bind(entry::by_hand(Collective::all_gather),
         [](Comm& comm, const float* send, float* recv, std::size_t count, int) {
           lab04::all_gather_by_hand(comm, send, recv, count);
         });
    bind(entry::by_hand(Collective::reduce_scatter),
         [](Comm& comm, const float* send, float* recv, std::size_t count, int) {
           lab04::reduce_scatter_by_hand(comm, send, recv, count);
         });
    bind(entry::message_bytes, lab04::message_bytes);
    bind(entry::algbw_gbps, lab04::algbw_gbps);
    bind(entry::busbw_factor, lab04::busbw_factor);
    bind(entry::ring_all_reduce, [](Comm& comm, const float* send, float* recv, std::size_t count,
                                    int) { lab04::ring_all_reduce(comm, send, recv, count); });
    bind(entry::ring_until_reduce_scatter,
         [](Comm& comm, const float* send, float* recv, std::size_t count, int) {
           lab04::ring_all_reduce(comm, send, recv, count, /*stop_after_reduce_scatter=*/true);
         });
  }

  RanksRun through_nccl(const CollectiveCase& c) override {
    RanksRun result;
    result.comm = CUDALAB_GPU ? "nccl" : "nccl (emulated)";
    const int n = c.ranks();
    cudalab::harness::DevicesFor devices_for(n);
    std::vector<RankBuffers> ranks;
    std::vector<cudalab::OwnedStream> streams;
    result.observation = cudalab::harness::observe_call({}, {}, [&] {
      if (n > nccl_devices()) {
        throw std::invalid_argument("NCCL needs one device per rank: " + std::to_string(n) +
                                    " ranks, " + std::to_string(nccl_devices()) + " devices");
      }
      std::vector<int> devices = cudalab::comm::one_device_per_rank(n);
      if (c.devices_reversed) std::reverse(devices.begin(), devices.end());
      ranks = cudalab::harness::make_buffers(c, devices);
      std::vector<const float*> sends;
      std::vector<float*> recvs;
      std::vector<cudaStream_t> stream_handles;
      for (const RankBuffers& b : ranks) {
        DeviceScope on(b.device);
        streams.emplace_back(cudaStreamNonBlocking);
        stream_handles.push_back(streams.back().get());
        sends.push_back(b.send);
        recvs.push_back(b.recv);
      }
      std::vector<ncclComm_t> comms = lab04::make_communicators(devices);
      lab04::run_collective(c.which, comms, stream_handles, sends, recvs, c.count, c.root);
      result.outputs = cudalab::harness::read_outputs(ranks);
      lab04::destroy_communicators(comms);
    });
    // What the student's code left queued finishes before the buffers go.
    for (std::size_t r = 0; r < streams.size(); ++r) {
      DeviceScope on(ranks[r].device);
      CUDA_CHECK(cudaStreamSynchronize(streams[r].get()));
    }
    return result;
  }
};

}  // namespace CUDALAB_BACKEND
}  // namespace lab04::harness
