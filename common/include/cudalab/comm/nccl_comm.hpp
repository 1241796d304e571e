// NcclComm: one rank of an NCCL communicator, as a Comm. nvcc builds use
// NCCL on real GPUs (one GPU per rank: NCCL refuses two ranks on one);
// emulator builds use the emulator's NCCL over virtual devices. Either way
// every call goes through NCCL_CHECK.
//
//   one process per GPU (MPI): rank 0 makes the id, MPI_Bcast's it, then
//     cudaSetDevice(local_rank); NcclComm comm(id, ranks, rank);
//   one thread per GPU, in one process:
//     run_nccl_ranks(ranks, [](Comm& comm) { ... });
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/comm/comm.hpp"
#include "cudalab/comm/rank_threads.hpp"
#include "cudalab/nccl.hpp"

namespace cudalab::comm {
inline namespace CUDALAB_BACKEND {

inline ncclDataType_t nccl_type(DataType type) {
  return type == DataType::f32 ? ncclFloat32 : ncclInt32;
}
inline ncclRedOp_t nccl_op(ReduceOp op) { return op == ReduceOp::sum ? ncclSum : ncclMax; }

class NcclComm final : public Comm {
 public:
  // Joins communicator `id` as `rank` of `ranks`, on the current device.
  NcclComm(const ncclUniqueId& id, int ranks, int rank) : Comm(ranks), rank_(rank), size_(ranks) {
    CUDA_CHECK(cudaGetDevice(&device_));
    NCCL_CHECK(ncclCommInitRank(&comm_, ranks, id, rank));
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&scratch_, sizeof(int)));
  }
  ~NcclComm() override {
    static_cast<void>(cudaStreamSynchronize(stream_));
    static_cast<void>(cudaFree(scratch_));
    static_cast<void>(cudaStreamDestroy(stream_));
    static_cast<void>(ncclCommDestroy(comm_));
  }
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int device() const override { return device_; }
  cudaStream_t stream() const override { return stream_; }
  std::string backend() const override { return CUDALAB_GPU ? "nccl" : "nccl (emulated)"; }
  ncclComm_t get() const { return comm_; }

  void group_start() override { NCCL_CHECK(ncclGroupStart()); }
  void group_end() override { NCCL_CHECK(ncclGroupEnd()); }
  // NCCL has no barrier: a one-element all-reduce every rank must join.
  void barrier() override {
    NCCL_CHECK(ncclAllReduce(scratch_, scratch_, 1, ncclInt32, ncclSum, comm_, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

 protected:
  void do_send(const void* buffer, std::size_t count, DataType type, int peer) override {
    NCCL_CHECK(ncclSend(buffer, count, nccl_type(type), peer, comm_, stream_));
  }
  void do_recv(void* buffer, std::size_t count, DataType type, int peer) override {
    NCCL_CHECK(ncclRecv(buffer, count, nccl_type(type), peer, comm_, stream_));
  }
  void do_all_reduce(const void* send, void* recv, std::size_t count, DataType type,
                     ReduceOp op) override {
    NCCL_CHECK(ncclAllReduce(send, recv, count, nccl_type(type), nccl_op(op), comm_, stream_));
  }
  void do_broadcast(const void* send, void* recv, std::size_t count, DataType type,
                    int root) override {
    NCCL_CHECK(ncclBroadcast(send, recv, count, nccl_type(type), root, comm_, stream_));
  }
  void do_all_gather(const void* send, void* recv, std::size_t count, DataType type) override {
    NCCL_CHECK(ncclAllGather(send, recv, count, nccl_type(type), comm_, stream_));
  }
  void do_reduce_scatter(const void* send, void* recv, std::size_t count, DataType type,
                         ReduceOp op) override {
    NCCL_CHECK(ncclReduceScatter(send, recv, count, nccl_type(type), nccl_op(op), comm_, stream_));
  }

 private:
  int rank_ = 0;
  int size_ = 0;
  int device_ = 0;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  int* scratch_ = nullptr;
};

// Runs `body` on `ranks` ranks, rank r a host thread on device r with an
// NcclComm, and waits for them and their streams; returns their traffic.
// Needs ranks <= the number of devices. A rank that throws while its peers
// wait inside NCCL leaves them waiting (NCCL cannot be woken): keep what can
// fail before the first collective.
inline Traffic run_nccl_ranks(int ranks, const std::function<void(Comm&)>& body) {
  int devices = 0;
  CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (ranks < 1 || ranks > devices) {
    throw CommError("cudalab::comm: NCCL needs one device per rank: " + std::to_string(ranks) +
                    " ranks, " + std::to_string(devices) + " devices");
  }
  ncclUniqueId id;
  NCCL_CHECK(ncclGetUniqueId(&id));
  Traffic traffic{ranks, std::vector<std::uint64_t>(static_cast<std::size_t>(ranks) * ranks, 0)};
  run_rank_threads(ranks, [&](int r) {
    CUDA_CHECK(cudaSetDevice(r));
    NcclComm comm(id, ranks, r);
    body(comm);
    CUDA_CHECK(cudaStreamSynchronize(comm.stream()));
    const auto& sent = comm.bytes_sent_to();
    std::copy(sent.begin(), sent.end(),
              traffic.bytes.begin() + static_cast<std::ptrdiff_t>(r) * ranks);
  });
  return traffic;
}

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab::comm
