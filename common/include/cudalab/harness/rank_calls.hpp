// How a backend runs a lab's rank entries (rank_entries.hpp), written once
// and compiled by each backend (nvcc for the GPU, the host compiler against
// the emulator) inside its inline namespace CUDALAB_BACKEND:
//
//   class LabBackend final : public cudalab::harness::RanksBackendFor<Backend> {
//    public:
//     LabBackend() { bind(entry::ring_all_reduce, [](Comm& comm, ...) { ... }); }
//   };
//
// Each call gives every rank its buffers on its device (outputs start as
// NaN, so a rank that leaves part of its output unwritten fails), runs the
// lab's function on every rank (a host thread each) and reads the ranks'
// outputs, traffic and messages back.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudalab/comm/nccl_comm.hpp"
#include "cudalab/comm/sim_comm.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/harness/device_call.hpp"
#include "cudalab/harness/rank_entries.hpp"
#include "cudalab/stream_handles.hpp"

#if !CUDALAB_GPU
#include "cudalab/emu/recorder.hpp"
#endif

namespace cudalab::harness {
inline namespace CUDALAB_BACKEND {

using cudalab::comm::Comm;
using cudalab::comm::sim_detail::DeviceScope;

// What a rank entry binds: NCCL's collective signature on this rank's Comm.
using RankFunction = void (*)(Comm& comm, const float* send, float* recv, std::size_t count,
                              int root);

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

// One rank's buffers of a CollectiveCase on its device.
struct RankBuffers {
  int device = 0;
  cudalab::DeviceBuffer<float> send_buffer;  // empty when in place
  cudalab::DeviceBuffer<float> recv_buffer;
  const float* send = nullptr;
  float* recv = nullptr;
  std::size_t recv_count = 0;
};

// Rank r's buffers on devices[r]: its input, and a recv buffer of NaN (in
// place, one buffer of the larger size with the input at the send offset).
inline std::vector<RankBuffers> make_buffers(const CollectiveCase& c,
                                             const std::vector<int>& devices) {
  const int n = c.ranks();
  const std::size_t send_count = comm::send_elements(c.which, c.count, n);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<RankBuffers> ranks(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    RankBuffers& b = ranks[static_cast<std::size_t>(r)];
    const std::vector<float>& input = c.inputs[static_cast<std::size_t>(r)];
    if (input.size() != send_count) {
      throw std::invalid_argument("rank " + std::to_string(r) + " has " +
                                  std::to_string(input.size()) + " inputs, the call needs " +
                                  std::to_string(send_count));
    }
    b.device = devices[static_cast<std::size_t>(r)];
    b.recv_count = comm::recv_elements(c.which, c.count, n);
    DeviceScope on(b.device);
    if (!c.in_place) {
      b.send_buffer = cudalab::DeviceBuffer<float>(input);
      b.recv_buffer = cudalab::DeviceBuffer<float>(std::vector<float>(b.recv_count, nan));
      b.send = b.send_buffer.data();
      b.recv = b.recv_buffer.data();
    } else {
      const std::size_t send_at = comm::in_place_send_offset(c.which, c.count, r);
      std::vector<float> whole(std::max(input.size(), b.recv_count), nan);
      std::copy(input.begin(), input.end(), whole.begin() + static_cast<std::ptrdiff_t>(send_at));
      b.recv_buffer = cudalab::DeviceBuffer<float>(whole);
      b.send = b.recv_buffer.data() + send_at;
      b.recv = b.recv_buffer.data() + comm::in_place_recv_offset(c.which, c.count, r);
    }
  }
  return ranks;
}

// What a rank's recv buffer holds.
inline std::vector<float> read_output(const RankBuffers& b) {
  DeviceScope on(b.device);
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

// A Backend with rank entries (and ordinary entry points), for this backend.
template <class Interface>
class RanksBackendFor : public EntryBackendFor<Interface> {
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

  RanksRun run(const RankEntry& entry, const CollectiveCase& c, CommKind kind) override {
    const RankFunction function = find(entry);
    RanksRun result;
    const int n = c.ranks();
    DevicesFor devices_for(n);
    std::vector<RankBuffers> ranks;
    const auto per_rank = [&](Comm& comm) {
      const RankBuffers& b = ranks[static_cast<std::size_t>(comm.rank())];
      function(comm, b.send, b.recv, c.count, c.root);
    };
    result.observation = observe_call({}, {}, [&] {
      if (kind == CommKind::nccl) {
        ranks = make_buffers(c, comm::one_device_per_rank(n));
        result.comm = CUDALAB_GPU ? "nccl" : "nccl (emulated)";
        result.traffic = comm::run_nccl_ranks(n, per_rank);
      } else {
        // The emulator: a virtual device per rank; a GPU: every rank on it.
        const std::vector<int> devices =
            CUDALAB_GPU ? comm::all_on_device(n, 0) : comm::one_device_per_rank(n);
        ranks = make_buffers(c, devices);
        result.comm =
            CUDALAB_GPU ? "device-sim (streams of one GPU)" : "threads (emulator devices)";
        comm::SimWorld world(devices);
        result.traffic = comm::run_ranks(world, per_rank, result.comm);
        result.messages = messages_of(world, ranks);
      }
      result.outputs = read_outputs(ranks);
    });
    return result;
  }

  TimedCollective time_collective(Collective which, const RankEntry* code, CommKind kind, int ranks,
                                  std::size_t count, int repeats) override {
    const RankFunction function = code != nullptr ? find(*code) : nullptr;
    DevicesFor devices_for(ranks);
    std::vector<std::vector<double>> ms(static_cast<std::size_t>(ranks));
    std::vector<std::uint64_t> wrong(static_cast<std::size_t>(ranks), 0);
    const auto per_rank = [&](Comm& comm) {
      const std::size_t r = static_cast<std::size_t>(comm.rank());
      ms[r] = time_on_rank(comm, which, function, count, repeats, &wrong[r]);
    };
    if (kind == CommKind::nccl) {
      comm::run_nccl_ranks(ranks, per_rank);
    } else {
      comm::SimWorld world(comm::one_device_per_rank(ranks));
      comm::run_ranks(world, per_rank, "simulated, a device per rank");
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
    throw std::logic_error("one process per GPU (MPI) needs the GPU backend");
#endif
  }

  std::vector<ProcessCheck> check_as_process(
      [[maybe_unused]] const std::vector<char>& id, [[maybe_unused]] int ranks,
      [[maybe_unused]] int rank, [[maybe_unused]] int device,
      [[maybe_unused]] const std::vector<RankCheck>& checks) override {
#if CUDALAB_GPU
    ncclUniqueId nccl_id;
    if (id.size() != sizeof(nccl_id.internal)) {
      throw std::invalid_argument("an NCCL id has " + std::to_string(sizeof(nccl_id.internal)) +
                                  " bytes, not " + std::to_string(id.size()));
    }
    std::copy(id.begin(), id.end(), nccl_id.internal);
    CUDA_CHECK(cudaSetDevice(device));
    comm::NcclComm comm(nccl_id, ranks, rank);
    std::vector<ProcessCheck> results;
    for (const RankCheck& check : checks) {
      ProcessCheck result{std::string(check.entry.name), ""};
      try {
        const std::vector<RankBuffers> buffers =
            make_buffers(check.c, comm::all_on_device(check.c.ranks(), device));
        const RankBuffers& mine = buffers[static_cast<std::size_t>(rank)];
        find(check.entry)(comm, mine.send, mine.recv, check.c.count, check.c.root);
        CUDA_CHECK(cudaStreamSynchronize(comm.stream()));
        const std::vector<std::vector<float>> got = {read_output(mine)};
        const std::vector<std::vector<float>> want = {
            comm::expected_outputs(check.c)[static_cast<std::size_t>(rank)]};
        if (const auto wrong = comm::first_mismatch(got, want)) result.problem = *wrong;
      } catch (const std::exception& e) {
        result.problem = e.what();
      }
      results.push_back(result);
    }
    return results;
#else
    throw std::logic_error("one process per GPU (MPI) needs the GPU backend");
#endif
  }

 protected:
  using EntryBackendFor<Interface>::bind;  // the lab's ordinary entry points
  void bind(const RankEntry& entry, RankFunction function) {
    functions_[std::string(entry.name)] = function;
  }

 private:
  RankFunction find(const RankEntry& entry) const {
    const auto found = functions_.find(std::string(entry.name));
    if (found == functions_.end()) {
      throw std::logic_error("this backend binds no rank entry '" + std::string(entry.name) +
                             "' (the lab's backend_impl.hpp)");
    }
    return found->second;
  }

  // Where `pointer` lies in a rank's recv buffer, in elements; -1 outside it.
  static std::int64_t offset_in(const RankBuffers& b, const void* pointer) {
    const auto* p = static_cast<const float*>(pointer);
    if (p < b.recv || p >= b.recv + b.recv_count) return -1;
    return static_cast<std::int64_t>(p - b.recv);
  }

  static std::vector<Message> messages_of(comm::SimWorld& world,
                                          const std::vector<RankBuffers>& ranks) {
    std::vector<Message> messages;
    std::vector<int> sent(ranks.size(), 0);
    for (const comm::SimMessage& m : world.messages()) {
      const RankBuffers& from = ranks[static_cast<std::size_t>(m.from)];
      const RankBuffers& to = ranks[static_cast<std::size_t>(m.to)];
      messages.push_back({m.from, m.to, sent[static_cast<std::size_t>(m.from)]++,
                          offset_in(from, m.src), offset_in(to, m.dst), m.bytes / sizeof(float)});
    }
    return messages;
  }

  // One rank's part of time_collective; returns each run's milliseconds and
  // adds the elements of this rank's output that are wrong to *wrong.
  static std::vector<double> time_on_rank(Comm& comm, Collective which, RankFunction code,
                                          std::size_t count, int repeats, std::uint64_t* wrong) {
    const int n = comm.size();
    const int r = comm.rank();
    const std::size_t send_count = comm::send_elements(which, count, n);
    const std::size_t recv_count = comm::recv_elements(which, count, n);
    const std::size_t total = std::max(send_count, recv_count);
    const std::size_t send_at = comm::in_place_send_offset(which, count, r);
    const std::size_t recv_at = comm::in_place_recv_offset(which, count, r);
    std::vector<float> initial(total, std::numeric_limits<float>::quiet_NaN());
    std::fill_n(initial.begin() + static_cast<std::ptrdiff_t>(send_at), send_count,
                static_cast<float>(r + 1));
#if CUDALAB_GPU
    // Stream-ordered scratch (a ring's StreamBuffer) stays in the pool
    // between runs, as PyTorch's caching allocator keeps it: with the
    // default threshold of 0 every synchronisation hands it back, and each
    // run would pay for mapping it again.
    cudaMemPool_t pool = nullptr;
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, comm.device()));
    std::uint64_t keep_everything = ~std::uint64_t{0};
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything));
#endif
    const cudalab::DeviceBuffer<float> pristine(initial);
    cudalab::DeviceBuffer<float> buffer(total);
    float* data = buffer.data();
    // Events on both backends (the emulator's clock is its modelled one).
    const cudalab::OwnedEvent start, stop;
    std::vector<double> times;
    for (int i = 0; i <= repeats; ++i) {  // run 0 is the warm-up
      CUDA_CHECK(cudaMemcpyAsync(data, pristine.data(), total * sizeof(float),
                                 cudaMemcpyDeviceToDevice, comm.stream()));
      comm.barrier();
      CUDA_CHECK(cudaEventRecord(start.get(), comm.stream()));
      if (code != nullptr) {
        code(comm, data + send_at, data + recv_at, count, 0);
      } else {
        comm::run_on(comm, which, data + send_at, data + recv_at, count, comm::DataType::f32,
                     comm::ReduceOp::sum, 0);
      }
      CUDA_CHECK(cudaEventRecord(stop.get(), comm.stream()));
      CUDA_CHECK(cudaEventSynchronize(stop.get()));
      float elapsed = 0;
      CUDA_CHECK(cudaEventElapsedTime(&elapsed, start.get(), stop.get()));
      if (i > 0) times.push_back(elapsed);
    }
    // This rank's output only: NCCL may use the rest of a reduce_scatter's buffer.
    const std::vector<float> out = buffer.copy_to_host();
    const auto input = [](int q, std::size_t) { return static_cast<float>(q + 1); };
    for (std::size_t i = 0; i < recv_count; ++i) {
      if (!(out[recv_at + i] == comm::expected_element(which, n, count, 0, r, i, input))) ++*wrong;
    }
    return times;
  }

  std::map<std::string, RankFunction> functions_;
};

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab::harness
