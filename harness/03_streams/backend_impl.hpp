// Lab 03's Backend, written once and compiled twice (by nvcc and by the
// host compiler, in units cmake/CudalabLab.cmake generates) inside the inline
// namespace CUDALAB_BACKEND. Each experiment sets up memory, streams and
// events, runs the student's code in it observed (observe_timed: on the
// emulator, the race checker's reports), and reads values and spans back.
// The experiments only the tests run are theirs: tests/03_streams/scenarios_impl.hpp,
// built into the same unit after this file, with the helpers below.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend.hpp"
#include "copy_compute_overlap.cuh"
#include "cudalab/device_buffer.hpp"
#include "cudalab/harness/device_call.hpp"
#include "cudalab/harness/event_timeline.hpp"
#include "cudalab/host_buffer.hpp"
#include "cudalab/spinner.hpp"
#include "cudalab/stream_handles.hpp"
#include "given/stream_kernels.cuh"
#include "missing_wait.cuh"
#include "stream_kinds.cuh"

namespace lab03::harness {
inline namespace CUDALAB_BACKEND {

using cudalab::DeviceBuffer;
using cudalab::HostBuffer;
using cudalab::HostMemory;
using cudalab::OwnedEvent;
using cudalab::OwnedStream;
using cudalab::harness::EventTimeline;
using cudalab::harness::observe_timed;

// A spin of `ms` on `stream`, timed on `timeline` as span `name` of `row`.
inline void timed_spin(EventTimeline& timeline, cudalab::Spinner& spin, cudaStream_t stream,
                       const char* row, const char* name, double ms) {
  timeline.time(stream, row, name, [&] { spin(ms, stream); });
}

// An experiment of exercises 2 to 4: `issue(timeline, result, out)` runs
// observed with `out` the consumer's sum (cleared before, read back when
// it ran) of A, n ones.
template <class Issue>
Consumed consumed(int n, Issue&& issue) {
  Consumed result;
  result.expected = static_cast<float>(n);
  DeviceBuffer<float> out(1);
  CUDA_CHECK(cudaMemset(out.data(), 0, out.bytes()));
  observe_timed(result, [&](EventTimeline& timeline) { issue(timeline, result, out.data()); });
  if (!result.observation.failed()) {
    CUDA_CHECK(cudaMemcpy(&result.sum, out.data(), sizeof(float), cudaMemcpyDeviceToHost));
  }
  return result;
}

class LabBackend final : public cudalab::harness::EntryBackendFor<Backend> {
 public:
  LabBackend() {
    bind(entry::predicted_total_ms, lab03::predicted_total_ms);
    bind(entry::chunk_of, [](int n, int chunks, int c) {
      const lab03::Chunk chunk = lab03::chunk_of(n, chunks, c);
      return ChunkRange{chunk.begin, chunk.count};
    });
    load_everything_once();
  }

  ThreeSpins three_spins(StreamKind kind, double spin_ms) override {
    ThreeSpins result;
    {
      OwnedStream alone(cudaStreamNonBlocking);
      EventTimeline timeline;
      timed_spin(timeline, spinner_, alone.get(), "s", "spin", spin_ms);
      CUDA_CHECK(cudaDeviceSynchronize());
      result.one_spin_ms = total_ms(timeline.spans());
    }
    OwnedStream s;
    observe_timed(result, [&](EventTimeline& timeline) {
      s.reset(lab03::make_stream(kind));
      const cudaStream_t default_stream = lab03::default_stream_for(kind);
      timed_spin(timeline, spinner_, s.get(), "s", "spin 1", spin_ms);
      timed_spin(timeline, spinner_, default_stream, "default", "spin 2", spin_ms);
      timed_spin(timeline, spinner_, s.get(), "s", "spin 3", spin_ms);
    });
    return result;
  }

  Consumed producer_consumer(int n, double delay_ms, double independent_ms) override {
    // Allocated and cleared before: cudaMalloc and cudaMemset synchronise,
    // which would order the producer before the consumer by accident.
    DeviceBuffer<float> a(cudalab::harness::positive_count(n, "producer_consumer"));
    CUDA_CHECK(cudaMemset(a.data(), 0, a.bytes()));
    OwnedStream side(cudaStreamNonBlocking), other(cudaStreamNonBlocking);
    OwnedEvent filled(cudaEventDisableTiming);
    return consumed(n, [&](EventTimeline& timeline, Consumed&, float* out) {
      timeline.time(cudaStreamLegacy, "default", "producer", [&] {
        spinner_(delay_ms, cudaStreamLegacy);
        lab03::produce_then_consume(a.data(), n, 1.0f, out, side.get(), filled.get());
      });
      timed_spin(timeline, spinner_, other.get(), "other", "independent", independent_ms);
    });
  }

  Pipeline pipeline(const std::vector<float>& in, int chunks, int streams, int iterations,
                    bool timeline, bool pinned) override {
    if (streams < 1 || chunks < 1) throw std::invalid_argument("pipeline: chunks, streams >= 1");
    Pipeline result;
    const int n = static_cast<int>(in.size());
    const HostMemory memory = pinned ? HostMemory::pinned : HostMemory::pageable;
    HostBuffer<float> in_host(in.size(), memory), out_host(in.size(), memory);
    std::copy(in.begin(), in.end(), in_host.data());
    std::fill_n(out_host.data(), in.size(), std::numeric_limits<float>::quiet_NaN());
    DeviceBuffer<float> in_device(std::max<std::size_t>(in.size(), 1));
    DeviceBuffer<float> out_device(std::max<std::size_t>(in.size(), 1));
    std::vector<OwnedStream> owned;
    std::vector<cudaStream_t> handles;
    for (int k = 0; k < streams; ++k) {
      handles.push_back(owned.emplace_back(cudaStreamNonBlocking).get());
    }
    observe_timed(result, [&](EventTimeline& events) {
      const int first = events.mark(handles[0]);
      if (!timeline) {
        lab03::pipeline(in_host.data(), out_host.data(), in_device.data(), out_device.data(), n,
                        chunks, iterations, handles.data(), streams);
      } else {
        for (int c = 0; c < chunks; ++c) {
          const cudaStream_t s = handles[static_cast<std::size_t>(c % streams)];
          const lab03::Chunk chunk = lab03::chunk_of(n, chunks, c);
          const int begin = events.mark(s);
          lab03::enqueue_chunk(in_host.data(), out_host.data(), in_device.data(), out_device.data(),
                               chunk, iterations, s);
          if (chunk.count > 0) {
            events.span("stream " + std::to_string(c % streams + 1), "chunk " + std::to_string(c),
                        begin, events.mark(s));
          }
        }
      }
      // The total runs from the first mark to the last stream's end.
      for (const cudaStream_t s : handles) events.span("end", "end", first, events.mark(s));
    });
    std::erase_if(result.spans, [](const Span& s) { return s.row == "end"; });
    result.out.assign(out_host.data(), out_host.data() + in.size());
    return result;
  }

 private:
  // Launches each kernel (and, where there is one, the stream-ordered pool)
  // once before any experiment. CUDA loads a kernel's code at its first
  // launch (lazy loading, the default since CUDA 12), and that load waits
  // for the work already running: a first launch inside an experiment would
  // order its streams by accident (on the H200, a third stream's spin
  // waited for the producer).
  void load_everything_once() {
    DeviceBuffer<float> one(1);
    fill(one.data(), 1, 1.0f, cudaStreamLegacy);
    sum(one.data(), 1, one.data(), cudaStreamLegacy);
    compute_kernel<<<1, 1>>>(one.data(), one.data(), 1, 1);
    spinner_(0, cudaStreamLegacy);
    void* block = nullptr;
    CUDA_CHECK(cudaMallocAsync(&block, 4096, cudaStreamLegacy));
    CUDA_CHECK(cudaFreeAsync(block, cudaStreamLegacy));
    CUDA_CHECK(cudaDeviceSynchronize());
  }

  cudalab::Spinner spinner_;
};

}  // namespace CUDALAB_BACKEND
}  // namespace lab03::harness
