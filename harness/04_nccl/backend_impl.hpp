// Lab 04's Backend, written once and compiled twice (by nvcc and by the
// host compiler, in units cmake/CudalabLab.cmake generates) inside the inline namespace
// CUDALAB_BACKEND. Each call gives every rank its buffers on its device,
// runs the student's code on every rank (a host thread each), and reads the
// ranks' outputs and traffic back.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend.hpp"
#include "bandwidth.hpp"
#include "collective_reference.hpp"
#include "collectives_by_hand.cuh"
#include "cudalab/comm/nccl_comm.hpp"
#include "cudalab/comm/sim_comm.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/harness/device_call.hpp"
#include "cudalab/stream_handles.hpp"
#include "nccl_collectives.cuh"
#include "ring_all_reduce.cuh"

#if !CUDALAB_GPU
#include "cudalab/emu/recorder.hpp"
#endif

namespace lab04::harness {
inline namespace CUDALAB_BACKEND {

using cudalab::DeviceBuffer;
using cudalab::comm::Comm;
using cudalab::harness::observe_call;

// One rank's buffers on its device. Outputs start as NaN, so a rank that
// leaves part of its output unwritten fails.
struct RankBuffers {
  int device = 0;
  DeviceBuffer<float> send_buffer;  // empty when in place
  DeviceBuffer<float> recv_buffer;
  const float* send = nullptr;
  float* recv = nullptr;
  std::size_t recv_count = 0;
};

inline std::size_t send_count(const CollectiveCase& c) {
  return cudalab::comm::send_elements(c.which, c.count, c.ranks());
}
inline std::size_t recv_count(const CollectiveCase& c) {
  return cudalab::comm::recv_elements(c.which, c.count, c.ranks());
}

// The emulator needs as many virtual devices as ranks; a GPU has what it has.
class DevicesFor {
 public:
#if CUDALAB_GPU
  explicit DevicesFor(int) {}
#else
  explicit DevicesFor(int ranks) : options_(with_devices(ranks)) {}

 private:
  static cudalab::emu::Options with_devices(int ranks) {
    cudalab::emu::Options options = cudalab::emu::options();
    options.devices = static_cast<unsigned>(std::max(ranks, 1));
    return options;
  }
  cudalab::emu::ScopedOptions options_;
#endif
};

inline std::vector<RankBuffers> make_buffers(const CollectiveCase& c,
                                             const std::vector<int>& devices) {
  const int n = c.ranks();
  std::vector<RankBuffers> ranks(static_cast<std::size_t>(n));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int r = 0; r < n; ++r) {
    RankBuffers& b = ranks[static_cast<std::size_t>(r)];
    const std::vector<float>& input = c.inputs[static_cast<std::size_t>(r)];
    if (input.size() != send_count(c)) {
      throw std::invalid_argument("lab 04: rank " + std::to_string(r) + " has " +
                                  std::to_string(input.size()) + " inputs, the call needs " +
                                  std::to_string(send_count(c)));
    }
    b.device = devices[static_cast<std::size_t>(r)];
    b.recv_count = recv_count(c);
    cudalab::comm::sim_detail::DeviceScope on(b.device);
    if (!c.in_place) {
      b.send_buffer = DeviceBuffer<float>(input);
      b.recv_buffer = DeviceBuffer<float>(std::vector<float>(b.recv_count, nan));
      b.send = b.send_buffer.data();
      b.recv = b.recv_buffer.data();
    } else {
      // One buffer of the larger size: the input at the send offset, NaN
      // elsewhere (what the call must overwrite).
      const std::size_t send_at = cudalab::comm::in_place_send_offset(c.which, c.count, r);
      const std::size_t recv_at = cudalab::comm::in_place_recv_offset(c.which, c.count, r);
      std::vector<float> whole(std::max(input.size(), b.recv_count), nan);
      std::copy(input.begin(), input.end(), whole.begin() + static_cast<std::ptrdiff_t>(send_at));
      b.recv_buffer = DeviceBuffer<float>(whole);
      b.send = b.recv_buffer.data() + send_at;
      b.recv = b.recv_buffer.data() + recv_at;
    }
  }
  return ranks;
}

// Where `pointer` lies in a rank's recv buffer, in elements; -1 outside it.
inline std::int64_t offset_in(const RankBuffers& b, const void* pointer) {
  const auto* p = static_cast<const float*>(pointer);
  if (p < b.recv || p >= b.recv + b.recv_count) return -1;
  return static_cast<std::int64_t>(p - b.recv);
}

inline std::vector<Message> messages_of(cudalab::comm::SimWorld& world,
                                        const std::vector<RankBuffers>& ranks) {
  std::vector<Message> messages;
  std::vector<int> sent(ranks.size(), 0);
  for (const cudalab::comm::SimMessage& m : world.messages()) {
    const RankBuffers& from = ranks[static_cast<std::size_t>(m.from)];
    const RankBuffers& to = ranks[static_cast<std::size_t>(m.to)];
    messages.push_back({m.from, m.to, sent[static_cast<std::size_t>(m.from)]++,
                        offset_in(from, m.src), offset_in(to, m.dst), m.bytes / sizeof(float)});
  }
  return messages;
}

// What a rank's recv buffer holds.
inline std::vector<float> read_output(const RankBuffers& b) {
  cudalab::comm::sim_detail::DeviceScope on(b.device);
  std::vector<float> values(b.recv_count);
  if (!values.empty()) {
    CUDA_CHECK(
        cudaMemcpy(values.data(), b.recv, values.size() * sizeof(float), cudaMemcpyDeviceToHost));
  }
  return values;
}

inline std::vector<std::vector<float>> read_outputs(const std::vector<RankBuffers>& ranks) {
  std::vector<std::vector<float>> outputs;
  for (const RankBuffers& b : ranks) outputs.push_back(read_output(b));
  return outputs;
}

class LabBackend final : public cudalab::harness::BackendFor<Backend> {
 public:
  int nccl_devices() const override {
#if CUDALAB_GPU
    int devices = 0;
    CUDA_CHECK(cudaGetDeviceCount(&devices));
    return devices;
#else
    return 64;  // the emulator makes as many virtual devices as a call needs
#endif
  }

