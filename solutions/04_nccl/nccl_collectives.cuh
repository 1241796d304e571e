// Exercise 2: the same four collectives through NCCL's own API, one host
// thread driving every rank (NCCL's "single process, multiple devices"
// pattern). On a GPU machine this is real NCCL, one rank per GPU; on the
// emulator it is the emulator's NCCL, one rank per virtual device, with the
// same names and rules (cudalab/comm/emulated_nccl.hpp).
#pragma once

#include <cstddef>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/comm/comm.hpp"
#include "cudalab/nccl.hpp"

namespace lab04 {
inline namespace CUDALAB_BACKEND {

using cudalab::comm::Collective;

// One communicator per device, rank r on devices[r].
inline std::vector<ncclComm_t> make_communicators(const std::vector<int>& devices) {
  std::vector<ncclComm_t> comms(devices.size());
  // TODO(ex2) begin, about 1 line: one call makes them all
  NCCL_CHECK(ncclCommInitAll(comms.data(), static_cast<int>(devices.size()), devices.data()));
  // TODO(ex2) end
  return comms;
}

// Runs `which` on every rank: rank r reads sends[r] and writes recvs[r] on
// streams[r] (counts as in NCCL: per rank; an all_gather's recv and a
// reduce_scatter's send hold comms.size() * count). Returns when every
// rank's result is in its recv buffer.
inline void run_collective(Collective which, const std::vector<ncclComm_t>& comms,
                           const std::vector<cudaStream_t>& streams,
                           const std::vector<const float*>& sends, const std::vector<float*>& recvs,
                           std::size_t count, int root) {
  // TODO(ex2) begin, about 26 lines: one group with each rank's call
  // (ncclAllReduce, ncclBroadcast, ncclAllGather, ncclReduceScatter), then
  // wait for the streams
  NCCL_CHECK(ncclGroupStart());
  for (std::size_t r = 0; r < comms.size(); ++r) {
    switch (which) {
      case Collective::all_reduce:
        NCCL_CHECK(
            ncclAllReduce(sends[r], recvs[r], count, ncclFloat32, ncclSum, comms[r], streams[r]));
        break;
      case Collective::broadcast:
        NCCL_CHECK(
            ncclBroadcast(sends[r], recvs[r], count, ncclFloat32, root, comms[r], streams[r]));
        break;
      case Collective::all_gather:
        NCCL_CHECK(ncclAllGather(sends[r], recvs[r], count, ncclFloat32, comms[r], streams[r]));
        break;
      case Collective::reduce_scatter:
        NCCL_CHECK(ncclReduceScatter(sends[r], recvs[r], count, ncclFloat32, ncclSum, comms[r],
                                     streams[r]));
        break;
    }
  }
  NCCL_CHECK(ncclGroupEnd());
  for (const cudaStream_t s : streams) CUDA_CHECK(cudaStreamSynchronize(s));
  // TODO(ex2) end
}

inline void destroy_communicators(std::vector<ncclComm_t>& comms) {
  for (ncclComm_t c : comms) NCCL_CHECK(ncclCommDestroy(c));
  comms.clear();
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab04
