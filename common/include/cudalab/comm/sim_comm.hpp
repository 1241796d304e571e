// SimComm: one rank of a SimWorld, as a Comm. run_ranks runs a function on
// every rank, each on a host thread of its own:
//
//   cudalab::comm::SimWorld world(cudalab::comm::one_device_per_rank(4));
//   cudalab::comm::run_ranks(world, [&](cudalab::comm::Comm& comm) { ... });
//
// On the emulator (one virtual device per rank) this is the issue's
// "ThreadComm"; on a GPU with every rank on device 0 it is "DeviceSimComm":
// n ranks' buffers on one GPU, a stream per rank, copies ordered by events.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/comm/comm.hpp"
#include "cudalab/comm/rank_threads.hpp"
#include "cudalab/comm/sim_world.hpp"

namespace cudalab::comm {
inline namespace CUDALAB_BACKEND {

// Rank r on device r (the emulator's virtual devices, or one GPU each).
inline std::vector<int> one_device_per_rank(int ranks) {
  std::vector<int> devices(static_cast<std::size_t>(ranks < 0 ? 0 : ranks));
  for (int r = 0; r < ranks; ++r) devices[static_cast<std::size_t>(r)] = r;
  return devices;
}
// Every rank on `device`.
inline std::vector<int> all_on_device(int ranks, int device) {
  return std::vector<int>(static_cast<std::size_t>(ranks < 0 ? 0 : ranks), device);
}

class SimComm final : public Comm {
 public:
  SimComm(SimWorld& world, int rank, std::string backend_name)
      : Comm(world.size()), world_(world), rank_(rank), backend_(std::move(backend_name)) {}

  int rank() const override { return rank_; }
  int size() const override { return world_.size(); }
  int device() const override { return world_.device_of(rank_); }
  cudaStream_t stream() const override { return world_.stream_of(rank_); }
  std::string backend() const override { return backend_; }

  void group_start() override { ++group_depth_; }
  void group_end() override {
    if (group_depth_ == 0) {
      throw CommError("cudalab::comm: group_end on rank " + std::to_string(rank_) +
                      " without group_start");
    }
    if (--group_depth_ == 0) flush();
  }
  void barrier() override {
    CUDA_CHECK(cudaStreamSynchronize(stream()));
    world_.barrier(rank_);
  }

 protected:
  void do_send(const void* buffer, std::size_t count, DataType type, int peer) override {
    add({OpKind::send, rank_, peer, buffer, nullptr, count, type, ReduceOp::sum, stream()});
  }
  void do_recv(void* buffer, std::size_t count, DataType type, int peer) override {
    add({OpKind::recv, rank_, peer, nullptr, buffer, count, type, ReduceOp::sum, stream()});
  }
  void do_all_reduce(const void* send, void* recv, std::size_t count, DataType type,
                     ReduceOp op) override {
    add({OpKind::all_reduce, rank_, 0, send, recv, count, type, op, stream()});
  }
  void do_broadcast(const void* send, void* recv, std::size_t count, DataType type,
                    int root) override {
    add({OpKind::broadcast, rank_, root, send, recv, count, type, ReduceOp::sum, stream()});
  }
  void do_all_gather(const void* send, void* recv, std::size_t count, DataType type) override {
    add({OpKind::all_gather, rank_, 0, send, recv, count, type, ReduceOp::sum, stream()});
  }
  void do_reduce_scatter(const void* send, void* recv, std::size_t count, DataType type,
                         ReduceOp op) override {
    add({OpKind::reduce_scatter, rank_, 0, send, recv, count, type, op, stream()});
  }

 private:
  void add(const SimOp& op) {
    group_.push_back(op);
    if (group_depth_ == 0) flush();
  }
  void flush() {
    std::vector<SimOp> ops;
    ops.swap(group_);
    world_.run_group(ops);
  }

  SimWorld& world_;
  int rank_;
  std::string backend_;
  int group_depth_ = 0;
  std::vector<SimOp> group_;
};

// Runs `body` on every rank of `world`, rank r on a host thread whose current
// device is world.device_of(r), and waits for all of them and for their
// streams. Returns every rank's traffic. If a rank throws, the others are
// woken (they throw CommError) and the first failure is rethrown here.
inline Traffic run_ranks(SimWorld& world, const std::function<void(Comm&)>& body,
                         const std::string& backend_name) {
  const int n = world.size();
  Traffic traffic{n, std::vector<std::uint64_t>(static_cast<std::size_t>(n) * n, 0)};
  run_rank_threads(
      n,
      [&](int r) {
        CUDA_CHECK(cudaSetDevice(world.device_of(r)));
        SimComm comm(world, r, backend_name);
        const auto keep_traffic = [&] {
          const auto& sent = comm.bytes_sent_to();
          std::copy(sent.begin(), sent.end(),
                    traffic.bytes.begin() + static_cast<std::ptrdiff_t>(r) * n);
        };
        try {
          body(comm);
          CUDA_CHECK(cudaStreamSynchronize(comm.stream()));
        } catch (...) {
          keep_traffic();  // what it sent before it failed
          throw;
        }
        keep_traffic();
      },
      [&](int r, const std::string& what) {
        world.fail("rank " + std::to_string(r) + " failed: " + what);
      },
      [&](int r) { world.leave(r); });
  return traffic;
}

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab::comm