  RanksRun by_hand(const CollectiveCase& c, CommKind kind) override {
    return on_ranks(c, kind, [&c](Comm& comm, const float* send, float* recv) {
      run_by_hand(comm, c, send, recv);
    });
  }

  RanksRun ring(const CollectiveCase& c, RingStop stop, CommKind kind) override {
    return on_ranks(c, kind, [&c, stop](Comm& comm, const float* send, float* recv) {
      lab04::ring_all_reduce(comm, send, recv, c.count, stop == RingStop::after_reduce_scatter);
    });
  }

  RanksRun through_nccl(const CollectiveCase& c) override {
    RanksRun result;
    result.comm = CUDALAB_GPU ? "nccl" : "nccl (emulated)";
    const int n = c.ranks();
    DevicesFor devices_for(n);
    std::vector<RankBuffers> ranks;
    std::vector<cudalab::OwnedStream> owned(static_cast<std::size_t>(n));
    result.observation = observe_call({}, {}, [&] {
      if (n > nccl_devices()) {
        throw std::invalid_argument("NCCL needs one device per rank: " + std::to_string(n) +
                                    " ranks, " + std::to_string(nccl_devices()) + " devices");
      }
      std::vector<int> devices = cudalab::comm::one_device_per_rank(n);
      if (c.devices_reversed) std::reverse(devices.begin(), devices.end());
      ranks = make_buffers(c, devices);
      std::vector<const float*> sends;
      std::vector<float*> recvs;
      std::vector<cudaStream_t> streams;
      for (int r = 0; r < n; ++r) {
        cudalab::comm::sim_detail::DeviceScope on(ranks[static_cast<std::size_t>(r)].device);
        owned[static_cast<std::size_t>(r)] = cudalab::OwnedStream(cudaStreamNonBlocking);
        streams.push_back(owned[static_cast<std::size_t>(r)].get());
        sends.push_back(ranks[static_cast<std::size_t>(r)].send);
        recvs.push_back(ranks[static_cast<std::size_t>(r)].recv);
      }
      std::vector<ncclComm_t> comms = lab04::make_communicators(devices);
      lab04::run_collective(c.which, comms, streams, sends, recvs, c.count, c.root);
      result.outputs = read_outputs(ranks);
      lab04::destroy_communicators(comms);
    });
    for (int r = 0; r < n; ++r) {
      const cudaStream_t stream = owned[static_cast<std::size_t>(r)].get();
      if (stream == nullptr) continue;
      cudalab::comm::sim_detail::DeviceScope on(ranks[static_cast<std::size_t>(r)].device);
      CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    return result;
  }

  TimedCollective time_collective(Collective which, bool student_ring, CommKind kind, int ranks,
                                  std::size_t count, int repeats) override {
    DevicesFor devices_for(ranks);
    std::vector<std::vector<double>> ms(static_cast<std::size_t>(ranks));
    std::vector<std::uint64_t> wrong(static_cast<std::size_t>(ranks), 0);
    const auto per_rank = [&](Comm& comm) {
      const std::size_t r = static_cast<std::size_t>(comm.rank());
      ms[r] = time_on_rank(comm, which, student_ring, count, repeats, &wrong[r]);
    };
    if (kind == CommKind::nccl) {
      cudalab::comm::run_nccl_ranks(ranks, per_rank);
    } else {
      cudalab::comm::SimWorld world(cudalab::comm::one_device_per_rank(ranks));
      cudalab::comm::run_ranks(world, per_rank, "simulated, a device per rank");
    }
    TimedCollective timed;
    std::vector<double> slowest(static_cast<std::size_t>(repeats), 0.0);
    for (const auto& rank_ms : ms) {
      for (std::size_t i = 0; i < slowest.size(); ++i)
        slowest[i] = std::max(slowest[i], rank_ms[i]);
    }
    std::sort(slowest.begin(), slowest.end());
    timed.ms = slowest[slowest.size() / 2];
    for (const std::uint64_t w : wrong) timed.wrong += w;
    return timed;
  }

  std::vector<char> new_nccl_id() override {
#if CUDALAB_GPU
    ncclUniqueId id;
    NCCL_CHECK(ncclGetUniqueId(&id));
    return std::vector<char>(id.internal, id.internal + sizeof(id.internal));
#else
    throw std::logic_error("lab 04: one process per GPU (MPI) needs the GPU backend");
#endif
  }

  std::vector<ProcessCheck> check_as_process([[maybe_unused]] const std::vector<char>& id,
                                             [[maybe_unused]] int ranks, [[maybe_unused]] int rank,
                                             [[maybe_unused]] int device,
                                             [[maybe_unused]] std::uint64_t seed,
                                             [[maybe_unused]] std::size_t count) override {
#if CUDALAB_GPU
    ncclUniqueId nccl_id;
    if (id.size() != sizeof(nccl_id.internal)) {
      throw std::invalid_argument("lab 04: an NCCL id has " +
                                  std::to_string(sizeof(nccl_id.internal)) + " bytes, not " +
                                  std::to_string(id.size()));
    }
    std::copy(id.begin(), id.end(), nccl_id.internal);
    CUDA_CHECK(cudaSetDevice(device));
    cudalab::comm::NcclComm comm(nccl_id, ranks, rank);
    std::vector<ProcessCheck> checks;
    const auto check = [&](const std::string& name, const CollectiveCase& c, const RankBody& body) {
      ProcessCheck result{name, ""};
      try {
        std::vector<RankBuffers> buffers =
            make_buffers(c, std::vector<int>(c.inputs.size(), device));
        const RankBuffers& mine = buffers[static_cast<std::size_t>(rank)];
        body(comm, mine.send, mine.recv);
        CUDA_CHECK(cudaStreamSynchronize(comm.stream()));
        const std::vector<std::vector<float>> got = {read_output(mine)};
        const std::vector<std::vector<float>> want = {
            expected_outputs(c)[static_cast<std::size_t>(rank)]};
        if (const auto wrong = first_mismatch(got, want)) result.problem = *wrong;
      } catch (const std::exception& e) {
        result.problem = e.what();
      }
      checks.push_back(result);
    };
    for (const auto& collective : cudalab::comm::kCollectives) {
      const Collective which = collective.which;
      const CollectiveCase c = process_case(which, ranks, count, seed);
      check(std::string(cudalab::comm::to_string(which)) + "_by_hand", c,
            [&c](Comm& on, const float* send, float* recv) { run_by_hand(on, c, send, recv); });
    }
    const CollectiveCase c = process_case(Collective::all_reduce, ranks, count, seed + 1);
    check("ring_all_reduce", c, [&c](Comm& on, const float* send, float* recv) {
      lab04::ring_all_reduce(on, send, recv, c.count);
    });
    return checks;
#else
    throw std::logic_error("lab 04: one process per GPU (MPI) needs the GPU backend");
#endif
  }

  double message_bytes(Collective which, std::size_t count, std::size_t element_bytes,
                       int ranks) const override {
    return lab04::message_bytes(which, count, element_bytes, ranks);
  }
  double algbw_gbps(double bytes, double seconds) const override {
    return lab04::algbw_gbps(bytes, seconds);
  }
  double busbw_factor(Collective which, int ranks) const override {
    return lab04::busbw_factor(which, ranks);
  }

 private:
  // The student's exercise 1 collective `c.which` on one rank.
  static void run_by_hand(Comm& comm, const CollectiveCase& c, const float* send, float* recv) {
    switch (c.which) {
      case Collective::all_reduce:
        lab04::all_reduce_by_hand(comm, send, recv, c.count);
        break;
      case Collective::broadcast:
        lab04::broadcast_by_hand(comm, send, recv, c.count, c.root);
        break;
      case Collective::all_gather:
        lab04::all_gather_by_hand(comm, send, recv, c.count);
        break;
      case Collective::reduce_scatter:
        lab04::reduce_scatter_by_hand(comm, send, recv, c.count);
        break;
    }
  }

  // The same inputs in every process (harness::make_case, random from
  // `seed`); broadcasts from the last rank.
  static CollectiveCase process_case(Collective which, int ranks, std::size_t count,
                                     std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    return make_case(which, ranks, count, false, ranks - 1,
                     [&rng](int, std::size_t) { return rng() % 1000; });
  }

  // One rank's part of time_collective: rank r's input is all r + 1, so
  // every expected output is known; returns each run's milliseconds.
  static std::vector<double> time_on_rank(Comm& comm, Collective which, bool student_ring,
                                          std::size_t count, int repeats, std::uint64_t* wrong) {
    const std::size_t n = static_cast<std::size_t>(comm.size());
    const std::size_t r = static_cast<std::size_t>(comm.rank());
    const int ranks = comm.size();
    const std::size_t send_count = cudalab::comm::send_elements(which, count, ranks);
    const std::size_t total =
        std::max(send_count, cudalab::comm::recv_elements(which, count, ranks));
    const std::size_t send_at = cudalab::comm::in_place_send_offset(which, count, comm.rank());
    const std::size_t recv_at = cudalab::comm::in_place_recv_offset(which, count, comm.rank());
    // In place, as NCCL defines it (backend.hpp, CollectiveCase): this
    // rank's input is all r + 1, NaN around it.
    std::vector<float> initial(total, std::numeric_limits<float>::quiet_NaN());
    std::fill_n(initial.begin() + static_cast<std::ptrdiff_t>(send_at), send_count,
                static_cast<float>(r + 1));
#if CUDALAB_GPU
    // Stream-ordered scratch (the ring's StreamBuffer) stays in the pool
    // between runs, as PyTorch's caching allocator keeps it: with the
    // default threshold of 0 every synchronisation hands it back, and each
    // run would pay for mapping it again.
    cudaMemPool_t pool = nullptr;
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, comm.device()));
    std::uint64_t keep_everything = ~std::uint64_t{0};
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything));
#endif
    const DeviceBuffer<float> pristine(initial);
    DeviceBuffer<float> buffer(total);
    float* data = buffer.data();
    const auto run = [&] {
      if (student_ring) {
        lab04::ring_all_reduce(comm, data, data, count);
        return;
      }
      cudalab::comm::run_on(comm, which, data + send_at, data + recv_at, count,
                            cudalab::comm::DataType::f32, cudalab::comm::ReduceOp::sum, 0);
    };
    const auto reset = [&] {
      CUDA_CHECK(cudaMemcpyAsync(data, pristine.data(), total * sizeof(float),
                                 cudaMemcpyDeviceToDevice, comm.stream()));
    };
    // Events on both backends (the emulator's clock is its modelled one).
    const cudalab::OwnedEvent start, stop;
    std::vector<double> times;
    for (int i = 0; i <= repeats; ++i) {  // run 0 is the warm-up
      reset();
      comm.barrier();
      CUDA_CHECK(cudaEventRecord(start.get(), comm.stream()));
      run();
      CUDA_CHECK(cudaEventRecord(stop.get(), comm.stream()));
      CUDA_CHECK(cudaEventSynchronize(stop.get()));
      float elapsed = 0;
      CUDA_CHECK(cudaEventElapsedTime(&elapsed, start.get(), stop.get()));
      if (i > 0) times.push_back(elapsed);
    }
    const std::vector<float> out = buffer.copy_to_host();
    const float sum = static_cast<float>(n * (n + 1) / 2);
    const auto expected = [&](std::size_t i) -> float {
      switch (which) {
        case Collective::all_reduce:
          return sum;
        case Collective::broadcast:
          return 1.0f;
        case Collective::all_gather:
          return static_cast<float>(i / count + 1);
        case Collective::reduce_scatter:
          return sum;
      }
      return 0.0f;
    };
    // A reduce_scatter's output is this rank's block; NCCL may use the rest.
    const std::size_t first = recv_at;
    const std::size_t end = first + cudalab::comm::recv_elements(which, count, ranks);
    for (std::size_t i = first; i < end; ++i) {
      if (!(out[i] == expected(i))) ++*wrong;
    }
    return times;
  }

  using RankBody = std::function<void(Comm&, const float*, float*)>;

  // Runs `body` on every rank of a fresh communicator of `kind`.
  RanksRun on_ranks(const CollectiveCase& c, CommKind kind, const RankBody& body) {
    RanksRun result;
    const int n = c.ranks();
    DevicesFor devices_for(n);
    std::vector<RankBuffers> ranks;
    const auto per_rank = [&](Comm& comm) {
      const RankBuffers& b = ranks[static_cast<std::size_t>(comm.rank())];
      body(comm, b.send, b.recv);
    };
    result.observation = observe_call({}, {}, [&] {
      if (kind == CommKind::nccl) {
        ranks = make_buffers(c, cudalab::comm::one_device_per_rank(n));
        result.comm = CUDALAB_GPU ? "nccl" : "nccl (emulated)";
        result.traffic = cudalab::comm::run_nccl_ranks(n, per_rank);
      } else {
        // The emulator: a virtual device per rank; a GPU: every rank on it.
        const std::vector<int> devices = CUDALAB_GPU ? cudalab::comm::all_on_device(n, 0)
                                                     : cudalab::comm::one_device_per_rank(n);
        ranks = make_buffers(c, devices);
        result.comm =
            CUDALAB_GPU ? "device-sim (streams of one GPU)" : "threads (emulator devices)";
        cudalab::comm::SimWorld world(devices);
        result.traffic = cudalab::comm::run_ranks(world, per_rank, result.comm);
        result.messages = messages_of(world, ranks);
      }
      result.outputs = read_outputs(ranks);
    });
    return result;
  }
};

}  // namespace CUDALAB_BACKEND
}  // namespace lab04::harness
