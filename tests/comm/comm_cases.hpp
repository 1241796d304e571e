// What the communicator tests check, written once and compiled for each
// backend (comm_emu_test.cpp: ranks on the emulator's virtual devices;
// comm_gpu_test.cu: ranks as streams of one GPU, and NCCL on the GPUs
// there are). Every check runs the ranks, reads each rank's output back and
// compares it with a host reference; inputs are random integers, so every
// sum is exact and every rank must hold the same bits.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cudalab/comm/sim_comm.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/stream_buffer.hpp"

namespace comm_tests {
inline namespace CUDALAB_BACKEND {

using cudalab::DeviceBuffer;
using cudalab::comm::Collective;
using cudalab::comm::Comm;
using cudalab::comm::DataType;
using cudalab::comm::ReduceOp;

// Runs `body` on the ranks of `make_world()` or, with nccl, on NcclComm.
using RankRunner = std::function<cudalab::comm::Traffic(const std::function<void(Comm&)>&)>;

inline std::vector<int> random_ints(std::mt19937& rng, std::size_t n) {
  std::uniform_int_distribution<int> value(-1000, 1000);
  std::vector<int> v(n);
  for (int& x : v) x = value(rng);
  return v;
}

// Each rank's input (int and float views of the same integers), the
// collective on the communicator, each rank's output, checked against the
// host. `ranks` must be what `run` makes.
inline void check_collective(const RankRunner& run, int ranks, Collective which, std::size_t count,
                             bool in_place, ReduceOp op, DataType type, std::mt19937& rng) {
  const std::size_t n = static_cast<std::size_t>(ranks);
  const bool whole_send = which == Collective::reduce_scatter;
  const bool whole_recv = which == Collective::all_gather;
  const std::size_t send_count = whole_send ? count * n : count;
  const std::size_t recv_count = whole_recv ? count * n : count;
  std::vector<std::vector<int>> inputs;
  for (std::size_t r = 0; r < n; ++r) inputs.push_back(random_ints(rng, send_count));
  const int root = ranks - 1;
  std::vector<std::vector<int>> want(n);
  for (std::size_t r = 0; r < n; ++r) {
    std::vector<int>& w = want[r];
    const auto reduce = [&](std::size_t offset) {
      w.assign(count, op == ReduceOp::sum ? 0 : -1000000);
      for (const auto& in : inputs) {
        for (std::size_t i = 0; i < count; ++i) {
          w[i] = op == ReduceOp::sum ? w[i] + in[offset + i] : std::max(w[i], in[offset + i]);
        }
      }
    };
    switch (which) {
      case Collective::all_reduce:
        reduce(0);
        break;
      case Collective::reduce_scatter:
        reduce(r * count);
        break;
      case Collective::broadcast:
        w = inputs[static_cast<std::size_t>(root)];
        break;
      case Collective::all_gather:
        for (const auto& in : inputs) w.insert(w.end(), in.begin(), in.end());
        break;
    }
  }
  std::vector<std::vector<int>> got(n);
  run([&](Comm& comm) {
    const std::size_t r = static_cast<std::size_t>(comm.rank());
    const std::size_t total = std::max(send_count, recv_count);
    std::vector<int> initial(total, -7777777);
    const std::size_t place = in_place && whole_recv ? r * count : 0;
    std::copy(inputs[r].begin(), inputs[r].end(),
              initial.begin() + static_cast<std::ptrdiff_t>(place));
    std::vector<float> initial_f(initial.begin(), initial.end());
    DeviceBuffer<int> ints(initial);
    DeviceBuffer<float> floats(initial_f);
    DeviceBuffer<int> out_ints(std::vector<int>(recv_count, -7777777));
    DeviceBuffer<float> out_floats(std::vector<float>(recv_count, -7777777.0f));
    char* base = type == DataType::i32 ? reinterpret_cast<char*>(ints.data())
                                       : reinterpret_cast<char*>(floats.data());
    char* out = type == DataType::i32 ? reinterpret_cast<char*>(out_ints.data())
                                      : reinterpret_cast<char*>(out_floats.data());
    const std::size_t element = 4;
    const void* send = base + place * element;
    void* recv = out;
    if (in_place) recv = whole_send ? base + r * count * element : base;
    switch (which) {
      case Collective::all_reduce:
        comm.all_reduce(send, recv, count, type, op);
        break;
      case Collective::broadcast:
        comm.broadcast(send, recv, count, type, root);
        break;
      case Collective::all_gather:
        comm.all_gather(send, recv, count, type);
        break;
      case Collective::reduce_scatter:
        comm.reduce_scatter(send, recv, count, type, op);
        break;
    }
    CUDA_CHECK(cudaStreamSynchronize(comm.stream()));
    std::vector<int>& g = got[r];
    const std::size_t at = in_place && whole_send ? r * count : 0;
    if (type == DataType::i32) {
      const std::vector<int> all = (in_place ? ints : out_ints).copy_to_host();
      g.assign(all.begin() + static_cast<std::ptrdiff_t>(at),
               all.begin() + static_cast<std::ptrdiff_t>(at + recv_count));
    } else {
      const std::vector<float> all = (in_place ? floats : out_floats).copy_to_host();
      g.assign(all.begin() + static_cast<std::ptrdiff_t>(at),
               all.begin() + static_cast<std::ptrdiff_t>(at + recv_count));
    }
  });
  for (std::size_t r = 0; r < n; ++r) {
    ASSERT_EQ(got[r], want[r]) << cudalab::comm::to_string(which) << " of " << count << " "
                               << cudalab::comm::to_string(type) << " ("
                               << cudalab::comm::to_string(op) << ") on " << ranks << " ranks"
                               << (in_place ? ", in place" : "") << ": rank " << r;
  }
}

// Every collective, type and operation, in and out of place, on `ranks`.
inline void check_every_collective(const RankRunner& run, int ranks, std::mt19937& rng) {
  for (const Collective which : {Collective::all_reduce, Collective::broadcast,
                                 Collective::all_gather, Collective::reduce_scatter}) {
    for (const std::size_t count : {std::size_t{1}, std::size_t{257}}) {
      for (const bool in_place : {false, true}) {
        check_collective(run, ranks, which, count, in_place, ReduceOp::sum, DataType::f32, rng);
        check_collective(run, ranks, which, count, in_place, ReduceOp::max, DataType::i32, rng);
      }
    }
  }
}

// A ring of grouped exchanges: rank r sends its buffer to r + 1 and
// receives r - 1's; each rank then holds r - 1's values, and the traffic
// is count * 4 bytes from each rank to the next only. With stream_ordered,
// what comes in lands in stream-ordered memory (cudaMallocAsync's pool).
inline void check_ring_exchange(const RankRunner& run, int ranks, std::size_t count,
                                std::mt19937& rng, bool stream_ordered = false) {
  const std::size_t n = static_cast<std::size_t>(ranks);
  std::vector<std::vector<int>> inputs;
  for (std::size_t r = 0; r < n; ++r) inputs.push_back(random_ints(rng, count));
  std::vector<std::vector<int>> got(n);
  const cudalab::comm::Traffic traffic = run([&](Comm& comm) {
    const int r = comm.rank();
    const int next = (r + 1) % ranks, prev = (r + ranks - 1) % ranks;
    DeviceBuffer<int> mine(inputs[static_cast<std::size_t>(r)]);
    DeviceBuffer<int> theirs(count);
    cudalab::StreamBuffer<int> theirs_stream_ordered(stream_ordered ? count : 0, comm.stream());
    int* into = stream_ordered ? theirs_stream_ordered.data() : theirs.data();
    comm.group_start();
    comm.send(mine.data(), count, next);
    comm.recv(into, count, prev);
    comm.group_end();
    if (stream_ordered) {
      CUDA_CHECK(cudaMemcpyAsync(theirs.data(), into, count * sizeof(int), cudaMemcpyDeviceToDevice,
                                 comm.stream()));
    }
    CUDA_CHECK(cudaStreamSynchronize(comm.stream()));
    got[static_cast<std::size_t>(r)] = theirs.copy_to_host();
  });
  for (std::size_t r = 0; r < n; ++r) {
    EXPECT_EQ(got[r], inputs[(r + n - 1) % n]) << "rank " << r;
    for (std::size_t to = 0; to < n; ++to) {
      const std::uint64_t want = to == (r + 1) % n ? count * sizeof(int) : 0;
      EXPECT_EQ(traffic.sent(static_cast<int>(r), static_cast<int>(to)), want)
          << "bytes from rank " << r << " to rank " << to;
    }
  }
}

}  // namespace CUDALAB_BACKEND
}  // namespace comm_tests
