// Lab 03's Backend, written once and compiled twice (by nvcc and by the
// host compiler, in units cmake/CudalabLab.cmake generates) inside the inline
// namespace CUDALAB_BACKEND. Each experiment sets up memory, streams and
// events, runs the student's code in it observed (observe_timed: on the
// emulator, the race checker's reports), and reads values and spans back.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend.hpp"
#include "caching_allocator.hpp"
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
#include "stream_ordered_free.cuh"

namespace lab03::harness {
inline namespace CUDALAB_BACKEND {

using cudalab::DeviceBuffer;
using cudalab::HostBuffer;
using cudalab::HostMemory;
using cudalab::OwnedEvent;
using cudalab::OwnedStream;
using cudalab::harness::EventTimeline;
using cudalab::harness::observe_timed;

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
      timed_spin(timeline, alone.get(), "s", "spin", spin_ms);
      CUDA_CHECK(cudaDeviceSynchronize());
      result.one_spin_ms = total_ms(timeline.spans());
    }
    OwnedStream s;
    observe_timed(result, [&](EventTimeline& timeline) {
      s.reset(lab03::make_stream(kind));
      const cudaStream_t default_stream = lab03::default_stream_for(kind);
      timed_spin(timeline, s.get(), "s", "spin 1", spin_ms);
      timed_spin(timeline, default_stream, "default", "spin 2", spin_ms);
      timed_spin(timeline, s.get(), "s", "spin 3", spin_ms);
    });
    return result;
  }

  Timed stream_rules(StreamKind kind, double spin_ms) override {
    Timed result;
    OwnedStream s, t(cudaStreamDefault);
    observe_timed(result, [&](EventTimeline& timeline) {
      s.reset(lab03::make_stream(kind));
      timed_spin(timeline, s.get(), "s", "spin", spin_ms);
      timed_spin(timeline, cudaStreamLegacy, "legacy", "spin", spin_ms);
      CUDA_CHECK(cudaDeviceSynchronize());
      timed_spin(timeline, lab03::default_stream_for(kind), "default", "spin", spin_ms);
      timed_spin(timeline, t.get(), "t", "spin", spin_ms);
    });
    return result;
  }

  Consumed producer_consumer(int n, double delay_ms, double independent_ms) override {
    // Allocated and cleared before: cudaMalloc and cudaMemset synchronise,
    // which would order the producer before the consumer by accident.
    DeviceBuffer<float> a(checked_count(n, "producer_consumer"));
    CUDA_CHECK(cudaMemset(a.data(), 0, a.bytes()));
    OwnedStream side(cudaStreamNonBlocking), other(cudaStreamNonBlocking);
    OwnedEvent filled(cudaEventDisableTiming);
    return consumed(n, [&](EventTimeline& timeline, Consumed&, float* out) {
      timeline.time(cudaStreamLegacy, "default", "producer", [&] {
        spinner_(delay_ms, cudaStreamLegacy);
        lab03::produce_then_consume(a.data(), n, 1.0f, out, side.get(), filled.get());
      });
      timed_spin(timeline, other.get(), "other", "independent", independent_ms);
    });
  }

  AllocatorReuse allocator_reuse(std::size_t bytes) override {
    AllocatorReuse result;
    OwnedStream s(cudaStreamNonBlocking), t(cudaStreamNonBlocking);
    lab03::CachingAllocator allocator;
    void* first = allocator.allocate(bytes, s.get());
    allocator.free(first);
    void* again = allocator.allocate(bytes, s.get());
    result.same_stream_reuses = again == first;
    allocator.free(again);
    void* elsewhere = allocator.allocate(bytes, t.get());
    result.other_stream_reuses = elsewhere == first;
    void* larger = allocator.allocate(bytes + 4 * lab03::CachingAllocator::kRounding, s.get());
    result.other_size_reuses = larger == first;
    allocator.free(elsewhere);
    allocator.free(larger);
    result.reserved_after = allocator.reserved_bytes();
    return result;
  }

  RecordStreamRules record_stream_rules(int n, double busy_ms) override {
    RecordStreamRules result;
    const std::size_t bytes = checked_count(n, "record_stream_rules") * sizeof(float);
    DeviceBuffer<float> out(1);
    OwnedStream s(cudaStreamNonBlocking), t(cudaStreamNonBlocking), idle(cudaStreamNonBlocking);
    OwnedEvent filled(cudaEventDisableTiming);
    // A block of a fresh allocator on s, filled there; kept by the caller
    // until its end of scope.
    const auto filled_block = [&](lab03::CachingAllocator& allocator) {
      auto* a = static_cast<float*>(allocator.allocate(bytes, s.get()));
      fill(a, n, 1.0f, s.get());
      return a;
    };
    // t reads `a` after its fill and a spin.
    const auto read_on_t_when_busy = [&](const float* a) {
      cudalab::wait_stream(t.get(), s.get(), filled.get());
      spinner_(busy_ms, t.get());
      sum(a, n, out.data(), t.get());
    };
    // Whether the next block allocated on s is `a` (then written there, as a
    // new tensor would be); waits for everything before the next scenario.
    const auto next_block_on_s_is = [&](lab03::CachingAllocator& allocator, const float* a) {
      auto* b = static_cast<float*>(allocator.allocate(bytes, s.get()));
      fill(b, n, 2.0f, s.get());
      allocator.free(b);
      CUDA_CHECK(cudaDeviceSynchronize());
      return b == a;
    };
    result.observation = cudalab::harness::observe_call({}, {}, [&] {
      {
        lab03::CachingAllocator allocator;
        spinner_(busy_ms, s.get());
        float* a = filled_block(allocator);
        allocator.record_stream(a, s.get());
        allocator.free(a);
        result.own_stream_record_reused = next_block_on_s_is(allocator, a);
      }
      {
        lab03::CachingAllocator allocator;
        float* a = filled_block(allocator);
        read_on_t_when_busy(a);
        allocator.record_stream(a, t.get());
        allocator.free(a);
        CUDA_CHECK(cudaStreamSynchronize(s.get()));
        result.reused_while_recorded_stream_busy = next_block_on_s_is(allocator, a);
      }
      for (const bool busy_first : {false, true}) {
        lab03::CachingAllocator allocator;
        float* a = filled_block(allocator);
        read_on_t_when_busy(a);
        allocator.record_stream(a, busy_first ? t.get() : idle.get());
        allocator.record_stream(a, busy_first ? idle.get() : t.get());
        allocator.free(a);
        (busy_first ? result.reused_while_first_recorded_stream_busy
                    : result.reused_while_second_recorded_stream_busy) =
            next_block_on_s_is(allocator, a);
      }
      {
        lab03::CachingAllocator allocator;
        float* a = filled_block(allocator);
        read_on_t_when_busy(a);
        allocator.record_stream(a, t.get());
        allocator.free(a);
        CUDA_CHECK(cudaDeviceSynchronize());
        float* again = filled_block(allocator);
        result.reused_once_recorded_work_done = again == a;
        spinner_(busy_ms, t.get());
        allocator.free(again);
        float* b = static_cast<float*>(allocator.allocate(bytes, s.get()));
        result.reused_after_unrecorded_life = b == again;
        allocator.free(b);
        CUDA_CHECK(cudaDeviceSynchronize());
      }
    });
    return result;
  }

  Consumed reuse_hazard(int n, ReuseGuard guard, double consumer_delay_ms) override {
    const std::size_t bytes = checked_count(n, "reuse_hazard") * sizeof(float);
    OwnedStream side(cudaStreamNonBlocking);
    OwnedEvent a_filled(cudaEventDisableTiming), a_summed(cudaEventDisableTiming);
    lab03::CachingAllocator allocator;
    // Warm the allocator: A's first allocation must not be a cudaMalloc, whose
    // implicit synchronisation would order everything by accident.
    allocator.free(allocator.allocate(bytes, cudaStreamLegacy));
    return consumed(n, [&](EventTimeline&, Consumed& result, float* out) {
      auto* a = static_cast<float*>(allocator.allocate(bytes, cudaStreamLegacy));
      fill(a, n, 1.0f, cudaStreamLegacy);
      cudalab::wait_stream(side.get(), cudaStreamLegacy, a_filled.get());
      spinner_(consumer_delay_ms, side.get());
      sum(a, n, out, side.get());
      if (guard == ReuseGuard::record_stream) allocator.record_stream(a, side.get());
      if (guard == ReuseGuard::wait_stream) {
        cudalab::wait_stream(cudaStreamLegacy, side.get(), a_summed.get());
      }
      allocator.free(a);  // del A
      auto* b = static_cast<float*>(allocator.allocate(bytes, cudaStreamLegacy));
      result.pointer_reused = b == a;
      fill(b, n, 2.0f, cudaStreamLegacy);
      allocator.free(b);
    });
  }

  std::vector<std::size_t> reserved_over_iterations(int iterations, int n) override {
    const std::size_t bytes = checked_count(n, "reserved_over_iterations") * sizeof(float);
    DeviceBuffer<float> out(1);
    OwnedStream side(cudaStreamNonBlocking);
    OwnedEvent filled(cudaEventDisableTiming);
    lab03::CachingAllocator allocator;
    std::vector<std::size_t> reserved;
    for (int i = 0; i < iterations; ++i) {
      auto* a = static_cast<float*>(allocator.allocate(bytes, cudaStreamLegacy));
      fill(a, n, 1.0f, cudaStreamLegacy);
      cudalab::wait_stream(side.get(), cudaStreamLegacy, filled.get());
      sum(a, n, out.data(), side.get());
      allocator.record_stream(a, side.get());
      allocator.free(a);
      CUDA_CHECK(cudaStreamSynchronize(side.get()));
      reserved.push_back(allocator.reserved_bytes());
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    return reserved;
  }

  Consumed free_async_hazard(int n, double consumer_delay_ms, double independent_ms) override {
    const std::size_t bytes = checked_count(n, "free_async_hazard") * sizeof(float);
    OwnedStream side(cudaStreamNonBlocking), other(cudaStreamNonBlocking);
    OwnedEvent filled(cudaEventDisableTiming), summed(cudaEventDisableTiming);
    return consumed(n, [&](EventTimeline& timeline, Consumed& result, float* out) {
      const void* a = nullptr;
      timeline.time(side.get(), "side", "consumer", [&] {
        spinner_(consumer_delay_ms, side.get());
        a = lab03::produce_consume_free(n, 1.0f, out, side.get(), filled.get(), summed.get());
      });
      float* b = nullptr;
      CUDA_CHECK(cudaMallocAsync(&b, bytes, cudaStreamLegacy));
      result.pointer_reused = b == a;
      fill(b, n, 2.0f, cudaStreamLegacy);
      CUDA_CHECK(cudaFreeAsync(b, cudaStreamLegacy));
      timed_spin(timeline, other.get(), "other", "independent", independent_ms);
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

  // A spin of `ms` on `stream`, timed on `timeline` as span `name` of `row`.
  void timed_spin(EventTimeline& timeline, cudaStream_t stream, const char* row, const char* name,
                  double ms) {
    timeline.time(stream, row, name, [&] { spinner_(ms, stream); });
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

  static std::size_t checked_count(int n, const char* what) {
    if (n < 1) throw std::invalid_argument(std::string(what) + ": n must be >= 1");
    return static_cast<std::size_t>(n);
  }

  cudalab::Spinner spinner_;
};

}  // namespace CUDALAB_BACKEND
}  // namespace lab03::harness
